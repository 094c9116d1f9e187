/* SPDX-License-Identifier: Apache-2.0 */
/* check_text.c - attach/base/text.c: strict numbers, JSON strings. */
#include <errno.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

extern Suite *text_suite(void); /* listed in the runner by tests/tests.mk */

START_TEST(pids_strict)
{
	pid_t p;

	ck_assert_int_eq(text_parse_pid("4242", &p), 0);
	ck_assert_int_eq(p, 4242);
	ck_assert_int_eq(text_parse_pid("0", &p), -EINVAL);
	ck_assert_int_eq(text_parse_pid("-1", &p), -EINVAL);
	ck_assert_int_eq(text_parse_pid("+1", &p), -EINVAL);
	ck_assert_int_eq(text_parse_pid(" 1", &p), -EINVAL);
	ck_assert_int_eq(text_parse_pid("1x", &p), -EINVAL);
	ck_assert_int_eq(text_parse_pid("", &p), -EINVAL);
	ck_assert_int_eq(text_parse_pid("notapid", &p), -EINVAL);
	ck_assert_int_eq(text_parse_pid("2147483648", &p), -EINVAL);
	ck_assert_int_eq(text_parse_pid("99999999999999999999999", &p), -EINVAL);
	ck_assert_int_eq(text_parse_pid(NULL, &p), -EINVAL);
}
END_TEST

START_TEST(milliseconds_strict)
{
	int ms;

	ck_assert_int_eq(text_parse_ms("10000", &ms), 0);
	ck_assert_int_eq(ms, 10000);
	ck_assert_int_eq(text_parse_ms("0", &ms), 0);
	ck_assert_int_eq(text_parse_ms("soon", &ms), -EINVAL);
	ck_assert_int_eq(text_parse_ms("10s", &ms), -EINVAL);
	ck_assert_int_eq(text_parse_ms("-5", &ms), -EINVAL);
	ck_assert_int_eq(text_parse_ms("999999999999", &ms), -EINVAL);
}
END_TEST

static char *json_of(const char *s, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	text_json_str(f, s, n);
	fclose(f);
	return buf;
}

START_TEST(ranged_ints_strict)
{
	int v = 7;

	ck_assert_int_eq(text_parse_int("1", 1, 64, &v), 0);
	ck_assert_int_eq(v, 1);
	ck_assert_int_eq(text_parse_int("64", 1, 64, &v), 0);
	ck_assert_int_eq(v, 64);
	ck_assert_int_eq(text_parse_int("0", 1, 64, &v), -EINVAL);
	ck_assert_int_eq(text_parse_int("65", 1, 64, &v), -EINVAL);
	ck_assert_int_eq(text_parse_int("4x", 1, 64, &v), -EINVAL);
	ck_assert_int_eq(text_parse_int("-4", 1, 64, &v), -EINVAL);
	ck_assert_int_eq(text_parse_int("", 1, 64, &v), -EINVAL);
	ck_assert_int_eq(text_parse_int(NULL, 1, 64, &v), -EINVAL);
	ck_assert_int_eq(text_parse_int("99999999999999999999", 0, 2147483647, &v), -EINVAL);
	ck_assert_int_eq(v, 64); /* unchanged by the refusals */
}
END_TEST

START_TEST(json_escapes)
{
	char *j = json_of("a\"b\\c\nd\te\x01\x7f", 11);

	ck_assert_str_eq(j, "\"a\\\"b\\\\c\\nd\\te\\u0001\\u007f\"");
	free(j);
	j = json_of("x\0y", 3);                     /* NULs inside the output */
	ck_assert_str_eq(j, "\"x\\u0000y\"");
	free(j);
	j = json_of("", 0);
	ck_assert_str_eq(j, "\"\"");
	free(j);
}
END_TEST

START_TEST(json_invalid_utf8_replaced)
{
	char *j = json_of("\xc3\xa9-\xff-\xe2\x82", 7);

	/* valid é kept as is, each byte of a stray or cut sequence becomes U+FFFD */
	ck_assert_str_eq(j, "\"\xc3\xa9-\\ufffd-\\ufffd\\ufffd\"");
	free(j);
}
END_TEST

START_TEST(json_utf8_edges)
{
	/* 4-byte U+1F600 kept; a surrogate (modified UTF-8 of the JVM), an
	 * overlong '/' and U+110000 are not well-formed: U+FFFD per byte */
	char *j = json_of("\xf0\x9f\x98\x80|\xed\xa0\x80|\xc0\xaf|\xf4\x90\x80\x80", 16);

	ck_assert_str_eq(j, "\"\xf0\x9f\x98\x80|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd|"
			 "\\ufffd\\ufffd\\ufffd\\ufffd\"");
	free(j);
}
END_TEST

/* Issue 24 row 8: bidi and other invisible format characters are valid
 * JSON, but a terminal showing it would reorder: \uNNNN (a surrogate pair
 * beyond the BMP); visible neighbours kept. */
START_TEST(json_invisible_escaped)
{
	char *j = json_of("a\xe2\x80\xae" "b\xe2\x81\xa7" "c\xf3\xa0\x81\x81\xe2\x80\xa6",
			  16);

	ck_assert_str_eq(j, "\"a\\u202eb\\u2067c\\udb40\\udc41\xe2\x80\xa6\"");
	free(j);
}
END_TEST

/* A buffer grows by doubling from its first size, never past 2 GiB: a
 * larger need fails and leaves it as it was. */
START_TEST(reserve_grows_and_bounds)
{
	char *buf = NULL;
	size_t cap = 0;

	ck_assert_int_eq(text_reserve(&buf, &cap, 10, 64), 0);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(cap, 64);
	memset(buf, 'x', 64);
	ck_assert_int_eq(text_reserve(&buf, &cap, 64, 64), 0);
	ck_assert_uint_eq(cap, 64);
	ck_assert_int_eq(text_reserve(&buf, &cap, 300, 64), 0);
	ck_assert_uint_eq(cap, 512);
	ck_assert_int_eq(buf[63], 'x');
	ck_assert_int_eq(text_reserve(&buf, &cap, (size_t)3 << 30, 64), -ENOMEM);
	ck_assert_uint_eq(cap, 512);
	ck_assert_int_eq(buf[63], 'x');
	free(buf);
}
END_TEST

Suite *text_suite(void)
{
	Suite *s = suite_create("text");
	TCase *tc = tcase_create("text");

	tcase_add_test(tc, pids_strict);
	tcase_add_test(tc, milliseconds_strict);
	tcase_add_test(tc, ranged_ints_strict);
	tcase_add_test(tc, json_escapes);
	tcase_add_test(tc, json_invalid_utf8_replaced);
	tcase_add_test(tc, json_utf8_edges);
	tcase_add_test(tc, json_invisible_escaped);
	tcase_add_test(tc, reserve_grows_and_bounds);
	suite_add_tcase(s, tc);
	return s;
}
