/* SPDX-License-Identifier: Apache-2.0 */
/* check_creds.c - euid/egid switching and capability hints (creds.c). */
#include <errno.h>
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check_skip.h"
#include "target.h"

extern Suite *creds_suite(void); /* listed in the runner by tests/tests.mk */

START_TEST(same_ids_is_a_no_op)
{
	struct creds_saved sv;
	struct err_text e = { "" };

	ck_assert_int_eq(creds_become(geteuid(), getegid(), NULL, -1, &sv, &e), 0);
	ck_assert(!sv.switched);
	ck_assert_int_eq(creds_restore(&sv), 0);
}
END_TEST

/* Root only: creds_suite adds it to the "creds-root" case as root, and
 * otherwise prints why it is skipped (check_skip.h: a skipped test must
 * not count as a pass). */
START_TEST(switch_and_restore_as_root)
{
	gid_t groups[2] = { 65534, 4 };
	struct creds_saved sv;
	struct err_text e = { "" };
	gid_t now[8];

	ck_assert_int_eq(creds_become(65534, 65534, groups, 2, &sv, &e), 0);
	ck_assert(sv.switched);
	ck_assert_uint_eq(geteuid(), 65534);
	ck_assert_uint_eq(getegid(), 65534);
	ck_assert_int_eq(getgroups(8, now), 2);
	ck_assert_uint_eq(getuid(), 0);             /* real uid kept: can go back */
	ck_assert_int_eq(creds_restore(&sv), 0);
	ck_assert_uint_eq(geteuid(), 0);
	ck_assert_uint_eq(getegid(), sv.egid);
}
END_TEST

START_TEST(refused_switch_names_capability)
{
	struct creds_saved sv;
	struct err_text e = { "" };

	if (geteuid() == 0) {
		/* become nobody for good in this forked test, then try again */
		ck_assert_int_eq(setgid(65534), 0);
		ck_assert_int_eq(setuid(65534), 0);
	}
	ck_assert_int_eq(creds_become(4321, 4321, NULL, -1, &sv, &e), -EPERM);
	ck_assert_ptr_nonnull(strstr(e.msg, "CAP_SETGID"));
	ck_assert_uint_eq(geteuid(), sv.euid);      /* nothing stayed changed */
	ck_assert_uint_eq(getegid(), sv.egid);
}
END_TEST

START_TEST(hints_name_capabilities)
{
	char h[256];

	ck_assert_ptr_nonnull(strstr(creds_hint(CREDS_PROC_READ, h, sizeof(h)),
				     "CAP_SYS_PTRACE"));
	ck_assert_ptr_nonnull(strstr(creds_hint(CREDS_SETNS, h, sizeof(h)),
				     "CAP_SYS_ADMIN"));
	ck_assert_ptr_nonnull(strstr(creds_hint(CREDS_SETUID, h, sizeof(h)),
				     "CAP_SETUID"));
	ck_assert_ptr_nonnull(strstr(creds_hint(CREDS_KILL, h, sizeof(h)), "CAP_KILL"));
	ck_assert_ptr_nonnull(strstr(creds_hint(CREDS_CHOWN, h, sizeof(h)),
				     "CAP_CHOWN"));
	ck_assert_ptr_nonnull(strstr(creds_hint(CREDS_DAC, h, sizeof(h)),
				     "CAP_DAC_OVERRIDE"));
	ck_assert_int_eq(h[0], '(');
	ck_assert_ptr_nonnull(strstr(creds_hint((enum creds_op)99, h, sizeof(h)),
				     "privileges"));
	creds_hint(CREDS_PROC_READ, h, 8);          /* truncates, stays a string */
	ck_assert_uint_eq(strlen(h), 7);
}
END_TEST

START_TEST(have_cap_answers)
{
	int r = creds_have_cap(19 /* CAP_SYS_PTRACE */);

	ck_assert(r == 0 || r == 1);
	if (geteuid() != 0)
		ck_assert_int_eq(r, 0);
}
END_TEST

Suite *creds_suite(void)
{
	Suite *s = suite_create("creds");
	TCase *tc = tcase_create("creds");

	tcase_add_test(tc, same_ids_is_a_no_op);
	tcase_add_test(tc, refused_switch_names_capability);
	tcase_add_test(tc, hints_name_capabilities);
	tcase_add_test(tc, have_cap_answers);
	suite_add_tcase(s, tc);

	if (geteuid() == 0) {
		TCase *root = tcase_create("creds-root");

		tcase_add_test(root, switch_and_restore_as_root);
		suite_add_tcase(s, root);
	} else {
		check_skip("creds", switch_and_restore_as_root, "needs root");
	}
	return s;
}
