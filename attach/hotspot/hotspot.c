/* SPDX-License-Identifier: Apache-2.0 */
/* hotspot.c - HotSpot attach: trigger, signal, socket, request (hotspot.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "hotspot.h"
#include "hotspot_int.h"
#include "hs_io.h"
#include "hs_reply.h"
#include "hs_tmpdir.h"
#include "target.h"

bool hotspot_may_signal(const struct target *t, struct err_text *e)
{
	if (t->maps_err) {
		err_set(e, 0, "cannot read /proc/%d/maps to confirm it is a JVM "
			 "(%s); jsym never signals an unconfirmed process",
			 (int)t->pid, strerror(-t->maps_err));
		return false;
	}
	if (t->maps.kind == PROC_OPENJ9) {
		err_set(e, 0, "%d is an OpenJ9 JVM; SIGQUIT would make it write "
			 "a javacore", (int)t->pid);
		return false;
	}
	if (t->maps.kind != PROC_HOTSPOT) {
		err_set(e, 0, "%d is not a JVM (no libjvm.so mapped); jsym "
			 "never signals it", (int)t->pid);
		return false;
	}
	if (t->opts.disable_attach) {
		err_set(e, 0, "the JVM runs with -XX:+DisableAttachMechanism and "
			 "cannot be attached (restart it without that flag)");
		return false;
	}
	if (t->opts.xrs) {
		err_set(e, 0, "the JVM runs with -Xrs: it has no SIGQUIT handler "
			 "and the signal would kill it");
		return false;
	}
	if (!proc_catches_signal(&t->st, SIGQUIT)) {
		err_set(e, 0, "the process does not catch SIGQUIT (SigCgt in "
			 "/proc/%d/status): the signal would kill it or do nothing",
			 (int)t->pid);
		return false;
	}
	return true;
}

/* A socket at name in dirfd (a directory of t's root): looked at through
 * the confined walk, so a FUSE file there is never asked. */
static bool is_socket_at(const struct target *t, int dirfd, const char *name)
{
	struct stat st;

	return confine_stat(t->proc_fd, dirfd, name, O_NOFOLLOW, &st, NULL) == 0 &&
	       S_ISSOCK(st.st_mode);
}

/*
 * The trigger must not outlive us even on Ctrl-C: while it exists, SIGINT,
 * SIGTERM and SIGHUP remove it (unlinkat is async-signal-safe) and end the
 * process with the usual 128+N status.
 */
static volatile sig_atomic_t trigger_dir = -1;
static char trigger_name[40];

static void on_fatal_signal(int sig)
{
	if (trigger_dir >= 0)
		unlinkat(trigger_dir, trigger_name, 0);
	_exit(128 + sig);
}

static void guard_trigger(int dir, const char *name)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	snprintf(trigger_name, sizeof(trigger_name), "%s", name);
	trigger_dir = dir;
	sa.sa_handler = on_fatal_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/*
 * Open the trigger `name` in dir: create it, or share the regular file of
 * ours another jsym made (the flock below serialises us); anything else at
 * that name (a symlink, a FIFO, a device node, another user's file, a
 * leftover of another tool) is replaced, unopened, so the JVM finds a file owned by its own user.
 * Returns an fd or -errno.
 */
static int open_trigger_in(int mnt_fd, int dir, const char *name)
{
	for (int tries = 0; tries < 3; tries++) {
		struct stat st;
		int fd = confine_open(mnt_fd, dir, name, O_WRONLY | O_CREAT | O_EXCL,
				      0600, NULL);

		if (fd >= 0 || fd != -EEXIST)
			return fd;
		/* what is there is opened only when it is a plain file: a
		 * device node planted at the name is replaced, never opened */
		fd = confine_open(mnt_fd, dir, name, O_WRONLY | O_NOFOLLOW, 0, NULL);
		if (fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == geteuid())
			return fd;
		if (fd >= 0)
			close(fd);
		if (confine_stat(mnt_fd, dir, name, O_NOFOLLOW, &st, NULL) == 0 &&
		    S_ISDIR(st.st_mode))
			return -EISDIR;
		if (unlinkat(dir, name, 0) != 0 && errno != ENOENT)
			return -errno;
	}
	return -EEXIST;
}

/* Open the trigger in the JVM's cwd, else in its temp dir (tmp_name: /tmp,
 * or JDK 28's -XX:AltTempDir); *dir gets the dirfd. */
static int open_trigger(const struct target *t, int tmp_fd, const char *tmp_name,
			const char *name, int *dir, const struct attach_log *log,
			struct err_text *e)
{
	int dirs[2] = { t->cwd_fd, tmp_fd };
	const char *where[2] = { t->cwd_path[0] ? t->cwd_path : "cwd", tmp_name };
	const char *isdir = NULL;
	int err = 0;

	for (int i = 0; i < 2; i++) {
		struct stat st;
		int fd;

		if (dirs[i] < 0)
			continue;
		fd = open_trigger_in(t->proc_fd, dirs[i], name);
		if (fd >= 0 && fstat(fd, &st) != 0) {
			err = -errno;
			close(fd);
			return err_set(e, err, "cannot stat the trigger file %s/%s "
				       "after opening it: %s", where[i], name,
				       strerror(-err));
		}
		if (fd >= 0) {
			attach_step(log, "trigger %s/%s (uid %u)", where[i], name,
				    (unsigned)st.st_uid);
			*dir = dirs[i];
			return fd;
		}
		err = fd;
		if (err == -EISDIR)
			isdir = where[i];
		attach_step(log, "cannot create trigger in %s: %s", where[i],
			    strerror(-err));
	}
	if (isdir)
		return err_set(e, -EISDIR, "cannot create the trigger file %s: a "
			       "directory of that name is in %s and the JVM only "
			       "accepts a file there (remove that directory)",
			       name, isdir);
	return err_set(e, err ? err : -ENOENT,
		       "cannot create the trigger file %s in the JVM's cwd or %s: "
		       "%s (the JVM's user must be able to write to one of them)",
		       name, tmp_name, strerror(err ? -err : ENOENT));
}

/* flock the trigger: one jsym at a time signals a given JVM. */
static int lock_trigger(int fd, long deadline, struct err_text *e)
{
	int rc = fdio_lock_until(fd, FDIO_FLOCK, deadline);

	if (rc == -ETIMEDOUT)
		return err_set(e, rc, "timed out: another attach to this JVM held "
			       "its trigger file (retry, or raise --timeout)");
	if (rc)
		return err_set(e, rc, "cannot lock the trigger file: %s",
			       strerror(-rc));
	return 0;
}

static int send_sigquit(const struct target *t, const struct attach_log *log,
			struct err_text *e)
{
	char hint[256];
	int rc = -ENOSYS;

	if (!target_alive(t))
		return err_set(e, -ESRCH, "process %d exited", (int)t->pid);
#ifdef SYS_pidfd_send_signal
	if (t->pidfd >= 0)
		rc = (int)syscall(SYS_pidfd_send_signal, t->pidfd, SIGQUIT, NULL, 0);
#endif
	if (rc != 0 && (rc != -1 || errno == ENOSYS))
		rc = kill(t->pid, SIGQUIT);
	if (rc != 0) {
		rc = -errno;
		return err_set(e, rc, "cannot send SIGQUIT to %d: %s %s", (int)t->pid,
			       strerror(-rc), creds_hint(CREDS_KILL, hint, sizeof(hint)));
	}
	attach_step(log, "SIGQUIT sent");
	return 0;
}

#define SOCKET_RECHECK_MS 200 /* with inotify: a fallback for missed events */
#define SOCKET_POLL_MS 20      /* without inotify: how often we look */

/* How long to sleep before looking for the socket again: never past left. */
static int socket_poll_ms(bool have_inotify, long left)
{
	long slice = have_inotify ? SOCKET_RECHECK_MS : SOCKET_POLL_MS;

	return (int)(left < slice ? left : slice);
}

/*
 * Wait until `sock` is a socket in the current directory, tmp_fd (the
 * JVM's temp dir, named o->dir in messages).
 * inotify wakes us when the listener renames its socket into place; the
 * poll timeout is only a fallback for file systems without events.
 *
 * The inotify descriptor is not closed here but handed to the caller in
 * *ino_out (-1 when there is none), its watch already removed.  Closing an
 * inotify instance that had a watch blocks until the kernel has waited out
 * an SRCU grace period (fsnotify frees marks only after one): 5 to 18 ms
 * measured, all of it between "socket found" and the request.  Removing the
 * watch starts that grace period without waiting for it; the caller closes
 * the descriptor after the JVM's reply, by when it has mostly passed.
 */
static int wait_socket(const struct target *t, int tmp_fd, const char *sock,
		       int timeout_ms, int *ino_out, const struct hs_opts *o,
		       struct err_text *e)
{
	const struct attach_log *log = o->log;
	long start = clock_ms(), left;
	int ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	int wd = -1, rc = 0;

	if (ino >= 0)
		wd = inotify_add_watch(ino, ".", IN_CREATE | IN_MOVED_TO | IN_ATTRIB);
	if (ino >= 0 && wd < 0) {
		close(ino);
		ino = -1;
	}
	if (ino < 0)
		attach_step(log, "inotify unavailable: polling for the socket");
	for (;;) {
		struct pollfd p[2] = { { ino, POLLIN, 0 }, { t->pidfd, POLLIN, 0 } };
		char drain[4096];

		if (is_socket_at(t, tmp_fd, sock)) {
			attach_step(log, "socket found after %ld ms",
				    clock_ms() - start);
			break;
		}
		if (!target_alive(t)) {
			rc = err_set(e, -ESRCH, "the JVM (pid %d) exited while jsym "
				     "waited for its attach socket", (int)t->pid);
			break;
		}
		left = start + timeout_ms - clock_ms();
		if (left <= 0 && target_stopped(t)) {
			rc = err_set(e, -ETIMEDOUT, "timed out after %d ms: the JVM is "
				     "stopped (SIGSTOP or a debugger) and did not open "
				     "%s/%s (continue it with kill -CONT, then retry)",
				     timeout_ms, o->dir, sock);
			break;
		}
		if (left <= 0) {
			rc = err_set(e, -ETIMEDOUT, "timed out after %d ms: the JVM did "
				     "not open %s/%s (it may have refused the trigger "
				     "and printed a thread dump: wrong owner, "
				     "-XX:+DisableAttachMechanism, or a JVM stuck at a "
				     "safepoint; raise --timeout if it is just slow)",
				     timeout_ms, o->dir, sock);
			break;
		}
		if (poll(p, 2, socket_poll_ms(ino >= 0, left)) > 0 && ino >= 0)
			while (read(ino, drain, sizeof(drain)) > 0)
				;
	}
	if (ino >= 0 && rc == 0) {
		inotify_rm_watch(ino, wd);
		*ino_out = ino;
	} else if (ino >= 0) {
		close(ino);
	}
	return rc;
}

/* Is the JVM's socket there?  1 yes, 0 no, -EPERM (with e) foreign owner. */
static int socket_ready(const struct target *t, int tmp_fd, const char *dir,
			const char *sock, struct err_text *e)
{
	struct stat st;

	if (confine_stat(t->proc_fd, tmp_fd, sock, O_NOFOLLOW, &st, NULL) != 0 ||
	    !S_ISSOCK(st.st_mode))
		return 0;
	if (st.st_uid != t->st.uid[1] && st.st_uid != 0)
		return err_set(e, -EPERM, "%s/%s is owned by uid %u, not by the "
			       "JVM's uid %u: refusing to use it (remove it if it is "
			       "stale)", dir, sock, (unsigned)st.st_uid,
			       (unsigned)t->st.uid[1]);
	return 1;
}

/*
 * What the socket wait may still take of the deadline: at least 1 ms, so
 * the socket is looked for once even when the trigger lock used it all.
 */
static int socket_wait_ms(long deadline)
{
	long left = deadline - clock_ms();

	return left > 0 ? (int)left : 1;
}

/*
 * Make sure the listener runs; the caller is inside the JVM's temp dir.
 * Concurrent jsyms share one trigger file and take turns with flock: the
 * first signals, the others find the socket (a second SIGQUIT to a JVM
 * whose listener runs would print a thread dump).  *ino gets wait_socket's
 * inotify descriptor, for the caller to close after the request.
 */
static int ensure_listener(const struct target *t, int tmp_fd, const char *sock,
			   const struct hs_opts *o, int *ino, struct err_text *e)
{
	long deadline = clock_ms() + o->timeout_ms;
	struct err_text why;
	struct statvfs vfs;
	char trig[40];
	struct stat st;
	int dir = -1, fd, rc;

	for (;;) {
		rc = socket_ready(t, tmp_fd, o->dir, sock, e);
		if (rc) {
			if (rc > 0)
				attach_step(o->log, "socket %s/%s exists: no signal "
					    "needed", o->dir, sock);
			return rc < 0 ? rc : 0;
		}
		/* HotSpot binds its socket in its temp dir, always (A3): read-only,
		 * the listener cannot start, whatever the trigger does */
		if (fstatvfs(tmp_fd, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
			return err_set(e, -EROFS, "the JVM has no attach socket and its "
				       "%s is read-only: HotSpot creates the socket "
				       "there (%s/%s), so no attach tool can reach it; "
				       "give the container a writable /tmp (an emptyDir), "
				       "on JDK 28 name a writable one with "
				       "-XX:AltTempDir=DIR, or start the JVM with "
				       "-agentpath", o->dir, o->dir, sock);
		if (!hotspot_may_signal(t, &why))
			return err_set(e, -EPERM, "the JVM has no attach socket "
				       "(%s/%s) and jsym will not signal it: %s",
				       o->dir, sock, why.msg);
		snprintf(trig, sizeof(trig), ".attach_pid%d", (int)t->st.nspid);
		fd = open_trigger(t, tmp_fd, o->dir, trig, &dir, o->log, e);
		if (fd < 0)
			return fd;
		rc = lock_trigger(fd, deadline, e);
		if (rc) {
			close(fd);
			return rc;
		}
		/* the previous holder removed it, or its signal worked: look again */
		if (fstat(fd, &st) != 0 || st.st_nlink == 0 ||
		    socket_ready(t, tmp_fd, o->dir, sock, NULL) != 0) {
			close(fd);
			attach_step(o->log, "another attach ran meanwhile");
			continue;
		}
		guard_trigger(dir, trig);
		rc = send_sigquit(t, o->log, e);
		if (rc == 0)
			rc = wait_socket(t, tmp_fd, sock, socket_wait_ms(deadline), ino,
					 o, e);
		if (unlinkat(dir, trig, 0) == 0)
			attach_step(o->log, "trigger removed");
		trigger_dir = -1;
		close(fd);      /* releases the lock */
		return rc;
	}
}

/* A request over the v1 limits; forced: the user asked for --protocol 1. */
static int v1_limit_error(const struct hs_request *rq, int why, bool forced,
			  struct err_text *e)
{
	const char *v2 = forced ? "--protocol 1 was given; with JDK 24+ use "
				  "--protocol auto or 2, whose protocol v2 takes "
				  "up to 256 KiB" :
				  "JDK 24+ take up to 256 KiB with protocol v2; "
				  "this JVM does not offer v2";

	if (why == -ENAMETOOLONG)
		return err_set(e, why, "command name '%.40s' is longer than the %d "
			       "bytes attach protocol v1 allows", rq->name,
			       HS_V1_NAME_MAX);
	if (why == -E2BIG)
		return err_set(e, why, "%s has %d arguments; attach protocol v1 "
			       "carries 3 (%s)", rq->name, rq->nargs, v2);
	return err_set(e, why, "an argument of %s is longer than the %d bytes "
		       "attach protocol v1 allows (%s)", rq->name,
		       HS_V1_ARG_MAX, v2);
}

/* Ask `getversion` once: 1 for JDKs before 24 (they do not know it). */
static int ask_version(const struct target *t, const char *sock, const struct hs_opts *o,
		       struct err_text *e)
{
	const char *args[1] = { "options" };
	char req[64], body[256];
	struct hs_io_result res;
	bool streaming;
	int n, rc, v;

	n = hs_encode_v1(req, sizeof(req), "getversion", args, 1);
	rc = hs_io_roundtrip(t, sock, req, (size_t)n, o, HS_IO_CAPTURE, body,
			     sizeof(body), &res, e);
	if (rc)
		return rc;
	if (res.code != 0) {
		attach_step(o->log, "getversion: not supported (protocol v1 only)");
		return 1;
	}
	v = hs_parse_getversion(body, res.captured, &streaming);
	if (v < 1)
		return err_set(e, -EPROTO, "unexpected getversion reply from the JVM");
	attach_step(o->log, "getversion: %d%s", v, streaming ? " streaming" : "");
	return v;
}

static int choose_protocol(const struct target *t, const struct hs_request *rq,
			   const char *sock, const struct hs_opts *o,
			   struct err_text *e)
{
	int fits = hs_v1_check(rq->name, rq->args, rq->nargs);
	int v;

	if (rq->protocol == 1)
		return fits ? v1_limit_error(rq, fits, true, e) : 1;
	if (rq->protocol == 0 && fits == 0 && t->jdk_major < 24)
		return 1;
	v = ask_version(t, sock, o, e);
	if (v < 0)
		return v;
	if (v >= 2)
		return 2;
	if (rq->protocol == 2)
		return err_set(e, -EPROTONOSUPPORT, "the JVM does not offer attach "
			       "protocol v2 (JDK 24 and later do, unless started "
			       "with -Djdk.attach.compat=true)");
	return fits ? v1_limit_error(rq, fits, false, e) : 1;
}

/* Choose the protocol, send the request in the JVM's temp dir, judge the reply. */
static int request(const struct target *t, const struct hs_request *rq,
		   const char *sock, const struct hs_opts *o,
		   struct attach_reply *r, struct err_text *e)
{
	static char req[HS_V2_BODY_MAX + 64];
	char body[64 * 1024];
	bool is_load = strcmp(rq->name, "load") == 0;
	struct hs_io_result res;
	int proto, n, rc;

	proto = choose_protocol(t, rq, sock, o, e);
	if (proto < 0)
		return proto;
	n = proto == 2 ? hs_encode_v2(req, sizeof(req), rq->name, rq->args, rq->nargs)
		       : hs_encode_v1(req, sizeof(req), rq->name, rq->args, rq->nargs);
	if (n < 0)
		return proto == 2 ? err_set(e, n, "request too large: attach "
					    "protocol v2 allows 256 KiB")
				  : v1_limit_error(rq, n, rq->protocol == 1, e);
	attach_step(o->log, "request: %s, protocol v%d, %d bytes", rq->name,
		    proto, n);
	rc = hs_io_roundtrip(t, sock, req, (size_t)n, o,
			     is_load ? HS_IO_CAPTURE : HS_IO_STREAM, body,
			     sizeof(body), &res, e);
	if (rc)
		return rc;
	attach_step(o->log, "reply: %d", res.code);
	hs_reply_judge(res.code, body, res.captured, is_load, r);
	return 0;
}

int hotspot_exec(const struct target *t, const struct hs_request *rq,
		 const struct hs_opts *o, struct attach_reply *r,
		 struct err_text *e)
{
	struct hs_opts od = *o;
	char sock[40];
	int tmp_fd, ino = -1, rc;

	memset(r, 0, sizeof(*r));
	tmp_fd = hs_tmpdir_open(t, &od.dir, o->log, e);
	if (tmp_fd < 0)
		return tmp_fd;
	/* relative socket names keep sun_path short whatever the root is */
	if (fchdir(tmp_fd) != 0) {
		rc = -errno;
		close(tmp_fd);
		return err_set(e, rc, "cannot enter the JVM's %s: %s", od.dir,
			       strerror(-rc));
	}
	snprintf(sock, sizeof(sock), ".java_pid%d", (int)t->st.nspid);
	od.dir_fd = tmp_fd;     /* the socket is connected below it */
	rc = ensure_listener(t, tmp_fd, sock, &od, &ino, e);
	if (rc == 0)
		rc = request(t, rq, sock, &od, r, e);
	close(tmp_fd);
	if (ino >= 0)
		close(ino); /* only now: see wait_socket */
	return rc;
}
