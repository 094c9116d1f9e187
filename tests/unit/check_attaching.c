/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_attaching.c - attach/attaching's --all list (all.c): JVMs grouped
 * by container in /proc order, at most ATTACH_MAX_PER_CONTAINER taken from
 * one container, and every JVM left out counted, never dropped silently
 * (issue 24 row 7: a container of fakes pushed real JVMs out of the list).
 */
#include <check.h>
#include <stdio.h>

#include "attaching_int.h"

extern Suite *attaching_suite(void); /* listed in the runner by tests/tests.mk */

START_TEST(a_crowded_container_leaves_room_for_the_others)
{
	struct attach_list l = { 0 };
	struct attach_scan s = { .list = &l };
	struct container_key fakes = { 1, 4026532001, 0 }, real = { 1, 4026532002, 0 };
	int n_real = 0;

	/* 1000 fakes first in /proc order, then a real JVM, then more fakes */
	for (int i = 0; i < 1000; i++)
		ck_assert_int_eq(attach_scan_add(&s, 100 + i, &fakes, "pid:[4026532001]"), 0);
	ck_assert_int_eq(attach_scan_add(&s, 5000, &real, "pid:[4026532002]"), 0);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(attach_scan_add(&s, 6000 + i, &fakes, "pid:[4026532001]"), 0);
	attach_scan_end(&s);

	ck_assert_int_eq(l.ngroups, 2);
	ck_assert_int_eq(l.n, ATTACH_MAX_PER_CONTAINER + 1);
	ck_assert_int_eq(l.groups[0].found, 1010);
	ck_assert_int_eq(l.groups[0].taken, ATTACH_MAX_PER_CONTAINER);
	ck_assert_int_eq(l.groups[1].found, 1);
	ck_assert_int_eq(l.groups[1].taken, 1);
	ck_assert_int_eq(l.skipped, 1010 - ATTACH_MAX_PER_CONTAINER);
	ck_assert_str_eq(l.groups[1].container, "pid:[4026532002]");
	for (int i = 0; i < l.n; i++)
		if (l.pids[i] == 5000) {
			ck_assert_int_eq(l.group[i], 1);
			n_real++;
		}
	ck_assert_int_eq(n_real, 1);
	/* /proc order kept within the crowded container */
	ck_assert_int_eq(l.pids[0], 100);
	ck_assert_int_eq(l.pids[ATTACH_MAX_PER_CONTAINER - 1], 100 + ATTACH_MAX_PER_CONTAINER - 1);
	attaching_list_free(&l);
}
END_TEST

START_TEST(host_users_are_containers_of_their_own)
{
	struct attach_list l = { 0 };
	struct attach_scan s = { .list = &l };
	struct container_key u0 = { 1, 4026531836, 0 }, u1000 = { 1, 4026531836, 1000 };

	ck_assert_int_eq(attach_scan_add(&s, 10, &u1000, "uid 1000 on the host"), 0);
	ck_assert_int_eq(attach_scan_add(&s, 11, &u0, "uid 0 on the host"), 0);
	ck_assert_int_eq(attach_scan_add(&s, 12, &u1000, "uid 1000 on the host"), 0);
	attach_scan_end(&s);
	ck_assert_int_eq(l.ngroups, 2);
	ck_assert_int_eq(l.group[0], 0);
	ck_assert_int_eq(l.group[1], 1);
	ck_assert_int_eq(l.group[2], 0);
	ck_assert_int_eq(l.skipped, 0);
	attaching_list_free(&l);
}
END_TEST

START_TEST(the_whole_list_is_capped_and_counted)
{
	struct attach_list l = { 0 };
	struct attach_scan s = { .list = &l };
	int per = ATTACH_MAX_PER_CONTAINER, containers = ATTACH_MAX_ALL / per + 2;

	for (int c = 0; c < containers; c++) {
		struct container_key k = { 1, (ino_t)(1000 + c), 0 };
		char name[64];

		snprintf(name, sizeof(name), "pid:[%d]", 1000 + c);
		for (int i = 0; i < per; i++)
			ck_assert_int_eq(attach_scan_add(&s, c * per + i + 1, &k, name), 0);
	}
	attach_scan_end(&s);
	ck_assert_int_eq(l.n, ATTACH_MAX_ALL);
	ck_assert_int_eq(l.skipped, containers * per - ATTACH_MAX_ALL);
	ck_assert_int_eq(l.groups[containers - 1].found, per);
	ck_assert_int_eq(l.groups[containers - 1].taken, 0);
	attaching_list_free(&l);
}
END_TEST

Suite *attaching_suite(void)
{
	Suite *s = suite_create("attaching");
	TCase *tc = tcase_create("list");

	tcase_add_test(tc, a_crowded_container_leaves_room_for_the_others);
	tcase_add_test(tc, host_users_are_containers_of_their_own);
	tcase_add_test(tc, the_whole_list_is_capped_and_counted);
	suite_add_tcase(s, tc);
	return s;
}
