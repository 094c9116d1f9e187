/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_watch.c - attach/base/watch.c: a watched command's exit status
 * comes back; a step that overruns its limit gets the child killed and
 * named, however the child waits; a step of no limit is waited for; a
 * signal sent to the watcher reaches the child, and one that ends the
 * child is said; a pipe on jsym's stdout ends with the watcher.
 */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base.h"

extern Suite *watch_suite(void); /* listed in the runner by tests/tests.mk */

static int returns_7(void *ctx)
{
	(void)ctx;
	return 7;
}

/* a step of 200 ms, then a wait no code of the child's ends */
static int overruns(void *ctx)
{
	(void)ctx;
	watch_step(200, "12: the step that hangs");
	for (;;)
		pause();
	return 0;
}

/* the first step overruns too: no watch_step at all */
static int no_step_given(void *ctx)
{
	int *ms = ctx;

	(void)poll(NULL, 0, *ms);
	return 0;
}

/* no limit for 600 ms, then a short step that ends in time */
static int unbounded_then_done(void *ctx)
{
	(void)ctx;
	watch_step(0, NULL);
	(void)poll(NULL, 0, 600);
	watch_step(5000, "the end");
	return 3;
}

/* the watcher is sent SIGTERM; the child takes the default action (not
 * the handler of Check's runner, which this process inherits) */
static int term_to_watcher(void *ctx)
{
	(void)ctx;
	signal(SIGTERM, SIG_DFL);
	watch_step(0, NULL);
	kill(getppid(), SIGTERM);
	for (;;)
		pause();
	return 0;
}

/* the child ignores what the watcher passes on: the grace ends it */
static int ignores_term(void *ctx)
{
	(void)ctx;
	signal(SIGTERM, SIG_IGN);
	watch_step(0, NULL);
	kill(getppid(), SIGTERM);
	for (;;)
		pause();
	return 0;
}

static void exit_0(int sig)
{
	(void)sig;
	_exit(0);
}

/* a terminal's SIGINT reaches the whole group: the child ends its own way
 * (exit 0, as map --follow does), before the watcher has read its copy */
static int sigint_to_both(void *ctx)
{
	(void)ctx;
	signal(SIGINT, exit_0);
	watch_step(0, NULL);
	kill(getppid(), SIGINT);
	kill(getpid(), SIGINT);
	for (;;)
		pause();
	return 1;
}

/* writes to stdout and stderr, leaves a grandchild holding both (as a
 * child stuck in the kernel would hold them), then overruns */
static int writes_and_leaves_a_holder(void *ctx)
{
	volatile pid_t *holder = ctx;   /* shared: the case ends it */
	pid_t p;

	printf("out-line\n");
	fflush(stdout);
	dprintf(STDERR_FILENO, "err-line\n");
	p = fork();
	if (p == 0)
		for (;;)
			pause();
	*holder = p;
	watch_step(200, "holder");
	for (;;)
		pause();
	return 0;
}

/* Everything a pipe holds until its end, into buf. */
static size_t read_to_end(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t k;

	while (n < cap - 1 && (k = read(fd, buf + n, cap - 1 - n)) > 0)
		n += (size_t)k;
	buf[n] = '\0';
	return n;
}

/* fd 1 closed in jsym: it stays closed in the child, never a pipe of the
 * watch's */
static int writes_to_closed_stdout(void *ctx)
{
	(void)ctx;
	return write(1, "x", 1) < 0 && errno == EBADF ? 9 : 0;
}

/* SIGHUP and SIGINT ignored by the caller (nohup, a script's background
 * job): sent to the watcher, neither ends anything early */
static int ignored_to_watcher(void *ctx)
{
	(void)ctx;
	watch_step(0, NULL);
	kill(getppid(), SIGHUP);
	kill(getppid(), SIGINT);
	(void)poll(NULL, 0, WATCH_GRACE_MS + 500);
	return 5;
}

/* the whole job stopped (Ctrl-Z) longer than the step's limit, then
 * continued (fg): the step's time starts again */
static int stopped_then_continued(void *ctx)
{
	pid_t watcher = getppid(), self = getpid();

	(void)ctx;
	watch_step(600, "stopped");
	if (fork() == 0) {
		(void)poll(NULL, 0, 1500);
		kill(watcher, SIGCONT);
		kill(self, SIGCONT);
		_exit(0);
	}
	kill(watcher, SIGSTOP);
	raise(SIGSTOP);
	(void)poll(NULL, 0, 200);
	return 4;
}

START_TEST(status_comes_back)
{
	struct watch_end end;

	ck_assert_int_eq(watch_run(returns_7, NULL, &end), 0);
	ck_assert_int_eq(end.status, 7);
	ck_assert(!end.overran && !end.left);
	ck_assert_int_eq(end.died_of, 0);
}
END_TEST

START_TEST(step_overrun_kills_and_names_it)
{
	struct watch_end end;
	long t0 = clock_ms();

	ck_assert_int_eq(watch_run(overruns, NULL, &end), 0);
	ck_assert(end.overran);
	ck_assert(!end.left);
	ck_assert_int_eq(end.status, -1);
	ck_assert_int_eq(end.limit_ms, 200);
	ck_assert_str_eq(end.what, "12: the step that hangs");
	/* killed at its step's limit, not at WATCH_FIRST_MS */
	ck_assert_int_lt(clock_ms() - t0, WATCH_FIRST_MS);
	ck_assert_int_eq(kill(end.child, 0), -1);       /* reaped */
}
END_TEST

START_TEST(first_step_is_bounded)
{
	struct watch_end end;
	int ms = WATCH_FIRST_MS + 2000;

	ck_assert_int_eq(watch_run(no_step_given, &ms, &end), 0);
	ck_assert(end.overran);
	ck_assert_int_eq(end.limit_ms, WATCH_FIRST_MS);
	ck_assert_str_eq(end.what, "");        /* no step named */
}
END_TEST

START_TEST(no_limit_is_waited_for)
{
	struct watch_end end;

	ck_assert_int_eq(watch_run(unbounded_then_done, NULL, &end), 0);
	ck_assert(!end.overran);
	ck_assert_int_eq(end.status, 3);
	ck_assert_str_eq(end.what, "the end");
}
END_TEST

START_TEST(signal_passed_on)
{
	struct watch_end end;

	ck_assert_int_eq(watch_run(term_to_watcher, NULL, &end), 0);
	ck_assert_int_eq(end.signo, SIGTERM);
	ck_assert_int_eq(end.died_of, SIGTERM);
	ck_assert_int_eq(end.status, 128 + SIGTERM);
	ck_assert(!end.overran);
}
END_TEST

START_TEST(signal_ignored_ends_at_grace)
{
	struct watch_end end;

	ck_assert_int_eq(watch_run(ignores_term, NULL, &end), 0);
	ck_assert_int_eq(end.signo, SIGTERM);
	ck_assert(end.overran);
	ck_assert_int_eq(end.limit_ms, WATCH_GRACE_MS);
	ck_assert_int_eq(end.status, 128 + SIGTERM);
}
END_TEST

START_TEST(signal_the_child_handles_gives_its_status)
{
	struct watch_end end;

	/* SIGINT to both (`pkill -INT jsym`): the child's own stop is the
	 * command's end, 0, not 128 + SIGINT, and the watcher lives on */
	ck_assert_int_eq(watch_run(sigint_to_both, NULL, &end), 0);
	ck_assert_int_eq(end.status, 0);
	ck_assert_int_eq(end.died_of, 0);
	ck_assert(!end.overran);
}
END_TEST

START_TEST(sigchld_ignored_by_the_caller)
{
	struct watch_end end;

	/* inherited through exec: the kernel would reap the child unseen */
	signal(SIGCHLD, SIG_IGN);
	ck_assert_int_eq(watch_run(returns_7, NULL, &end), 0);
	ck_assert(!end.overran && !end.lost);
	ck_assert_int_eq(end.status, 7);
}
END_TEST

START_TEST(stdout_closed_stays_closed)
{
	struct watch_end end;
	int saved = dup(1);

	close(1);
	ck_assert_int_eq(watch_run(writes_to_closed_stdout, NULL, &end), 0);
	dup2(saved, 1);
	close(saved);
	ck_assert_int_eq(end.status, 9);
}
END_TEST

START_TEST(ignored_signal_stays_ignored)
{
	struct watch_end end;

	signal(SIGHUP, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	ck_assert_int_eq(watch_run(ignored_to_watcher, NULL, &end), 0);
	ck_assert_int_eq(end.signo, 0);
	ck_assert_int_eq(end.status, 5);
}
END_TEST

START_TEST(a_stop_does_not_count)
{
	struct watch_end end;

	ck_assert_int_eq(watch_run(stopped_then_continued, NULL, &end), 0);
	ck_assert(!end.overran);
	ck_assert_int_eq(end.status, 4);
}
END_TEST

/* jsym's stdout a pipe: what the child wrote reaches it, and its end
 * comes when the watcher ends, whatever the child left holding its
 * own pipes; stdout and stderr one pipe (2>&1) stay one, in order. */
START_TEST(pipe_ends_with_the_watcher)
{
	volatile pid_t *holder = mmap(NULL, sizeof(pid_t), PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct watch_end end;
	int out[2], saved1 = dup(1), saved2 = dup(2);
	char buf[256];

	ck_assert(holder != MAP_FAILED);
	*holder = 0;
	ck_assert_int_eq(pipe(out), 0);
	dup2(out[1], 1);
	dup2(out[1], 2);
	close(out[1]);
	ck_assert_int_eq(watch_run(writes_and_leaves_a_holder, (void *)holder, &end), 0);
	dup2(saved1, 1);
	dup2(saved2, 2);
	close(saved1);
	close(saved2);
	ck_assert(end.overran);
	/* the grandchild still holds what it inherited; the end comes anyway
	 * (without the relay, this read never returns: the case times out) */
	read_to_end(out[0], buf, sizeof(buf));
	ck_assert_str_eq(buf, "out-line\nerr-line\n");
	close(out[0]);
	ck_assert_int_gt(*holder, 0);
	kill(*holder, SIGKILL);
	munmap((void *)holder, sizeof(pid_t));
}
END_TEST

Suite *watch_suite(void)
{
	Suite *s = suite_create("watch");
	TCase *tc = tcase_create("watch");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, status_comes_back);
	tcase_add_test(tc, step_overrun_kills_and_names_it);
	tcase_add_test(tc, first_step_is_bounded);
	tcase_add_test(tc, no_limit_is_waited_for);
	tcase_add_test(tc, signal_passed_on);
	tcase_add_test(tc, signal_ignored_ends_at_grace);
	tcase_add_test(tc, signal_the_child_handles_gives_its_status);
	tcase_add_test(tc, pipe_ends_with_the_watcher);
	tcase_add_test(tc, sigchld_ignored_by_the_caller);
	tcase_add_test(tc, stdout_closed_stays_closed);
	tcase_add_test(tc, ignored_signal_stays_ignored);
	tcase_add_test(tc, a_stop_does_not_count);
	suite_add_tcase(s, tc);
	return s;
}
