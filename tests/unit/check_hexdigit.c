/* SPDX-License-Identifier: Apache-2.0 */
/* check_hexdigit.c - common/hexdigit.h: the one hex digit decoder. */
#include <check.h>
#include <string.h>

#include "hexdigit.h"

extern Suite *hexdigit_suite(void); /* listed in the runner by tests/tests.mk */

START_TEST(hex_digit_both_cases)
{
	static const char lower[] = "0123456789abcdef", upper[] = "0123456789ABCDEF";
	int i;

	for (i = 0; i < 16; i++) {
		ck_assert_int_eq(hex_digit((unsigned char)lower[i]), i);
		ck_assert_int_eq(hex_digit((unsigned char)upper[i]), i);
	}
}
END_TEST

/* Every other byte is -1: the neighbours of each range, NUL, blanks, the
 * 'x' of a 0x and every byte past 0x7f (a signed char's negatives). */
START_TEST(hex_digit_nothing_else)
{
	int c, digits = 0;

	for (c = 0; c < 256; c++) {
		if (c != 0 && strchr("0123456789abcdefABCDEF", c)) {
			digits++;
			continue;
		}
		ck_assert_msg(hex_digit((unsigned char)c) == -1, "byte 0x%02x decoded", c);
	}
	ck_assert_int_eq(digits, 22);
}
END_TEST

Suite *hexdigit_suite(void)
{
	Suite *s = suite_create("hexdigit");
	TCase *tc = tcase_create("hexdigit");

	tcase_add_test(tc, hex_digit_both_cases);
	tcase_add_test(tc, hex_digit_nothing_else);
	suite_add_tcase(s, tc);
	return s;
}
