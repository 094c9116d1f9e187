/* SPDX-License-Identifier: Apache-2.0 */
/* check_hs_reply.c - HotSpot request encoders and reply parsers (hs_reply.c). */
#include <errno.h>
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hs_reply.h"

extern Suite *hs_reply_suite(void); /* listed in the runner by tests/tests.mk */

#define S(lit) lit, sizeof(lit) - 1

START_TEST(v1_exact_bytes)
{
	static const char want[] = "1\0load\0/tmp/a.so\0true\0dir=/x\0";
	const char *args[] = { "/tmp/a.so", "true", "dir=/x" };
	char buf[128];

	ck_assert_int_eq(hs_encode_v1(buf, sizeof(buf), "load", args, 3),
			 (int)sizeof(want) - 1);
	ck_assert_mem_eq(buf, want, sizeof(want) - 1);
}
END_TEST

START_TEST(v1_missing_args_are_empty)
{
	/* the 16-byte getversion request of docs/protocols.md D */
	static const unsigned char want[] = { 0x31, 0, 'g', 'e', 't', 'v', 'e', 'r',
					      's', 'i', 'o', 'n', 0, 0, 0, 0 };
	char buf[64];

	ck_assert_int_eq(hs_encode_v1(buf, sizeof(buf), "getversion", NULL, 0), 16);
	ck_assert_mem_eq(buf, want, 16);
}
END_TEST

START_TEST(v1_limits)
{
	char big[1100], buf[4096];
	const char *args[4] = { "a", "b", "c", "d" };

	memset(big, 'x', sizeof(big));
	big[1024] = '\0';                       /* exactly 1024: allowed */
	args[0] = big;
	ck_assert_int_gt(hs_encode_v1(buf, sizeof(buf), "jcmd", args, 1), 0);
	big[1024] = 'x';
	big[1025] = '\0';                       /* 1025: refused locally */
	ck_assert_int_eq(hs_encode_v1(buf, sizeof(buf), "jcmd", args, 1), -EMSGSIZE);
	ck_assert_int_eq(hs_v1_check("jcmd", args, 1), -EMSGSIZE);
	args[0] = "a";
	ck_assert_int_eq(hs_encode_v1(buf, sizeof(buf), "jcmd", args, 4), -E2BIG);
	ck_assert_int_eq(hs_encode_v1(buf, sizeof(buf), "0123456789abcdef", args, 0), 22);
	ck_assert_int_eq(hs_encode_v1(buf, sizeof(buf), "0123456789abcdefg", args, 0),
			 -ENAMETOOLONG);
	ck_assert_int_eq(hs_encode_v1(buf, sizeof(buf), "", args, 0), -ENAMETOOLONG);
	ck_assert_int_eq(hs_encode_v1(buf, 10, "properties", args, 0), -ENOBUFS);
}
END_TEST

START_TEST(v2_size_field)
{
	/* docs/protocols.md D: 2·16·jcmd·VM.version· */
	static const char want[] = "2\00016\0jcmd\0VM.version\0";
	const char *args[] = { "VM.version" };
	char buf[64];

	ck_assert_int_eq(hs_encode_v2(buf, sizeof(buf), "jcmd", args, 1),
			 (int)sizeof(want) - 1);
	ck_assert_mem_eq(buf, want, sizeof(want) - 1);
}
END_TEST

START_TEST(v2_many_args_and_cap)
{
	const char *args[5] = { "a", "", "c", "d", "e" };
	char *big = malloc(HS_V2_BODY_MAX + 16);
	char *buf = malloc(HS_V2_BODY_MAX + 64);
	int n;

	n = hs_encode_v2(buf, HS_V2_BODY_MAX + 64, "x", args, 5);
	/* body: x0 a0 0 c0 d0 e0 = 2+2+1+2+2+2 = 11 */
	ck_assert_int_eq(n, 2 + 3 + 11);
	ck_assert_mem_eq(buf, "2\00011\0x\0a\0\0c\0d\0e\0", (size_t)n);
	/* body of exactly 256 KiB: name "x\0" + arg of 262142 bytes incl NUL */
	memset(big, 'y', HS_V2_BODY_MAX);
	big[HS_V2_BODY_MAX - 3] = '\0';
	args[0] = big;
	ck_assert_int_gt(hs_encode_v2(buf, HS_V2_BODY_MAX + 64, "x", args, 1), 0);
	big[HS_V2_BODY_MAX - 3] = 'y';
	big[HS_V2_BODY_MAX - 2] = '\0';
	ck_assert_int_eq(hs_encode_v2(buf, HS_V2_BODY_MAX + 64, "x", args, 1), -EMSGSIZE);
	ck_assert_int_eq(hs_encode_v2(buf, 8, "jcmd", args, 0), -ENOBUFS);
	ck_assert_int_eq(hs_encode_v2(buf, 64, "", args, 0), -ENAMETOOLONG);
	free(big);
	free(buf);
}
END_TEST

START_TEST(code_line)
{
	int c;

	ck_assert_int_eq(hs_parse_code(S("0"), &c), 0);
	ck_assert_int_eq(c, 0);
	ck_assert_int_eq(hs_parse_code(S("-1"), &c), 0);
	ck_assert_int_eq(c, -1);
	ck_assert_int_eq(hs_parse_code(S("101\r"), &c), 0);
	ck_assert_int_eq(c, 101);
	ck_assert_int_eq(hs_parse_code(S("-2147483648"), &c), 0);
	ck_assert_int_eq(hs_parse_code(S("2147483648"), &c), -EPROTO);
	ck_assert_int_eq(hs_parse_code(S("99999999999999999999999"), &c), -EPROTO);
	ck_assert_int_eq(hs_parse_code(S(""), &c), -EPROTO);
	ck_assert_int_eq(hs_parse_code(S("-"), &c), -EPROTO);
	ck_assert_int_eq(hs_parse_code(S("0 "), &c), -EPROTO);
	ck_assert_int_eq(hs_parse_code(S("+1"), &c), -EPROTO);
	ck_assert_int_eq(hs_parse_code(S("1\0"), &c), -EPROTO);
}
END_TEST

START_TEST(load_8u_bare)
{
	struct attach_reply r;

	ck_assert_int_eq(hs_parse_reply(S("0\n0\n"), true, &r), 0);
	ck_assert(!r.failed && r.agent_code_known);
	ck_assert_int_eq(r.agent_code, 0);
	ck_assert_int_eq(hs_parse_reply(S("0\n7\n"), true, &r), 0);
	ck_assert(!r.failed && r.agent_code_known);
	ck_assert_int_eq(r.agent_code, 7);
	/* 8u load failure: -1 and nothing else */
	ck_assert_int_eq(hs_parse_reply(S("-1\n"), true, &r), 0);
	ck_assert(r.failed && !r.agent_code_known);
	ck_assert_int_eq(r.vm_code, -1);
}
END_TEST

START_TEST(load_11_to_20)
{
	struct attach_reply r;

	ck_assert_int_eq(hs_parse_reply(S("0\nreturn code: 0\n"), true, &r), 0);
	ck_assert(!r.failed && r.agent_code_known && r.agent_code == 0);
	ck_assert_int_eq(hs_parse_reply(S("0\nreturn code: -3\n"), true, &r), 0);
	ck_assert_int_eq(r.agent_code, -3);
	ck_assert_int_eq(hs_parse_reply(S("-1\n/x.so was not loaded.\n/x.so: cannot open "
					  "shared object file\n"), true, &r), 0);
	ck_assert(r.failed);
	ck_assert_ptr_nonnull(strstr(r.message, "was not loaded"));
	ck_assert_int_eq(hs_parse_reply(S("-1\nDynamic agent loading is not enabled. Use "
					  "-XX:+EnableDynamicAgentLoading to launch target VM."),
					true, &r), 0);
	ck_assert(r.failed);
}
END_TEST

START_TEST(load_21_plus_errors_after_zero)
{
	struct attach_reply r;

	ck_assert_int_eq(hs_parse_reply(S("0\n/x.so was not loaded.\n/x.so: cannot open\n"),
					true, &r), 0);
	ck_assert_int_eq(r.vm_code, 0);
	ck_assert(r.failed && !r.agent_code_known);
	ck_assert_ptr_nonnull(strstr(r.message, "/x.so was not loaded."));
	ck_assert_int_eq(hs_parse_reply(S("0\nAgent_OnAttach is not available in x\n"),
					true, &r), 0);
	ck_assert(r.failed);
	/* "7 apples" is a text, not a bare number */
	ck_assert_int_eq(hs_parse_reply(S("0\n7\nsomething\n"), true, &r), 0);
	ck_assert(r.failed);
	/* result 0 and nothing: no agent result is a failure */
	ck_assert_int_eq(hs_parse_reply(S("0\n"), true, &r), 0);
	ck_assert(r.failed);
	ck_assert_int_eq(hs_parse_reply(S("0"), true, &r), 0);
	ck_assert(r.failed);
}
END_TEST

START_TEST(version_101_and_unknown_op)
{
	struct attach_reply r;

	ck_assert_int_eq(hs_parse_reply(S("101\n"), false, &r), 0);
	ck_assert(r.failed);
	ck_assert_int_eq(r.vm_code, ATTACH_HS_NO_PROTOCOL);
	ck_assert_ptr_nonnull(strstr(r.message, "protocol version"));
	ck_assert_int_eq(hs_parse_reply(S("101\nv2 is unsupported or disabled"), false, &r), 0);
	ck_assert_str_eq(r.message, "v2 is unsupported or disabled");
	ck_assert_int_eq(hs_parse_reply(S("-1\nOperation bogus not recognized!"), false, &r), 0);
	ck_assert(r.failed);
	ck_assert_str_eq(r.message, "Operation bogus not recognized!");
}
END_TEST

START_TEST(other_commands)
{
	struct attach_reply r;

	ck_assert_int_eq(hs_parse_reply(S("0\n#props\njava.version=17\n"), false, &r), 0);
	ck_assert(!r.failed && !r.agent_code_known);
	/* JDK 25 streaming jcmd: 0 then text; not a load, so not judged */
	ck_assert_int_eq(hs_parse_reply(S("0\njava.lang.IllegalArgumentException: x\n"),
					false, &r), 0);
	ck_assert(!r.failed);
	ck_assert_int_eq(hs_parse_reply(S(""), false, &r), -EPROTO);
	ck_assert_int_eq(hs_parse_reply(S("hello\n"), false, &r), -EPROTO);
	ck_assert_int_eq(hs_parse_reply(S("\n"), false, &r), -EPROTO);
}
END_TEST

START_TEST(message_sanitised_and_bounded)
{
	char body[2000];
	struct attach_reply r;

	memset(body, 'e', sizeof(body));
	memcpy(body, "-1\n\x01\x1b[31m", 9);
	ck_assert_int_eq(hs_parse_reply(body, sizeof(body), false, &r), 0);
	ck_assert_uint_eq(strlen(r.message), sizeof(r.message) - 1);
	ck_assert_int_eq(r.message[0], '?');       /* control bytes replaced */
	ck_assert_int_eq(r.message[1], '?');
}
END_TEST

START_TEST(getversion_bodies)
{
	bool st;

	ck_assert_int_eq(hs_parse_getversion(S("2"), &st), 2);
	ck_assert(!st);
	ck_assert_int_eq(hs_parse_getversion(S("2 streaming\n"), &st), 2);
	ck_assert(st);
	ck_assert_int_eq(hs_parse_getversion(S("1"), &st), 1);
	ck_assert_int_eq(hs_parse_getversion(S("2 streamingx"), &st), 2);
	ck_assert(!st);
	ck_assert_int_eq(hs_parse_getversion(S(""), &st), -EPROTO);
	ck_assert_int_eq(hs_parse_getversion(S("x"), &st), -EPROTO);
	ck_assert_int_eq(hs_parse_getversion(S("0"), &st), -EPROTO);
	ck_assert_int_eq(hs_parse_getversion(S("99999999999"), &st), -EPROTO);
}
END_TEST

Suite *hs_reply_suite(void)
{
	Suite *s = suite_create("hs_reply");
	TCase *tc = tcase_create("wire");

	tcase_add_test(tc, v1_exact_bytes);
	tcase_add_test(tc, v1_missing_args_are_empty);
	tcase_add_test(tc, v1_limits);
	tcase_add_test(tc, v2_size_field);
	tcase_add_test(tc, v2_many_args_and_cap);
	tcase_add_test(tc, code_line);
	tcase_add_test(tc, load_8u_bare);
	tcase_add_test(tc, load_11_to_20);
	tcase_add_test(tc, load_21_plus_errors_after_zero);
	tcase_add_test(tc, version_101_and_unknown_op);
	tcase_add_test(tc, other_commands);
	tcase_add_test(tc, message_sanitised_and_bounded);
	tcase_add_test(tc, getversion_bodies);
	suite_add_tcase(s, tc);
	return s;
}
