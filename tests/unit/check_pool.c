/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_pool.c - attach/run/pool.c: results come back in item order from
 * forked workers, at most `jobs` at once, and a worker past its limit is
 * killed with its item marked failed while the others finish.
 */
#include <check.h>
#include <string.h>
#include <unistd.h>

#include "pool.h"

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

Suite *pool_suite(void)
{
	Suite *s = suite_create("pool");
	TCase *tc = tcase_create("pool");

	tcase_add_test(tc, results_in_order);
	tcase_add_test(tc, stuck_worker_killed_at_its_limit);
	suite_add_tcase(s, tc);
	return s;
}
