/* check_cli.c - CLI helpers (cli_util.c): strict numbers, JSON strings. */
#include <errno.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

extern Suite *cli_suite(void);

START_TEST(pids_strict)
{
	pid_t p;

	ck_assert_int_eq(cli_parse_pid("4242", &p), 0);
	ck_assert_int_eq(p, 4242);
	ck_assert_int_eq(cli_parse_pid("0", &p), -EINVAL);
	ck_assert_int_eq(cli_parse_pid("-1", &p), -EINVAL);
	ck_assert_int_eq(cli_parse_pid("+1", &p), -EINVAL);
	ck_assert_int_eq(cli_parse_pid(" 1", &p), -EINVAL);
	ck_assert_int_eq(cli_parse_pid("1x", &p), -EINVAL);
	ck_assert_int_eq(cli_parse_pid("", &p), -EINVAL);
	ck_assert_int_eq(cli_parse_pid("notapid", &p), -EINVAL);
	ck_assert_int_eq(cli_parse_pid("2147483648", &p), -EINVAL);
	ck_assert_int_eq(cli_parse_pid("99999999999999999999999", &p), -EINVAL);
	ck_assert_int_eq(cli_parse_pid(NULL, &p), -EINVAL);
}
END_TEST

START_TEST(milliseconds_strict)
{
	int ms;

	ck_assert_int_eq(cli_parse_ms("10000", &ms), 0);
	ck_assert_int_eq(ms, 10000);
	ck_assert_int_eq(cli_parse_ms("0", &ms), 0);
	ck_assert_int_eq(cli_parse_ms("soon", &ms), -EINVAL);
	ck_assert_int_eq(cli_parse_ms("10s", &ms), -EINVAL);
	ck_assert_int_eq(cli_parse_ms("-5", &ms), -EINVAL);
	ck_assert_int_eq(cli_parse_ms("999999999999", &ms), -EINVAL);
}
END_TEST

static char *json_of(const char *s, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cli_json_str(f, s, n);
	fclose(f);
	return buf;
}

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

Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("helpers");

	tcase_add_test(tc, pids_strict);
	tcase_add_test(tc, milliseconds_strict);
	tcase_add_test(tc, json_escapes);
	tcase_add_test(tc, json_invalid_utf8_replaced);
	suite_add_tcase(s, tc);
	return s;
}
