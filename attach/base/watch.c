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
 * A child stuck in the kernel keeps its files open.  Where jsym's stdout
 * or stderr is a pipe or a socket, a reader waits for its end (`jsym map
 * --stdout PID | cat`): so the child writes those into pipes of the
 * watcher's, which passes their bytes on, never blocking (at most
 * PIPE_BUF at a time, when poll says there is room), and the caller's
 * pipe ends with the watcher.  A terminal or a file is the child's
 * directly: nobody waits for its end, and isatty() sees what it is.
 *
 * The child tells the watcher each step's limit through a packet pipe
 * (O_DIRECT: one write is one message).  Signals meant for jsym reach the
 * watcher (a kill by pid, the DaemonSet's SIGTERM): it passes them on
 * (not a terminal's, which the child has too), and gives the child
 * WATCH_GRACE_MS to end its own way.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"

#define WATCH_REAP_MS 500       /* how long a killed child may take to die */
#define WATCH_TICK_MS 200       /* without a pidfd: how often to look */

/* One of jsym's stdout and stderr (or both, when they are one pipe),
 * passed on from the child's pipe. */
struct relay {
	int from;               /* the read end of the child's pipe; -1: done */
	int to;                 /* jsym's own fd */
	int child_end;          /* the write end, until the fork */
	bool both;              /* the child's stdout and stderr */
	bool sock;              /* `to` is a socket: sent MSG_DONTWAIT */
	size_t len, off;        /* buf[off, len) still to pass on */
	char buf[PIPE_BUF];
};

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

/* Room in `to` (a poll said POLLOUT): pass on what buf holds.  A reader
 * gone (EPIPE...) closes the pipe, so the child's next write fails as it
 * would have on jsym's own stdout. */
static void relay_out(struct relay *r)
{
	ssize_t n = r->sock ? send(r->to, r->buf + r->off, r->len - r->off,
				   MSG_DONTWAIT | MSG_NOSIGNAL)
			    : write(r->to, r->buf + r->off, r->len - r->off);

	if (n > 0) {
		r->off += (size_t)n;
		if (r->off == r->len)
			r->off = r->len = 0;
	} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
		close(r->from);
		r->from = -1;
		r->off = r->len = 0;
	}
}

/* Data (or the end) in the child's pipe: take up to PIPE_BUF of it.
 * Returns false when it has nothing now. */
static bool relay_in(struct relay *r)
{
	ssize_t n = read(r->from, r->buf, sizeof(r->buf));

	if (n > 0) {
		r->len = (size_t)n;
		r->off = 0;
		return true;
	}
	if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
		close(r->from);
		r->from = -1;
	}
	return false;
}

/* The pollfd a relay waits on: room in jsym's fd while it holds bytes,
 * else the child's pipe; fd -1 (ignored by poll) when it is done. */
static struct pollfd relay_poll(const struct relay *r)
{
	if (r->len > r->off)
		return (struct pollfd){ .fd = r->to, .events = POLLOUT };
	return (struct pollfd){ .fd = r->from, .events = POLLIN };
}

static void relay_step(struct relay *r, short revents)
{
	if (!revents)
		return;
	if (r->len > r->off)
		relay_out(r);
	else if (r->from >= 0)
		(void)relay_in(r);
}

/* The child has ended (or is left behind): pass on what its pipes hold
 * now, waiting for room as its own writes would have, but not for the
 * end of pipes a grandchild may still hold.  A signal stops it: it stays
 * pending, for the caller to take. */
static void relay_drain(struct relay *rl, int nrl, int sfd)
{
	for (int i = 0; i < nrl; i++) {
		struct relay *r = &rl[i];

		while (r->from >= 0) {
			struct pollfd p[2] = { { .fd = r->to, .events = POLLOUT },
					       { .fd = sfd, .events = POLLIN } };

			if (r->len == r->off && !relay_in(r))
				break;
			if (poll(p, 2, -1) < 0 && errno != EINTR)
				return;
			if (p[1].revents)
				return;
			if (p[0].revents)
				relay_out(r);
		}
		if (r->from >= 0)
			close(r->from);
		r->from = -1;
	}
}

/* The watcher's loop: until the child ends or overruns its step. */
static void watch_loop(pid_t child, int ctl, int sfd, struct relay *rl, int nrl,
		       struct watch_end *end)
{
	int pidfd = open_pidfd(child), status;
	long deadline = clock_ms() + WATCH_FIRST_MS;

	end->limit_ms = WATCH_FIRST_MS;
	snprintf(end->what, sizeof(end->what), "the command");
	for (;;) {
		struct pollfd p[5] = { { .fd = ctl, .events = POLLIN },
				       { .fd = sfd, .events = POLLIN },
				       { .fd = pidfd, .events = POLLIN } };
		long now = clock_ms();
		int wait_ms = deadline ? (int)(deadline > now ? deadline - now : 0) : -1;

		for (int i = 0; i < nrl; i++)
			p[3 + i] = relay_poll(&rl[i]);
		if (pidfd < 0 && (wait_ms < 0 || wait_ms > WATCH_TICK_MS))
			wait_ms = WATCH_TICK_MS;
		if (poll(p, 3 + (nfds_t)nrl, wait_ms) < 0 && errno != EINTR)
			poll(NULL, 0, WATCH_TICK_MS);
		for (int i = 0; i < nrl; i++)
			relay_step(&rl[i], p[3 + i].revents);
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
				/* a terminal's signal (SI_KERNEL) went to the whole
				 * foreground group, the child with it */
				if (si.ssi_code != SI_KERNEL)
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
	/* a signal the child took its own way (a terminal's SIGINT reaches
	 * both: map --follow ends with 0) is the child's, not the watcher's */
	while (read(sfd, &(struct signalfd_siginfo){ 0 },
		    sizeof(struct signalfd_siginfo)) > 0)
		;
	relay_drain(rl, nrl, sfd);
	if (end->overran)
		end->status = end->signo ? 128 + end->signo : -1;
	else if (WIFSIGNALED(status))
		end->status = 128 + WTERMSIG(status);
	else
		end->status = WEXITSTATUS(status);
	end->died_of = !end->overran && WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

/* Which of stdout and stderr a reader may wait on the end of (a pipe, a
 * socket): one relay each, or one for both when they are one pipe.
 * Returns how many, or -errno. */
static int relays_open(struct relay *rl)
{
	struct stat st[2];
	int n = 0;

	for (int fd = 1; fd <= 2; fd++) {
		struct stat *s = &st[fd - 1];
		int pp[2];

		if (fstat(fd, s) != 0 || !(S_ISFIFO(s->st_mode) || S_ISSOCK(s->st_mode)))
			continue;
		if (fd == 2 && n == 1 && rl[0].to == 1 && st[0].st_dev == s->st_dev &&
		    st[0].st_ino == s->st_ino) {
			rl[0].both = true;
			continue;
		}
		if (pipe2(pp, O_CLOEXEC) != 0) {
			int err = -errno;

			for (int i = 0; i < n; i++) {
				close(rl[i].from);
				close(rl[i].child_end);
			}
			return err;
		}
		(void)fcntl(pp[0], F_SETFL, O_NONBLOCK);        /* our own pipe */
		rl[n] = (struct relay){ .from = pp[0], .to = fd, .child_end = pp[1],
					.sock = S_ISSOCK(s->st_mode) };
		n++;
	}
	return n;
}

/* In the child: its stdout and stderr are the relays' pipes. */
static void relays_take(const struct relay *rl, int nrl)
{
	for (int i = 0; i < nrl; i++) {
		close(rl[i].from);
		(void)dup2(rl[i].child_end, rl[i].to);
		if (rl[i].both)
			(void)dup2(rl[i].child_end, 2);
		close(rl[i].child_end);
	}
}

int watch_run(int (*body)(void *ctx), void *ctx, struct watch_end *end)
{
	static struct relay rl[2];
	sigset_t set, old;
	int ctl[2], sfd, rc, nrl;
	pid_t parent = getpid();

	memset(end, 0, sizeof(*end));
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (pipe2(ctl, O_CLOEXEC | O_DIRECT) != 0)
		return -errno;
	nrl = relays_open(rl);
	if (nrl < 0) {
		close(ctl[0]);
		close(ctl[1]);
		return nrl;
	}
	sigprocmask(SIG_BLOCK, &set, &old);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		rc = -errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		for (int i = 0; i < nrl; i++) {
			close(rl[i].from);
			close(rl[i].child_end);
		}
		close(ctl[0]);
		close(ctl[1]);
		return rc;
	}
	fflush(NULL);
	end->child = fork();
	if (end->child == 0) {
		close(ctl[0]);
		close(sfd);
		relays_take(rl, nrl);
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
	for (int i = 0; i < nrl; i++)
		close(rl[i].child_end);
	if (rc == 0)
		watch_loop(end->child, ctl[0], sfd, rl, nrl, end);
	for (int i = 0; i < nrl; i++)
		if (rl[i].from >= 0)
			close(rl[i].from);
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
