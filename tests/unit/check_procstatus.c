/* SPDX-License-Identifier: Apache-2.0 */
/* check_procstatus.c - common/procstatus.c: the NStgid: line of a status. */
#include <errno.h>
#include <check.h>
#include <string.h>

#include "procstatus.h"

extern Suite *procstatus_suite(void); /* listed in the runner by tests/tests.mk */

#define S(lit) (lit), (sizeof(lit) - 1)

START_TEST(nstgid_value)
{
	pid_t last = -1;
	int levels = -1;

	ck_assert_int_eq(status_nstgid(S("\t4242\t17\t1"), &last, &levels), 0);
	ck_assert_int_eq(last, 1);
	ck_assert_int_eq(levels, 3);
	ck_assert_int_eq(status_nstgid(S(" 7 \n99"), &last, &levels), 0);
	ck_assert_int_eq(last, 7);             /* stops at the newline */
	ck_assert_int_eq(levels, 1);
	ck_assert_int_eq(status_nstgid(S("\t2147483647"), &last, &levels), 0);
	ck_assert_int_eq(last, 2147483647);
	/* malformed: nothing changes */
	last = 5;
	levels = 5;
	ck_assert_int_eq(status_nstgid(S(""), &last, &levels), -EPROTO);
	ck_assert_int_eq(status_nstgid(S("\t \n"), &last, &levels), -EPROTO);
	ck_assert_int_eq(status_nstgid(S("\t1\tx"), &last, &levels), -EPROTO);
	ck_assert_int_eq(status_nstgid(S("\t0"), &last, &levels), -EPROTO);
	ck_assert_int_eq(status_nstgid(S("\t-3"), &last, &levels), -EPROTO);
	ck_assert_int_eq(status_nstgid(S("\t12x"), &last, &levels), -EPROTO);
	ck_assert_int_eq(status_nstgid(S("\t2147483648"), &last, &levels), -EPROTO);
	ck_assert_int_eq(status_nstgid(S("\t99999999999999999999999"), &last, &levels),
			 -EPROTO);
	ck_assert_int_eq(last, 5);
	ck_assert_int_eq(levels, 5);
}
END_TEST

START_TEST(nstgid_in_status)
{
	static const char status[] =
		"Name:\tjava\nTgid:\t4242\nNgid:\t0\nPid:\t4242\nPPid:\t1\n"
		"NStgid:\t4242\t1\nNSpid:\t4242\t1\n";
	pid_t last = 0;
	int levels = 0;

	ck_assert_int_eq(status_find_nstgid(S(status), &last, &levels), 0);
	ck_assert_int_eq(last, 1);
	ck_assert_int_eq(levels, 2);
	/* the line must start with the key; the text need not end in a NUL */
	ck_assert_int_eq(status_find_nstgid(S("Name:\tNStgid: 9\nTgid:\t3\n"), &last,
					    &levels), -ENOENT);
	ck_assert_int_eq(status_find_nstgid("NStgid:\t8\t3", 9, &last, &levels), 0);
	ck_assert_int_eq(last, 8);             /* cut at len: "\t3" not seen */
	ck_assert_int_eq(status_find_nstgid(S("NStgid:\t8\t3"), &last, &levels), 0);
	ck_assert_int_eq(last, 3);
	ck_assert_int_eq(status_find_nstgid(S("Tgid:\t3\n"), &last, &levels), -ENOENT);
	ck_assert_int_eq(status_find_nstgid(S(""), &last, &levels), -ENOENT);
	ck_assert_int_eq(status_find_nstgid(S("Tgid:\t3\nNStgid:\tbad\n"), &last, &levels),
			 -EPROTO);
}
END_TEST

Suite *procstatus_suite(void)
{
	Suite *s = suite_create("procstatus");
	TCase *tc = tcase_create("procstatus");

	tcase_add_test(tc, nstgid_value);
	tcase_add_test(tc, nstgid_in_status);
	suite_add_tcase(s, tc);
	return s;
}
