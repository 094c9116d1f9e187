/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_run.c - attach/run's protocol table: one row per JVM kind, each
 * with its name, namespaces and entry; no row for a process that is not
 * a JVM, which run_attach then refuses without forking.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "run.h"
#include "run_int.h"
#include "target.h"

extern Suite *run_suite(void); /* listed in the runner by tests/tests.mk */

START_TEST(every_jvm_kind_has_one_protocol)
{
	const struct run_protocol *hs = run_protocol_of(PROC_HOTSPOT);
	const struct run_protocol *j9 = run_protocol_of(PROC_OPENJ9);

	ck_assert_ptr_nonnull(hs);
	ck_assert_ptr_nonnull(j9);
	ck_assert_str_eq(hs->name, "HotSpot");
	ck_assert_str_eq(j9->name, "OpenJ9");
	ck_assert_uint_eq(hs->namespaces, NS_ENTER_MNT);
	ck_assert_uint_eq(j9->namespaces, NS_ENTER_IPC | NS_ENTER_NET);
	ck_assert(hs->jvm_ids && !j9->jvm_ids);
	ck_assert_ptr_nonnull(hs->exec);
	ck_assert_ptr_nonnull(j9->exec);
	ck_assert_ptr_null(run_protocol_of(PROC_NOT_JVM));
	ck_assert_str_eq(run_kind_name(PROC_NOT_JVM), "not a JVM");
	ck_assert_str_eq(run_kind_name(PROC_OPENJ9), "OpenJ9");
}
END_TEST

START_TEST(no_protocol_no_child)
{
	static struct target t;
	static struct run_result res;
	struct run_request rq = { .cmd = "properties", .timeout_ms = 100 };

	t.pid = 1;
	t.maps.kind = PROC_NOT_JVM;
	ck_assert_int_eq(run_attach(&t, &rq, -1, NULL, &res), -ENOEXEC);
	ck_assert_ptr_nonnull(strstr(res.err.msg, "not a JVM"));
}
END_TEST

Suite *run_suite(void)
{
	Suite *s = suite_create("run");
	TCase *tc = tcase_create("protocols");

	tcase_add_test(tc, every_jvm_kind_has_one_protocol);
	tcase_add_test(tc, no_protocol_no_child);
	suite_add_tcase(s, tc);
	return s;
}
