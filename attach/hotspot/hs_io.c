/* SPDX-License-Identifier: Apache-2.0 */
/* hs_io.c - one HotSpot attach round trip (see hs_io.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "hs_io.h"
#include "hs_reply.h"
#include "target.h"

int hs_sockaddr(const char *path, struct sockaddr_un *sa)
{
	size_t n;

	if (!path || !*path || !sa)
		return -EINVAL;
	n = strlen(path);
	if (n >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, path, n + 1);
	return (int)(offsetof(struct sockaddr_un, sun_path) + n + 1);
}

/* connect, waiting out a full backlog (the serial listener busy with
 * someone else) until deadline: 0 or -errno (-EAGAIN: still busy). */
static int connect_loop(int fd, const struct sockaddr_un *sa, int len, long deadline)
{
	while (connect(fd, (const struct sockaddr *)sa, (socklen_t)len) != 0) {
		int err = -errno;

		if (err == -EINTR)
			continue;
		if (err == -EAGAIN && clock_ms() < deadline) {
			poll(NULL, 0, 10);
			continue;
		}
		return err;
	}
	return 0;
}

/*
 * The socket jsym connects to is the inode the confined walk found below
 * the JVM's temp dir (dir_fd), never the name again: connect(2) resolves
 * its path itself, following symlinks from jsym's own root, so a name
 * swapped for a symlink after a check would lead it anywhere, a FUSE
 * mount's lookup included.  So the checked O_PATH descriptor is named
 * "fd/N" below this process's own /proc/PID (confine_self_dir, the pin
 * taken before any mount namespace was entered), which reaches that inode
 * without a lookup anywhere else, and connect gets that name.
 */
static int connect_sock(const struct target *t, int dir_fd, const char *dir,
			const char *sock, int timeout_ms, struct err_text *e)
{
	struct err_text ce = { "" };
	struct sockaddr_un sa;
	long deadline = clock_ms() + timeout_ms;
	char via[32];
	struct stat st;
	int len, fd, err, pfd, self;

	pfd = confine_lookup(t->proc_fd, dir_fd, sock, O_NOFOLLOW, &st, &ce);
	if (pfd < 0)
		return err_set(e, pfd, "cannot connect to %s/%s: %s", dir, sock,
			       pfd == -ENOENT ? strerror(-pfd) : ce.msg);
	if (!S_ISSOCK(st.st_mode)) {
		close(pfd);
		return err_set(e, -ENOTSOCK, "%s/%s is not a socket: jsym will not "
			       "connect to it; remove it and retry", dir, sock);
	}
	self = confine_self_dir();
	if (self < 0) {
		close(pfd);
		return err_set(e, self, "cannot connect to %s/%s: this process's "
			       "/proc/self: %s", dir, sock, strerror(-self));
	}
	snprintf(via, sizeof(via), "fd/%d", pfd);
	len = hs_sockaddr(via, &sa);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || fchdir(self) != 0) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		close(self);
		close(pfd);
		return err_set(e, err, "cannot connect to %s/%s: %s", dir, sock,
			       strerror(-err));
	}
	err = connect_loop(fd, &sa, len, deadline);
	(void)fchdir(dir_fd);   /* relative names are the temp dir's again */
	close(self);
	close(pfd);
	if (err == 0)
		return fd;
	close(fd);
	if (err == -EAGAIN)
		return err_set(e, -ETIMEDOUT, "the JVM's attach listener stayed "
			       "busy for %d ms (another client holds it; try again "
			       "or raise --timeout)", timeout_ms);
	if (err == -ECONNREFUSED)
		return err_set(e, err, "%s/%s exists but nobody listens on it "
			       "(left over by an earlier process with this pid? "
			       "remove it and retry)", dir, sock);
	if (err == -EACCES || err == -EPERM)
		return err_set(e, err, "cannot connect to %s/%s: %s (the "
			       "socket is mode 0600 and owned by the JVM's user: jsym "
			       "needs that uid (CAP_SETUID) or CAP_DAC_OVERRIDE; run it "
			       "on the host or as that user)", dir, sock,
			       strerror(-err));
	return err_set(e, err, "cannot connect to %s/%s: %s", dir,
		       sock, strerror(-err));
}

/*
 * The peer of a connected Unix socket is whoever called listen(): it must be
 * the JVM itself, not a process that planted a socket at its path.
 */
static int check_peer(const struct target *t, int fd, const char *dir,
		      const char *sock, struct err_text *e)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) != 0)
		return err_set(e, -errno, "cannot read the peer of %s/%s: %s",
			       dir, sock, strerror(errno));
	if (uc.pid != 0 && uc.pid != t->pid)
		return err_set(e, -EPERM, "%s/%s is served by pid %d (uid %u), not "
			       "by the JVM %d: refusing to talk to it (remove the "
			       "impostor socket)", dir, sock, (int)uc.pid, (unsigned)uc.uid,
			       (int)t->pid);
	if (uc.uid != t->st.uid[1] && uc.uid != 0)
		return err_set(e, -EPERM, "%s/%s is served by uid %u, not by the "
			       "JVM's uid %u: refusing to talk to it", dir, sock,
			       (unsigned)uc.uid, (unsigned)t->st.uid[1]);
	return 0;
}

static int send_all(int fd, const char *buf, size_t len, int ms,
		    struct err_text *e)
{
	int rc = fdio_write_all(fd, buf, len, ms);

	if (rc == -ETIMEDOUT)
		return err_set(e, rc, "the JVM did not take the request within "
			       "%d ms", ms);
	if (rc)
		return err_set(e, rc, "cannot send the request: %s (the JVM "
			       "closed the connection)", strerror(-rc));
	return 0;
}

/* The whole reply did not arrive within --read-timeout. */
static int reply_late(int read_ms, struct err_text *e)
{
	return err_set(e, -ETIMEDOUT, "timed out: the JVM's reply was not complete "
		       "within %d ms (raise --read-timeout for slow commands such "
		       "as dumpheap)", read_ms);
}

/*
 * Wait for reply bytes until `until` (clock_ms; 0: no limit), the end of the
 * whole reply: a JVM that drips one byte a second must not keep jsym.  A
 * JVM that stays stopped (SIGSTOP, a debugger) for stop_ms cannot answer,
 * so give up then too instead of stalling.
 */
static int wait_reply(const struct target *t, int fd, long until, int read_ms,
		      int stop_ms, struct err_text *e)
{
	long stopped_since = 0;

	for (;;) {
		long now = clock_ms(), slice = 250;

		if (until && now >= until)
			return reply_late(read_ms, e);
		if (until && until - now < slice)
			slice = until - now;
		if (fdio_wait(fd, POLLIN, (int)slice) == 0)
			return 0;
		if (!target_stopped(t)) {
			stopped_since = 0;
			continue;
		}
		if (!stopped_since)
			stopped_since = clock_ms();
		else if (clock_ms() - stopped_since >= stop_ms)
			return err_set(e, -ETIMEDOUT, "timed out: the JVM has been "
				       "stopped (SIGSTOP or a debugger) for %d ms and "
				       "cannot answer", stop_ms);
	}
}

struct reader {
	int fd;
	int ms;
	long until;             /* clock_ms() the whole reply must end by, 0: none */
	char line[64];          /* the result line being read */
	size_t line_len;
	bool have_code;
	int sink;               /* where the body goes (-1: nowhere) */
	bool sink_ok;
	bool escape;            /* the body is escaped on its way to the sink */
	unsigned char carry[3]; /* escaping: a character cut by a read, held */
	size_t carry_n;
	size_t sink_left;       /* bytes the sink may still take */
	size_t dropped;         /* error text not shown (over ERR_TEXT_MAX) */
	/* what roundtrip was asked for */
	const struct target *t;
	const struct hs_opts *o;
	enum hs_io_mode mode;
	char *cap;
	size_t capmax;
	struct hs_io_result *res;
};

/*
 * A refusal's text goes to stderr, where a hostile or broken JVM could
 * flood a terminal or a log: show the first 64 KiB and say how much was
 * left out.  A successful command's output (stdout) is never cut.
 */
#define ERR_TEXT_MAX (64 * 1024)

/* How many bytes at the end of p[n] begin a UTF-8 character that the
 * next read may complete (0..3). */
static size_t cut_tail(const unsigned char *p, size_t n)
{
	for (size_t j = 1; j <= 3 && j <= n; j++) {
		unsigned char c = p[n - j];

		if ((c & 0xc0) == 0x80)
			continue;       /* a continuation byte: look further back */
		if (c < 0xc2 || c > 0xf4)
			return 0;
		return (c >= 0xf0 ? 4u : c >= 0xe0 ? 3u : 2u) > j ? j : 0;
	}
	return 0;
}

/*
 * Write n bytes of the JVM's text to the sink (last: the reply ended).  A
 * refusal's text goes to stderr, and a successful command's output to a
 * terminal: both are escaped like all target text (termtext.c; newlines and
 * tabs kept, it is text of many lines), so a reply cannot retitle or
 * rewrite the operator's terminal or turn its text around.  A character
 * cut by a read is held until the next one completes it.  A successful
 * command's output to a pipe or a file is data, passed as is, byte for
 * byte (docs/cli.md).
 */
static bool sink_write(struct reader *rd, const char *p, size_t n, bool last)
{
	char in[1024 + sizeof(rd->carry)], safe[4 * sizeof(in) + 1];

	if (!rd->escape)
		return fdio_write_all(rd->sink, p, n, 0) == 0;
	while (n > 0 || (last && rd->carry_n > 0)) {
		size_t k = n < 1024 ? n : 1024, m = rd->carry_n, hold;

		memcpy(in, rd->carry, m);
		if (k)
			memcpy(in + m, p, k);
		m += k;
		p += k;
		n -= k;
		hold = last && n == 0 ? 0 : cut_tail((const unsigned char *)in, m);
		memcpy(rd->carry, in + m - hold, hold);
		rd->carry_n = hold;
		term_escape(safe, sizeof(safe), in, m - hold, TERM_KEEP_NL);
		if (fdio_write_all(rd->sink, safe, strlen(safe), 0) != 0)
			return false;
	}
	return true;
}

static void body_bytes(struct reader *rd, enum hs_io_mode mode, const char *p,
		       size_t n, char *cap, size_t capmax, struct hs_io_result *res)
{
	size_t room = capmax - res->captured;
	bool keep = mode == HS_IO_CAPTURE || res->code != 0;

	if (keep && room > 0) {
		size_t k = n < room ? n : room;

		memcpy(cap + res->captured, p, k);
		res->captured += k;
	}
	res->body_bytes += n;
	if (mode == HS_IO_STREAM && rd->sink >= 0 && rd->sink_ok) {
		size_t k = n < rd->sink_left ? n : rd->sink_left;

		rd->sink_ok = sink_write(rd, p, k, false);
		rd->sink_left -= k;
		rd->dropped += n - k;
	}
}

/* The result line, from the reply's first bytes: *off is where the body
 * starts in buf (n when the line goes on in the next read).  0 or
 * -EPROTO. */
static int take_result_line(struct reader *rd, const char *buf, size_t n,
			    size_t *off, struct err_text *e)
{
	const char *nl = memchr(buf, '\n', n);
	size_t take = nl ? (size_t)(nl - buf) : n;

	if (rd->line_len + take >= sizeof(rd->line))
		return err_set(e, -EPROTO, "the reply does not start with "
			       "a result line (is this a JVM attach socket?)");
	memcpy(rd->line + rd->line_len, buf, take);
	rd->line_len += take;
	*off = n;
	if (!nl)
		return 0;
	*off = take + 1;
	rd->have_code = true;
	if (hs_parse_code(rd->line, rd->line_len, &rd->res->code) != 0)
		return err_set(e, -EPROTO, "unexpected reply from the JVM: "
			       "'%.40s'", rd->line);
	rd->sink = rd->res->code == 0 ? rd->o->out_fd : rd->o->err_fd;
	rd->sink_left = rd->res->code == 0 ? SIZE_MAX : ERR_TEXT_MAX;
	rd->escape = rd->res->code != 0 || (rd->sink >= 0 && isatty(rd->sink));
	return 0;
}

/* One read's bytes: the result line, then the body.  0 to read on, 1 when
 * a stream's reader went away (e.g. `| head`), or -errno. */
static int take_bytes(struct reader *rd, const char *buf, size_t n,
		      struct err_text *e)
{
	size_t off = 0;
	int rc;

	if (!rd->have_code) {
		rc = take_result_line(rd, buf, n, &off, e);
		if (rc)
			return rc;
	}
	if (n > off)
		body_bytes(rd, rd->mode, buf + off, n - off, rd->cap, rd->capmax,
			   rd->res);
	if (rd->res->body_bytes > HS_REPLY_MAX)
		return err_set(e, -EMSGSIZE, "the JVM's reply passed %d MiB: "
			       "stopped reading it (no attach command answers "
			       "that much)", HS_REPLY_MAX >> 20);
	if (rd->mode == HS_IO_STREAM && !rd->sink_ok)
		return 1;
	return 0;
}

/* The reply read until the JVM closes, within rd->until.  0 or -errno. */
static int read_reply(struct reader *rd, struct err_text *e)
{
	char buf[16384];
	int rc = 0;

	if (rd->ms > 0)
		rd->until = clock_ms() + rd->ms;
	while (rc == 0) {
		ssize_t n;

		/* checked before every read, not only when one would block:
		 * a steady trickle never blocks */
		if (rd->until && clock_ms() >= rd->until)
			return reply_late(rd->ms, e);
		n = recv(rd->fd, buf, sizeof(buf), 0);
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			rc = wait_reply(rd->t, rd->fd, rd->until, rd->ms, rd->o->timeout_ms, e);
			continue;
		}
		if (n < 0 && errno == ECONNRESET)
			return 0;  /* closed with our request unread: like EOF */
		if (n < 0)
			return err_set(e, -errno, "cannot read the reply: %s",
				       strerror(errno));
		if (n == 0)
			return 0;
		rc = take_bytes(rd, buf, (size_t)n, e);
	}
	return rc > 0 ? 0 : rc;
}

/* The error text cut at ERR_TEXT_MAX says how much was left out. */
static void note_dropped(const struct reader *rd)
{
	char note[96];
	int k;

	if (rd->dropped == 0 || rd->sink < 0 || !rd->sink_ok)
		return;
	k = snprintf(note, sizeof(note), "\n[jsym: %zu more bytes of the "
		     "JVM's message not shown]\n", rd->dropped);
	fdio_write_all(rd->sink, note, (size_t)k, 0);
}

/* A reply read to its end without error: did it have a result line? */
static int check_result_line(struct reader *rd, struct err_text *e)
{
	if (!rd->have_code && rd->line_len > 0 &&
	    hs_parse_code(rd->line, rd->line_len, &rd->res->code) == 0)
		rd->have_code = true;   /* "0" without a newline: tolerate it */
	if (!rd->have_code)
		return err_set(e, -ECONNRESET,
			       "the JVM closed the connection without a reply: it "
			       "accepts only its own uid/gid or root as peer (jsym "
			       "connected as uid %u gid %u; in a user namespace an "
			       "unmapped id is refused), and it drops requests over "
			       "the protocol limits", (unsigned)geteuid(),
			       (unsigned)getegid());
	return 0;
}

static int roundtrip(const struct target *t, const char *sock, const char *req, size_t len,
		     const struct hs_opts *o, enum hs_io_mode mode, char *cap,
		     size_t capmax, struct hs_io_result *res, struct err_text *e)
{
	struct reader rd = {
		.ms = o->read_timeout_ms, .sink = -1, .sink_ok = true,
		.t = t, .o = o, .mode = mode, .cap = cap, .capmax = capmax, .res = res,
	};
	const char *dir = o->dir ? o->dir : "/tmp";
	int rc;

	memset(res, 0, sizeof(*res));
	rd.fd = connect_sock(t, o->dir_fd, dir, sock, o->timeout_ms, e);
	if (rd.fd < 0)
		return rd.fd;
	rc = check_peer(t, rd.fd, dir, sock, e);
	if (rc == 0)
		rc = send_all(rd.fd, req, len, o->timeout_ms, e);
	if (rc == 0)
		rc = read_reply(&rd, e);
	close(rd.fd);
	if (rd.carry_n > 0 && rd.sink >= 0 && rd.sink_ok)
		rd.sink_ok = sink_write(&rd, NULL, 0, true);
	note_dropped(&rd);
	return rc ? rc : check_result_line(&rd, e);
}

/* How long a failed connection waits for an exiting JVM to be gone. */
#define EXIT_GRACE_MS 200

/*
 * A JVM that dies mid-attach shows up as a refused connect (its socket file
 * outlives it for a moment), a close without a reply or a reset: all of
 * which have other, misleading explanations.  When the JVM is gone, say that
 * instead, whatever the socket did.
 */
int hs_io_roundtrip(const struct target *t, const char *sock, const char *req, size_t len,
		    const struct hs_opts *o, enum hs_io_mode mode, char *cap,
		    size_t capmax, struct hs_io_result *res, struct err_text *e)
{
	int rc = roundtrip(t, sock, req, len, o, mode, cap, capmax, res, e);

	if (rc < 0 && target_gone_within(t, EXIT_GRACE_MS))
		rc = err_set(e, -ESRCH, "the JVM (pid %d) exited during the attach, "
			     "before it replied", (int)t->pid);
	return rc;
}
