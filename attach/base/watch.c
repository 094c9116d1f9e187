/* SPDX-License-Identifier: Apache-2.0 */
/*
 * watch.c - a command run in a child that another process can give up on
 * (base.h: watch_run, watch_step).
 *
 * The confined open refuses the file systems it knows can stall, by the
 * type mountinfo gives.  It cannot see one hidden below a local-looking
 * mount: a FUSE directory as an overlay's lower layer, a loop device over
 * a FUSE file.  A lookup or read there waits for a server that may never
 * answer, often in uninterruptible sleep, where not even SIGKILL reaches.
 * No code in that process can bound it; only another process can stop
 * waiting.  So the command runs in a child, and this process (the
 * watcher) holds the limit of the child's current step, kills the child
 * when the step overruns, and ends the command saying so.  A child that
 * cannot die is left behind: it holds nothing the caller needs.
 *
 * The child tells the watcher each step's limit through a packet pipe
 * (O_DIRECT: one write is one message).  Signals meant for jsym reach the
 * watcher (a kill by pid, the DaemonSet's SIGTERM): it passes them on, and
 * gives the child WATCH_GRACE_MS to end its own way.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"

#define WATCH_REAP_MS 500       /* how long a killed child may take to die */
#define WATCH_TICK_MS 200       /* without a pidfd: how often to look */

struct watch_msg {
	int32_t limit_ms;
	char what[WATCH_WHAT_MAX];
};

static int watch_fd = -1;       /* the child's end; -1 when not watched */
static pid_t watch_pid;         /* the process watch_fd belongs to */

void watch_step(int limit_ms, const char *what)
{
	struct watch_msg m = { .limit_ms = limit_ms > 0 ? limit_ms : 0 };

	/* a grandchild inherits the fd, not the watch: its steps are its
	 * parent's to bound (the pool's limit, run_attach's) */
	if (watch_fd < 0 || watch_pid != getpid())
		return;
	snprintf(m.what, sizeof(m.what), "%s", what ? what : "");
	while (write(watch_fd, &m, sizeof(m)) < 0 && errno == EINTR)
		;
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

/* The child's end: reaped (its status in *status) or not by ms. */
static bool reap_within(pid_t child, int pidfd, int ms, int *status)
{
	long until = clock_ms() + ms;

	for (;;) {
		pid_t r = waitpid(child, status, WNOHANG);

		if (r == child)
			return true;
		if (r < 0 && errno != EINTR)
			return false;
		if (clock_ms() >= until)
			return false;
		if (pidfd >= 0)
			(void)fdio_wait(pidfd, POLLIN, (int)(until - clock_ms()));
		else
			poll(NULL, 0, WATCH_TICK_MS);
	}
}

/* The watcher's loop: until the child ends or overruns its step. */
static void watch_loop(pid_t child, int ctl, int sfd, struct watch_end *end)
{
	int pidfd = open_pidfd(child), status;
	long deadline = clock_ms() + WATCH_FIRST_MS;

	end->limit_ms = WATCH_FIRST_MS;
	snprintf(end->what, sizeof(end->what), "the command");
	for (;;) {
		struct pollfd p[3] = { { .fd = ctl, .events = POLLIN },
				       { .fd = sfd, .events = POLLIN },
				       { .fd = pidfd, .events = POLLIN } };
		long now = clock_ms();
		int wait_ms = deadline ? (int)(deadline > now ? deadline - now : 0) : -1;

		if (pidfd < 0 && (wait_ms < 0 || wait_ms > WATCH_TICK_MS))
			wait_ms = WATCH_TICK_MS;
		if (poll(p, pidfd >= 0 ? 3 : 2, wait_ms) < 0 && errno != EINTR)
			poll(NULL, 0, WATCH_TICK_MS);
		if (p[0].revents & POLLIN) {
			struct watch_msg m;

			if (read(ctl, &m, sizeof(m)) == (ssize_t)sizeof(m) &&
			    !end->signo) {
				m.what[sizeof(m.what) - 1] = '\0';
				deadline = m.limit_ms ? clock_ms() + m.limit_ms : 0;
				end->limit_ms = m.limit_ms;
				memcpy(end->what, m.what, sizeof(end->what));
			}
		} else if (p[0].revents) {
			ctl = -1;       /* every writer gone: poll ignores -1 */
		}
		if (p[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				kill(child, (int)si.ssi_signo);
				if (!end->signo) {
					end->signo = (int)si.ssi_signo;
					deadline = clock_ms() + WATCH_GRACE_MS;
					end->limit_ms = WATCH_GRACE_MS;
				}
			}
		}
		if (reap_within(child, -1, 0, &status))
			break;
		if (deadline && clock_ms() >= deadline) {
			kill(child, SIGKILL);
			end->overran = true;
			if (!reap_within(child, pidfd, WATCH_REAP_MS, &status)) {
				end->left = true;
				status = 0;
			}
			break;
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	if (end->overran)
		end->status = end->signo ? 128 + end->signo : -1;
	else if (WIFSIGNALED(status))
		end->status = 128 + WTERMSIG(status);
	else
		end->status = WEXITSTATUS(status);
	end->died_of = !end->overran && WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

int watch_run(int (*body)(void *ctx), void *ctx, struct watch_end *end)
{
	sigset_t set, old;
	int ctl[2], sfd, rc;
	pid_t parent = getpid();

	memset(end, 0, sizeof(*end));
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (pipe2(ctl, O_CLOEXEC | O_DIRECT) != 0)
		return -errno;
	if (sigprocmask(SIG_BLOCK, &set, &old) != 0 ||
	    (sfd = signalfd(-1, &set, SFD_CLOEXEC)) < 0) {
		rc = -errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(ctl[0]);
		close(ctl[1]);
		return rc;
	}
	fflush(NULL);
	end->child = fork();
	if (end->child == 0) {
		close(ctl[0]);
		close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
		/* a watcher killed outright takes its command with it */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
			_exit(127);
		watch_fd = ctl[1];
		watch_pid = getpid();
		rc = body(ctx);
		fflush(NULL);
		_exit(rc);
	}
	rc = end->child < 0 ? -errno : 0;
	close(ctl[1]);
	if (rc == 0)
		watch_loop(end->child, ctl[0], sfd, end);
	close(ctl[0]);
	close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int watch_attach_limit_ms(int timeout_ms, int read_timeout_ms)
{
	if (!read_timeout_ms)
		return 0;
	return 4 * timeout_ms + read_timeout_ms + 10000;
}
