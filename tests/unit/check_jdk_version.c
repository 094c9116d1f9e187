/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_jdk_version.c - JDK versions from libjvm.so's VM info string and
 * from JAVA_VERSION strings, and the versions jsym refuses or warns about
 * (attach/proc/jdk_version.c).
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "jdk_version.h"
#include "target.h"

extern Suite *jdk_version_suite(void);

#define S(lit) lit, sizeof(lit) - 1

START_TEST(vm_info_of_each_jdk)
{
	/* as Debian's libjvm.so carry them, with a NUL before and after */
	static const char j8[] = "x\0JRE version: %s\0OpenJDK 64-Bit Server VM "
				 "(25.504-b01) for linux-amd64 JRE (1.8.0_504-8u504-"
				 "ga-1-b01), built on Aug 20 2026 by \"sbuild\"\0y";
	static const char j11[] = "\0OpenJDK 64-Bit Server VM (11.0.33-ea+8-post-1-"
				  "Debian) for linux-amd64 JRE (11.0.33-ea+8-post-1-"
				  "Debian), built on Oct  8 2026\0";
	static const char j28[] = "\0OpenJDK 64-Bit Server VM (28-ea+18-1-Debian) for "
				  "linux-amd64 JRE (28-ea+18-1-Debian), built on x\0";
	char v[32];

	ck_assert_int_eq(jdk_parse_vm_info(S(j8), v, sizeof(v)), 8);
	ck_assert_str_eq(v, "1.8.0_504");
	ck_assert_int_eq(jdk_parse_vm_info(S(j11), v, sizeof(v)), 11);
	ck_assert_str_eq(v, "11.0.33");
	ck_assert_int_eq(jdk_parse_vm_info(S(j28), v, sizeof(v)), 28);
	ck_assert_str_eq(v, "28");
}
END_TEST

START_TEST(vm_info_not_fooled)
{
	/* a format string, a " JRE (" without ") for " in its string, one cut
	 * at the end of the buffer, one too long for the caller's buffer */
	static const char fmt[] = "\0%s (%s) for %s JRE (%s), built on\0";
	static const char other[] = "\0see JRE (17) docs\0";
	static const char cut[] = "\0VM (1) for linux-amd64 JRE (17.0.9";
	static const char ok[] = "\0VM (1) for linux-amd64 JRE (17.0.9+9)\0";
	char v[32];

	ck_assert_int_eq(jdk_parse_vm_info(S(fmt), v, sizeof(v)), -ENOENT);
	ck_assert_int_eq(jdk_parse_vm_info(S(other), v, sizeof(v)), -ENOENT);
	ck_assert_int_eq(jdk_parse_vm_info(S(cut), v, sizeof(v)), -ENOENT);
	ck_assert_int_eq(jdk_parse_vm_info(S(ok), v, 4), -ENAMETOOLONG);
	ck_assert_int_eq(jdk_parse_vm_info(S(ok), v, sizeof(v)), 17);
	ck_assert_str_eq(v, "17.0.9");
	ck_assert_int_eq(jdk_parse_vm_info(NULL, 0, v, sizeof(v)), -EINVAL);
}
END_TEST

START_TEST(version_strings)
{
	struct jdk_version jv;

	ck_assert_int_eq(jdk_parse_version("1.8.0_382", &jv), 0);
	ck_assert_int_eq(jv.major, 8);
	ck_assert_int_eq(jv.update, 382);
	ck_assert_int_eq(jdk_parse_version("1.8.0_504-b01", &jv), 0);
	ck_assert_int_eq(jv.update, 504);
	ck_assert_int_eq(jdk_parse_version("1.8.0", &jv), 0);
	ck_assert_int_eq(jv.major, 8);
	ck_assert_int_eq(jv.update, -1);
	ck_assert_int_eq(jdk_parse_version("17.0.21.0.3", &jv), 0);
	ck_assert_int_eq(jv.major, 17);
	ck_assert_int_eq(jv.update, 21);
	ck_assert_int_eq(jdk_parse_version("11.0.33-ea", &jv), 0);
	ck_assert_int_eq(jv.update, 33);
	ck_assert_int_eq(jdk_parse_version("28", &jv), 0);
	ck_assert_int_eq(jv.major, 28);
	ck_assert_int_eq(jv.update, 0);
	ck_assert_int_eq(jdk_parse_version("", &jv), -EPROTO);
	ck_assert_int_eq(jdk_parse_version("abc", &jv), -EPROTO);
	ck_assert_int_eq(jdk_parse_version("1.x", &jv), -EPROTO);
	ck_assert_int_eq(jv.major, 0);
}
END_TEST

START_TEST(agent_verdicts)
{
	struct err_text why;

	/* JDK-8305165: 8u before 382 refused, 382 and later fine */
	ck_assert_int_eq(jdk_agent_verdict(8, "1.8.0_372", &why),
			 JDK_AGENT_REFUSE);
	ck_assert_ptr_nonnull(strstr(why.msg, "JDK-8305165"));
	ck_assert_ptr_nonnull(strstr(why.msg, "8u372"));
	ck_assert_ptr_nonnull(strstr(why.msg, "8u382"));
	ck_assert_int_eq(jdk_agent_verdict(8, "1.8.0_381", &why),
			 JDK_AGENT_REFUSE);
	ck_assert_int_eq(jdk_agent_verdict(8, "1.8.0_382", &why),
			 JDK_AGENT_OK);
	ck_assert_str_eq(why.msg, "");
	ck_assert_int_eq(jdk_agent_verdict(8, "1.8.0_504", &why),
			 JDK_AGENT_OK);
	/* a JDK 8 whose update nobody could read: a warning, not a refusal */
	ck_assert_int_eq(jdk_agent_verdict(8, "", &why), JDK_AGENT_WARN);
	ck_assert_ptr_nonnull(strstr(why.msg, "8u382"));
	ck_assert_int_eq(jdk_agent_verdict(8, "1.8.0", &why),
			 JDK_AGENT_WARN);
	/* the bug is 8u's only: 11.0.1 or 17.0.0 are not older than "382" */
	ck_assert_int_eq(jdk_agent_verdict(11, "11.0.1", &why),
			 JDK_AGENT_OK);
	ck_assert_int_eq(jdk_agent_verdict(17, "", &why), JDK_AGENT_OK);
	ck_assert_int_eq(jdk_agent_verdict(0, "", &why), JDK_AGENT_OK);
}
END_TEST

Suite *jdk_version_suite(void)
{
	Suite *s = suite_create("jdk_version");
	TCase *tc = tcase_create("versions");

	tcase_add_test(tc, vm_info_of_each_jdk);
	tcase_add_test(tc, vm_info_not_fooled);
	tcase_add_test(tc, version_strings);
	tcase_add_test(tc, agent_verdicts);
	suite_add_tcase(s, tc);
	return s;
}
