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
 * The child writes its current step (its limit, when it began, its name)
 * into a page it shares with the watcher, under a sequence count: a step
 * costs two stores, so `resolve --follow` may start one per address.  The
 * watcher looks at the page at the step's deadline, and at least every
 * WATCH_TICK_MS, so a step begun while it waited with no limit is seen.
 * A stop (Ctrl-Z) does not count: the step's time starts again at SIGCONT.
 *
 * A child stuck in the kernel keeps its files open.  Where jsym's stdout
 * or stderr is a pipe or a socket, a reader waits for its end (`jsym map
 * --stdout PID | cat`): so the child writes those into pipes of the
 * watcher's, which passes their bytes on, never blocking (at most
 * PIPE_BUF at a time, when poll says there is room), and the caller's
 * pipe ends with the watcher.  A terminal or a file is the child's
 * directly: nobody waits for its end, and isatty() sees what it is.
 *
 * SIGINT, SIGTERM and SIGHUP meant for jsym reach the watcher (a kill by
 * pid, the DaemonSet's SIGTERM, a hang-up): it passes each on and gives
 * the child WATCH_GRACE_MS to end its own way.  One the caller ignores is
 * passed on (the child ignores it too, unless it takes it its own way, as
 * map --follow takes SIGINT in a script's background job), with no grace
 * to end; an ignored SIGHUP (nohup) is not even taken.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"

#define WATCH_REAP_MS 500       /* how long a killed child may take to die */
#define WATCH_TICK_MS 1000      /* the longest the watcher waits unlooking */

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

/* The child's current step, in a page shared with the watcher. */
struct watch_page {
	uint32_t seq;           /* odd while the child writes */
	int limit_ms;           /* 0: no limit */
	long begun_ms;          /* clock_ms() when it began */
	char what[WATCH_WHAT_MAX];
};

static struct watch_page *watch_shared; /* NULL when not watched */
static pid_t watch_pid;                 /* the child the page is for */

/* Every field of the page is read and written with atomics: the two
 * processes share it, and a sequentially consistent order (no fence, which
 * the thread sanitizer's build refuses) keeps the reader's copy between its
 * two looks at seq. */
/* The page already names the step `what` (only the child writes it). */
static bool same_name(struct watch_page *w, const char *what)
{
	for (size_t i = 0; i + 1 < sizeof(w->what); i++) {
		char c = __atomic_load_n(&w->what[i], __ATOMIC_RELAXED);

		if (c != what[i])
			return false;
		if (!c)
			return true;
	}
	return true;
}

void watch_step(int limit_ms, const char *what)
{
	struct watch_page *w = watch_shared;

	/* a grandchild inherits the page, not the watch: its steps are its
	 * parent's to bound (the pool's limit, run_attach's) */
	if (!w || watch_pid != getpid())
		return;
	__atomic_add_fetch(&w->seq, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&w->limit_ms, limit_ms > 0 ? limit_ms : 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&w->begun_ms, clock_ms(), __ATOMIC_SEQ_CST);
	if (what && same_name(w, what))
		what = NULL;    /* the step per address of resolve -f: no copy */
	for (size_t i = 0; what && i < sizeof(w->what); i++) {
		char c = i + 1 < sizeof(w->what) ? what[i] : '\0';

		__atomic_store_n(&w->what[i], c, __ATOMIC_SEQ_CST);
		if (!c)
			break;
	}
	__atomic_add_fetch(&w->seq, 1, __ATOMIC_SEQ_CST);
}

/* A consistent copy of the page; a child killed while writing leaves the
 * count odd, so after a few tries the copy is taken as it is. */
static void page_read(struct watch_page *w, struct watch_page *out)
{
	for (int i = 0; i < 100; i++) {
		uint32_t a = __atomic_load_n(&w->seq, __ATOMIC_SEQ_CST);

		out->limit_ms = __atomic_load_n(&w->limit_ms, __ATOMIC_SEQ_CST);
		out->begun_ms = __atomic_load_n(&w->begun_ms, __ATOMIC_SEQ_CST);
		for (size_t k = 0; k < sizeof(out->what); k++)
			out->what[k] = __atomic_load_n(&w->what[k], __ATOMIC_SEQ_CST);
		if (!(a & 1) && a == __atomic_load_n(&w->seq, __ATOMIC_SEQ_CST))
			break;
	}
	out->what[sizeof(out->what) - 1] = '\0';
}

/* Move fd above 0, 1 and 2, which may be closed: a pipe of the watch's
 * must never take the place of jsym's own stdout.  The new fd, or -1. */
static int above_stdio(int fd)
{
	int moved;

	if (fd < 0 || fd > 2)
		return fd;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return moved;
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return above_stdio((int)syscall(SYS_pidfd_open, pid, 0));
#else
	(void)pid;
	return -1;
#endif
}

/* The child signalled by its pidfd where there is one: a pid the kernel
 * has reused is never hit. */
static void signal_child(pid_t child, int pidfd, int sig)
{
#ifdef SYS_pidfd_send_signal
	if (pidfd >= 0) {
		(void)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
		return;
	}
#endif
	kill(child, sig);
}

/* The child's end: 1 reaped (its status in *status), 0 not by ms, -1 it
 * is not ours to reap (ECHILD: reaped elsewhere). */
static int reap_within(pid_t child, int pidfd, int ms, int *status)
{
	long until = clock_ms() + ms;

	for (;;) {
		pid_t r = waitpid(child, status, WNOHANG);

		if (r == child)
			return 1;
		if (r < 0 && errno == ECHILD)
			return -1;
		if (clock_ms() >= until)
			return 0;
		if (pidfd >= 0)
			(void)fdio_wait(pidfd, POLLIN, (int)(until - clock_ms()));
		else
			poll(NULL, 0, 50);
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
 * end of pipes a grandchild may still hold.  Returns 0, or the signal
 * (SIGINT, SIGTERM, SIGHUP) that ended the wait: jsym's to die of. */
static int relay_drain(struct relay *rl, int nrl, int sfd)
{
	for (int i = 0; i < nrl; i++) {
		struct relay *r = &rl[i];

		while (r->from >= 0) {
			struct pollfd p[2] = { { .fd = r->to, .events = POLLOUT },
					       { .fd = sfd, .events = POLLIN } };
			struct signalfd_siginfo si;

			if (r->len == r->off && !relay_in(r))
				break;
			if (poll(p, 2, -1) < 0 && errno != EINTR)
				break;
			if (p[1].revents && read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si) &&
			    si.ssi_signo != SIGCONT)
				return (int)si.ssi_signo;
			if (p[0].revents)
				relay_out(r);
		}
	}
	return 0;
}

/* Close the relays' read ends, and their write ends too while the child
 * has not taken them (child_ends). */
static void relays_close(struct relay *rl, int nrl, bool child_ends)
{
	for (int i = 0; i < nrl; i++) {
		if (rl[i].from >= 0)
			close(rl[i].from);
		rl[i].from = -1;
		if (child_ends && rl[i].child_end >= 0)
			close(rl[i].child_end);
	}
}

/* Which of stdout and stderr a reader may wait on the end of (a pipe, a
 * socket): one relay each, or one for both when they are one pipe.
 * Returns how many, or -errno (none left open). */
static int relays_open(struct relay *rl)
{
	struct stat st[2];
	int n = 0, err;

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
			err = -errno;
			relays_close(rl, n, true);
			return err;
		}
		rl[n] = (struct relay){ .from = above_stdio(pp[0]), .to = fd,
					.child_end = above_stdio(pp[1]),
					.sock = S_ISSOCK(s->st_mode) };
		if (rl[n].from < 0 || rl[n].child_end < 0) {
			err = -errno;
			relays_close(rl, n + 1, true);
			return err;
		}
		(void)fcntl(rl[n].from, F_SETFL, O_NONBLOCK);   /* our own pipe */
		n++;
	}
	return n;
}

/* The deadline the watcher holds now (0: none): the child's step's, its
 * time counted from a SIGCONT after it began; after a signal passed on,
 * the grace's.  Fills end's last step. */
static long deadline_now(struct watch_page *w, long resumed_ms, long signal_ms,
			 struct watch_end *end)
{
	struct watch_page pg;

	if (end->signo) {
		end->limit_ms = WATCH_GRACE_MS;
		return signal_ms + WATCH_GRACE_MS;
	}
	page_read(w, &pg);
	end->limit_ms = pg.limit_ms;
	memcpy(end->what, pg.what, sizeof(end->what));
	if (!pg.limit_ms)
		return 0;
	return (pg.begun_ms > resumed_ms ? pg.begun_ms : resumed_ms) + pg.limit_ms;
}

/* The watcher's loop: until the child ends or overruns its step. */
static void watch_loop(pid_t child, struct watch_page *w, int sfd,
		       const sigset_t *ign, struct relay *rl, int nrl,
		       struct watch_end *end)
{
	int pidfd = open_pidfd(child), status = 0, r, sig;
	long resumed_ms = 0, signal_ms = 0;

	for (;;) {
		struct pollfd p[4] = { { .fd = sfd, .events = POLLIN },
				       { .fd = pidfd, .events = POLLIN } };
		long deadline = deadline_now(w, resumed_ms, signal_ms, end);
		long now = clock_ms();
		int wait_ms = WATCH_TICK_MS;

		if (deadline && deadline - now < wait_ms)
			wait_ms = deadline > now ? (int)(deadline - now) : 0;
		if (pidfd < 0 && wait_ms > 50)
			wait_ms = 50;
		for (int i = 0; i < nrl; i++)
			p[2 + i] = relay_poll(&rl[i]);
		if (poll(p, 2 + (nfds_t)nrl, wait_ms) < 0 && errno != EINTR)
			poll(NULL, 0, 50);
		for (int i = 0; i < nrl; i++)
			relay_step(&rl[i], p[2 + i].revents);
		if (p[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				signal_child(child, pidfd, (int)si.ssi_signo);
				if (si.ssi_signo == SIGCONT) {
					resumed_ms = clock_ms();
				} else if (!end->signo &&
					   sigismember(ign, (int)si.ssi_signo) != 1) {
					end->signo = (int)si.ssi_signo;
					signal_ms = clock_ms();
				}
			}
		}
		r = reap_within(child, -1, 0, &status);
		if (r != 0) {
			end->lost = r < 0;
			(void)deadline_now(w, resumed_ms, signal_ms, end); /* its last step */
			break;
		}
		deadline = deadline_now(w, resumed_ms, signal_ms, end);
		if (deadline && clock_ms() >= deadline) {
			signal_child(child, pidfd, SIGKILL);
			end->overran = true;
			for (int i = 0; i < nrl; i++)
				if (rl[i].len > rl[i].off)
					end->output_held = true;
			r = reap_within(child, pidfd, WATCH_REAP_MS, &status);
			end->left = r == 0;
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
	sig = relay_drain(rl, nrl, sfd);
	if (end->overran || end->lost) {
		end->status = end->overran && end->signo ? 128 + end->signo : -1;
	} else if (WIFSIGNALED(status)) {
		end->died_of = WTERMSIG(status);
		end->status = 128 + end->died_of;
	} else if (sig) {
		/* stopped while passing the output on: as if it had ended the
		 * command, whose output it cuts short */
		end->died_of = sig;
		end->status = 128 + sig;
	} else {
		end->status = WEXITSTATUS(status);
	}
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

void watch_stop_signals(sigset_t *set)
{
	struct sigaction sa;

	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	if (sigaction(SIGHUP, NULL, &sa) != 0 || sa.sa_handler != SIG_IGN)
		sigaddset(set, SIGHUP);
}

/* The signals of set the caller ignores. */
static void ignored_of(const sigset_t *set, sigset_t *ign)
{
	sigemptyset(ign);
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;

		if (sigismember(set, sig) == 1 && sigaction(sig, NULL, &sa) == 0 &&
		    sa.sa_handler == SIG_IGN)
			sigaddset(ign, sig);
	}
}

int watch_run(int (*body)(void *ctx), void *ctx, struct watch_end *end)
{
	static struct relay rl[2];
	struct sigaction dfl = { .sa_handler = SIG_DFL }, chld;
	struct watch_page *w;
	sigset_t set, old, ign;
	int sfd, rc, nrl;
	pid_t parent = getpid();

	memset(end, 0, sizeof(*end));
	w = mmap(NULL, sizeof(*w), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		 -1, 0);
	if (w == MAP_FAILED)
		return -errno;
	memset(w, 0, sizeof(*w));
	w->limit_ms = WATCH_FIRST_MS;       /* until the child names a step */
	w->begun_ms = clock_ms();
	nrl = relays_open(rl);
	if (nrl < 0) {
		munmap(w, sizeof(*w));
		return nrl;
	}
	watch_stop_signals(&set);
	sigaddset(&set, SIGCONT);       /* a stop's end: its time did not count */
	ignored_of(&set, &ign);
	sigprocmask(SIG_BLOCK, &set, &old);
	sfd = above_stdio(signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
	if (sfd < 0) {
		rc = -errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		relays_close(rl, nrl, true);
		munmap(w, sizeof(*w));
		return rc;
	}
	/* an ignored SIGCHLD (inherited through exec) would reap the child
	 * behind the watcher's back */
	sigaction(SIGCHLD, &dfl, &chld);
	fflush(NULL);
	end->child = fork();
	if (end->child == 0) {
		close(sfd);
		relays_take(rl, nrl);
		sigaction(SIGCHLD, &chld, NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		/* a watcher killed outright takes its command with it */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
			_exit(127);
		watch_shared = w;
		watch_pid = getpid();
		rc = body(ctx);
		fflush(NULL);
		_exit(rc);
	}
	rc = end->child < 0 ? -errno : 0;
	for (int i = 0; i < nrl; i++)
		close(rl[i].child_end);
	if (rc == 0)
		watch_loop(end->child, w, sfd, &ign, rl, nrl, end);
	relays_close(rl, nrl, false);
	close(sfd);
	sigaction(SIGCHLD, &chld, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	munmap(w, sizeof(*w));
	return rc;
}

int watch_attach_limit_ms(int timeout_ms, int read_timeout_ms)
{
	if (!read_timeout_ms)
		return 0;
	return 4 * timeout_ms + read_timeout_ms + 10000;
}
