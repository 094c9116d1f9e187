/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_cli_scan.c - the scans of `jsym list` and `attach --all` give each
 * process a time budget (cli_each_process_bounded, issue 24): a process
 * whose look never ends is reported as stalled within the budget, and the
 * scan goes on with the others, whose results come back.
 */
#include <check.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "target.h"

Suite *cli_scan_suite(void); /* the runner finds the definition below */

struct scan {
	pid_t victim, other;
	int seen_other, stalled_victim, stalled_any;
};

/* Runs in the scan's child: never ends for the victim. */
static int look(struct target *t, void *ctx)
{
	struct scan *s = ctx;

	if (t->pid == s->victim)
		for (;;)
			pause();
	if (t->pid == s->other)
		s->seen_other++;
	return 0;
}

static void stalled(pid_t pid, void *ctx)
{
	struct scan *s = ctx;

	s->stalled_any++;
	if (pid == s->victim)
		s->stalled_victim++;
}

static pid_t sleeper(void)
{
	pid_t p = fork();

	if (p == 0) {
		pause();
		_exit(0);
	}
	return p;
}

START_TEST(stalled_process_skipped_scan_goes_on)
{
	struct scan s = { .victim = sleeper(), .other = sleeper() };

	ck_assert_int_gt(s.victim, 0);
	ck_assert_int_gt(s.other, 0);
	/* a budget a loaded machine's processes keep to; only this test's own
	 * two are judged (other processes of the machine may be slow) */
	ck_assert_int_eq(cli_each_process_bounded(look, &s, sizeof(s), 2000, stalled), 0);
	ck_assert_int_eq(s.stalled_victim, 1);
	ck_assert_int_eq(s.seen_other, 1);
	ck_assert_int_ge(s.stalled_any, 1);
	kill(s.victim, SIGKILL);
	kill(s.other, SIGKILL);
	waitpid(s.victim, NULL, 0);
	waitpid(s.other, NULL, 0);
}
END_TEST

Suite *cli_scan_suite(void)
{
	Suite *s = suite_create("cli_scan");
	TCase *tc = tcase_create("bounded");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, stalled_process_skipped_scan_goes_on);
	suite_add_tcase(s, tc);
	return s;
}
