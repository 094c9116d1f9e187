/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_pool.c - attach/run/pool.c: results come back in item order from
 * forked workers, at most `jobs` at once, and a worker past its limit is
 * killed with its item marked failed while the others finish; with
 * groups, a group of items that stall holds at most its share of the
 * workers and stops being started once its budget is spent.
 */
#include <check.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run.h"
#include "run_int.h"

extern Suite *pool_suite(void); /* listed in the runner by tests/tests.mk */

struct res {
	int idx;
	pid_t pid;
};

/* item 3 hangs for good when ctx says so; the others answer at once */
static void job(int idx, void *result, void *ctx)
{
	struct res *r = result;

	if (ctx && idx == 3)
		for (;;)
			pause();
	r->idx = idx * 10;
	r->pid = getpid();
}

START_TEST(results_in_order)
{
	struct res out[9];
	char failed[9] = { 0 };

	ck_assert_int_eq(pool_run(9, 3, 0, job, sizeof(out[0]), out, failed, NULL, NULL), 0);
	for (int i = 0; i < 9; i++) {
		ck_assert_int_eq(out[i].idx, i * 10);
		ck_assert_int_eq(failed[i], 0);
		ck_assert_int_ne(out[i].pid, getpid());       /* ran in a worker */
	}
}
END_TEST

START_TEST(stuck_worker_killed_at_its_limit)
{
	struct res out[6];
	char failed[6] = { 0 };

	ck_assert_int_eq(pool_run(6, 2, 300, job, sizeof(out[0]), out, failed, NULL,
				  (void *)1), 0);
	/* returning at all is the point: item 3 never ends by itself */
	ck_assert_int_eq(failed[3], 1);
	ck_assert_int_eq(out[3].idx, 0);
	for (int i = 0; i < 6; i++)
		if (i != 3) {
			ck_assert_int_eq(failed[i], 0);
			ck_assert_int_eq(out[i].idx, i * 10);
		}
}
END_TEST

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* Items 0..7 (group 0) stall until killed; 8..11 (group 1) answer at once
 * with the time they ran. */
static void stall_or_time(int idx, void *result, void *ctx)
{
	struct res *r = result;

	(void)ctx;
	if (idx < 8)
		for (;;)
			pause();
	r->idx = idx;
	r->pid = (pid_t)now_ms();
}

START_TEST(a_stalling_group_leaves_the_others_a_share)
{
	/* group 0 comes first in index order: without groups, its stalling
	 * items took both workers for 4 limits before group 1 ran at all */
	int group[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 };
	struct pool_groups g = { group, 2, 0, NULL };
	struct res out[12];
	char failed[12] = { 0 };
	long t0 = now_ms();

	ck_assert_int_eq(pool_run_groups(12, 2, 400, &g, stall_or_time, sizeof(out[0]),
					 out, failed, NULL, NULL), 0);
	for (int i = 8; i < 12; i++) {
		ck_assert_int_eq(failed[i], POOL_DONE);
		ck_assert_int_eq(out[i].idx, i);
		/* all four within the first limit, on the share of group 1 */
		ck_assert_int_lt((long)out[i].pid - t0, 350);
	}
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(failed[i], POOL_FAILED);
}
END_TEST

START_TEST(a_group_past_its_budget_is_skipped)
{
	int group[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 };
	long spent[2] = { 0, 0 };
	struct pool_groups g = { group, 2, 300, spent };
	struct res out[12];
	char failed[12] = { 0 };
	int killed = 0, skipped = 0;

	/* one worker: group 0's first stall spends 200 ms, its second 200
	 * more (started while 200 < 300), then 400 >= 300: the other six wait
	 * no more */
	ck_assert_int_eq(pool_run_groups(12, 1, 200, &g, stall_or_time, sizeof(out[0]),
					 out, failed, NULL, NULL), 0);
	for (int i = 0; i < 8; i++) {
		killed += failed[i] == POOL_FAILED;
		skipped += failed[i] == POOL_SKIPPED;
	}
	ck_assert_int_eq(killed, 2);
	ck_assert_int_eq(skipped, 6);
	ck_assert_int_ge(spent[0], 300);
	for (int i = 8; i < 12; i++)
		ck_assert_int_eq(failed[i], POOL_DONE);
}
END_TEST

Suite *pool_suite(void)
{
	Suite *s = suite_create("pool");
	TCase *tc = tcase_create("pool");

	tcase_add_test(tc, results_in_order);
	tcase_add_test(tc, stuck_worker_killed_at_its_limit);
	tcase_add_test(tc, a_stalling_group_leaves_the_others_a_share);
	tcase_add_test(tc, a_group_past_its_budget_is_skipped);
	suite_add_tcase(s, tc);
	return s;
}
