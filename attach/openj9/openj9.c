/* SPDX-License-Identifier: Apache-2.0 */
/*
 * openj9.c - one OpenJ9 attach: the sequence of docs/protocols.md B6 with the
 * deviations of jattach fixed (fcntl locks, a 2-semaphore set we never
 * create, a loopback-only listener, non-numeric vmIds, the target's TMPDIR).
 *
 * All state lives in struct j9_session so that one function, release_all(),
 * can undo whatever was done so far, whichever step failed: replyInfo
 * deleted (only if it is still the file we created), sync files unlocked,
 * our semaphore posts cancelled, _attachlock unlocked, sockets closed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "openj9.h"
#include "openj9_int.h"

#define CMD_MAX (64 * 1024)
#define FIRST_MSG_MAX 4000           /* what the Java attacher reads, B7 */
#define REPLY_MAX (64 * 1024 * 1024) /* bound on one reply */
#define SYNC_MAX 256                 /* sync files we lock at most */
#define OTHER_SYNC_WAIT_MS 200       /* per other VM's sync file */
#define NOTIFIER_PROJ 0xa1
#define DETACH_WAIT_MS 1000          /* for the answer to ATTACH_DETACHED */
#define CANCEL_SETTLE_MS 50          /* per cancelled post, see release_attach */
#define CANCEL_SETTLE_POSTS 10       /* ... counting at most this many */

struct j9_session {
	const struct openj9_target *t;
	long deadline;                  /* clock_ms() time */
	int timeout_ms, read_timeout_ms;
	char cpath[4200];
	char vmid[256];
	int common, vmdir, attachlock;
	int sync[SYNC_MAX];
	size_t nsync;
	int semid, nposts, posted;
	int lsock[2];
	int conn;
	char key[17];
	bool reply_made;
	dev_t reply_dev;
	ino_t reply_ino;
};

static int left_ms(long deadline)
{
	return openj9_left_ms(deadline);
}

static void on_cancel(int sig)
{
	(void)sig;
	openj9_cancelled = 1;
}

/*
 * The helper runs with a parent-death SIGTERM (run.c): a killed jsym must
 * not leave it talking to the VM.  Dying on the signal would skip the
 * clean-up (replyInfo, posted semaphore), so the handler only ends every
 * wait, and the bounded clean-up path runs as after a timeout.  No
 * SA_RESTART: a blocked poll returns EINTR and looks at the flag.
 */
static const int cancel_sigs[3] = { SIGTERM, SIGINT, SIGHUP };

static void catch_cancel(struct sigaction old[3])
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_cancel;
	sigemptyset(&sa.sa_mask);
	openj9_cancelled = 0;
	for (int i = 0; i < 3; i++)
		sigaction(cancel_sigs[i], &sa, &old[i]);
}

static void restore_cancel(const struct sigaction old[3])
{
	for (int i = 0; i < 3; i++)
		sigaction(cancel_sigs[i], &old[i], NULL);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void unlock_close(int *fd)
{
	struct flock fl = { .l_type = F_UNLCK, .l_whence = SEEK_SET };

	if (*fd < 0)
		return;
	fcntl(*fd, F_SETLK, &fl);
	close(*fd);
	*fd = -1;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void release_replyinfo(struct j9_session *s)
{
	struct stat st;

	if (!s->reply_made)
		return;
	s->reply_made = false;
	/* Only unlink what we made: same inode as the file we created. */
	if (confine_stat(MNT(s->t), s->vmdir, "replyInfo", O_NOFOLLOW, &st, NULL) == 0 &&
	    st.st_dev == s->reply_dev && st.st_ino == s->reply_ino)
		unlinkat(s->vmdir, "replyInfo", 0);
}

/* Undo the attach handshake (B6 order): replyInfo, sync locks, posts, lock. */
static void release_attach(struct j9_session *s)
{
	struct sembuf cancel = { 0, -1, IPC_NOWAIT };
	int i, cancelled = 0;

	release_replyinfo(s);
	while (s->nsync)
		unlock_close(&s->sync[--s->nsync]);
	for (i = 0; i < s->posted; i++) {
		if (semop(s->semid, &cancel, 1) < 0)
			break; /* EAGAIN: the VMs consumed the rest */
		cancelled++;
	}
	if (s->posted)
		attach_step(s->t->log, "cancelled %d of %d semaphore posts", cancelled, s->posted);
	if (s->posted > 2)
		sleep_ms(CANCEL_SETTLE_MS * (s->posted < CANCEL_SETTLE_POSTS ? s->posted :
					     CANCEL_SETTLE_POSTS));
	s->posted = 0;
	unlock_close(&s->attachlock);
	close_fd(&s->lsock[0]);
	close_fd(&s->lsock[1]);
}

static void release_all(struct j9_session *s)
{
	release_attach(s);
	close_fd(&s->conn);
	close_fd(&s->vmdir);
	close_fd(&s->common);
}

static int write_replyinfo(struct j9_session *s, int port, struct err_text *e)
{
	const struct openj9_target *t = s->t;
	char body[64];
	struct stat st;
	int n = openj9_reply_info(body, sizeof(body), strtoull(s->key, NULL, 16), port);
	ssize_t w;
	int fd, err;

	fd = confine_open(MNT(t), s->vmdir, "replyInfo", O_WRONLY | O_CREAT | O_EXCL, 0600, NULL);
	if (fd < 0) {
		err = -fd;
		return err_set(e, -err, "cannot create %s/%s/replyInfo: %s%s", s->cpath, s->vmid,
		     strerror(err),
		     err == EEXIST ? " (another attach is in progress, or a crashed attacher left it: "
				   "remove it if no attach is running)" :
		     err == EACCES ? " (the VM dir is 01711: run as root or as the JVM's user)" : "");
	}
	if (fstat(fd, &st) != 0) {
		err = errno;    /* before unlinkat/close can change it */
		unlinkat(s->vmdir, "replyInfo", 0);     /* O_EXCL: it is ours */
		close(fd);
		return err_set(e, -err, "cannot stat the replyInfo just created in %s/%s: %s",
			       s->cpath, s->vmid, strerror(err));
	}
	s->reply_made = true;
	s->reply_dev = st.st_dev;
	s->reply_ino = st.st_ino;
	/* The VM accepts replyInfo only if it owns it and nobody else may
	 * read or write it (B5, B9). */
	if (fchmod(fd, 0600) < 0 || ((st.st_uid != t->uid || st.st_gid != t->gid) &&
				     fchown(fd, t->uid, t->gid) < 0 && st.st_uid != t->uid)) {
		err = errno;
		close(fd);
		return err_set(e, -err, "cannot give replyInfo to the JVM's user %u: %s (run jsym as root "
		     "or as uid %u)", (unsigned)t->uid, strerror(err), (unsigned)t->uid);
	}
	w = n < 0 ? 0 : write(fd, body, (size_t)n);
	if (w != n) {
		/* errno now is write's only when it failed: a short write sets
		 * none, and what is left there is an earlier call's */
		err = n < 0 ? ENOSPC : w < 0 ? errno : EIO;
		close(fd);
		if (w >= 0 && n >= 0)
			return err_set(e, -err, "cannot write replyInfo: only %zd of %d "
				       "bytes written (is the target's file system full?)",
				       w, n);
		return err_set(e, -err, "cannot write replyInfo: %s", strerror(err));
	}
	close(fd);
	attach_step(t->log, "wrote %s/%s/replyInfo (port %d)", s->cpath, s->vmid, port);
	return 0;
}

/* Count the VMs to post for (B6) and lock their sync files, target first. */
static int lock_sync_files(struct j9_session *s, struct err_text *e)
{
	int fd, rc;
	struct dirent *d;
	DIR *dir;

	s->nposts = 0;
	fd = confine_open(MNT(s->t), s->vmdir, "attachNotificationSync", O_RDWR | O_NOFOLLOW,
			  0, NULL);
	if (fd < 0) {
		rc = fd;
		return err_set(e, rc, "cannot open %s/%s/attachNotificationSync: %s", s->cpath, s->vmid,
		     strerror(-rc));
	}
	rc = fdio_lock_until(fd, FDIO_RECORD, s->deadline);
	if (rc) {
		close(fd);
		return err_set(e, rc, "cannot lock %s/%s/attachNotificationSync: %s%s", s->cpath,
		     s->vmid, strerror(-rc),
		     rc == -ETIMEDOUT ? " (another attacher holds it; retry later)" : "");
	}
	s->sync[s->nsync++] = fd;
	fd = dup(s->common);
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		return err_set(e, rc, "cannot list %s: %s", s->cpath, strerror(-rc));
	}
	rewinddir(dir);
	while ((d = readdir(dir)) && s->nposts < OPENJ9_MAX_ENTRIES) {
		long until;
		int vfd;

		if (openj9_skip_entry(d->d_name))
			continue;
		s->nposts++;
		if (strcmp(d->d_name, s->vmid) == 0 || s->nsync >= SYNC_MAX)
			continue;
		vfd = confine_open(MNT(s->t), s->common, d->d_name, O_PATH | O_DIRECTORY |
				   O_NOFOLLOW, 0, NULL);
		fd = vfd < 0 ? -1 : confine_open(MNT(s->t), vfd, "attachNotificationSync",
						 O_RDWR | O_NOFOLLOW, 0, NULL);
		if (vfd >= 0)
			close(vfd);
		if (fd < 0)
			continue;
		/* Other VMs: a short wait, never past our deadline; one we
		 * cannot lock just gets a post. */
		until = clock_ms() + OTHER_SYNC_WAIT_MS;
		if (until > s->deadline)
			until = s->deadline;
		if (fdio_lock_until(fd, FDIO_RECORD, until) == 0)
			s->sync[s->nsync++] = fd;
		else
			close(fd);
	}
	closedir(dir);
	attach_step(s->t->log, "locked %zu attachNotificationSync file(s), %d VM dir(s)",
		    s->nsync, s->nposts);
	return 0;
}

int openj9_notifier_key(int mnt_fd, int common, key_t *key)
{
	struct stat st;
	int fd = confine_open(mnt_fd, common, "_notifier", O_RDONLY | O_NOFOLLOW, 0, NULL);

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	/* ftok(path, 0xa1) from the stat of the file as the target sees it
	 * (B4), so our own mount namespace does not matter. */
	*key = (key_t)((st.st_ino & 0xffff) | ((st.st_dev & 0xff) << 16) |
		       ((unsigned)NOTIFIER_PROJ << 24));
	return 0;
}

static int post_notifier(struct j9_session *s, struct err_text *e)
{
	struct sembuf post = { 0, 1, 0 };
	key_t key;
	int rc = openj9_notifier_key(MNT(s->t), s->common, &key), i;

	if (rc) {
		return err_set(e, rc, "cannot open %s/_notifier: %s (the OpenJ9 attach directory "
			    "is incomplete: is the VM's attach API enabled?)", s->cpath, strerror(-rc));
	}
	/* Never IPC_CREAT: a set we create would be one no VM waits on, and
	 * one with the wrong nsems breaks OpenJ9's own semget (B4). */
	s->semid = semget(key, 2, 0666);
	if (s->semid < 0) {
		rc = -errno;
		if (rc == -ENOENT)
			err_set(e, rc, "no OpenJ9 attach semaphore (key 0x%08x) in the target's IPC "
			     "namespace: the VM is not listening for attach (attach API disabled or "
			     "not started yet), or jsym is not in the target's IPC namespace",
			     (unsigned)key);
		else if (rc == -EINVAL)
			err_set(e, rc, "the OpenJ9 attach semaphore (key 0x%08x) has fewer than 2 "
			     "members: created by an old jattach; OpenJ9 cannot use it either (remove "
			     "it with ipcrm in the target's IPC namespace)", (unsigned)key);
		else
			err_set(e, rc, "cannot open the OpenJ9 attach semaphore (key 0x%08x): %s",
			     (unsigned)key, strerror(-rc));
		return rc;
	}
	for (i = 0; i < s->nposts; i++) {
		if (semop(s->semid, &post, 1) < 0) {
			rc = -errno;
			return err_set(e, rc, "cannot post the OpenJ9 attach semaphore: %s",
			     strerror(-rc));
		}
		s->posted++;
	}
	attach_step(s->t->log, "posted semaphore key 0x%08x x%d", (unsigned)key, s->posted);
	return 0;
}

/* Accept connections until one sends our key or the deadline passes. */
static int accept_vm(struct j9_session *s, struct err_text *e)
{
	for (;;) {
		struct pollfd p[2] = { { .fd = s->lsock[0], .events = POLLIN },
				       { .fd = s->lsock[1], .events = POLLIN } };
		int rc = poll(p, s->lsock[1] >= 0 ? 2 : 1, left_ms(s->deadline)), i;

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0)
			break;
		for (i = 0; i < 2; i++) {
			char *msg;
			size_t len;
			int c;

			if (!(p[i].revents & POLLIN))
				continue;
			c = accept4(p[i].fd, NULL, NULL, SOCK_CLOEXEC);
			if (c < 0)
				continue;
			rc = openj9_read_msg(c, FIRST_MSG_MAX, left_ms(s->deadline), &msg, &len);
			if (rc == 0 && openj9_check_connected(msg, len, s->key)) {
				free(msg);
				s->conn = c;
				return 0;
			}
			if (rc == 0)
				free(msg);
			attach_step(s->t->log, "dropped a connection without our key");
			close(c);
		}
	}
	return err_set(e, -ETIMEDOUT, "OpenJ9 VM %s (pid %d) did not connect back within %d ms (the VM may "
	     "be busy or not listening; raise the timeout, or check that 127.0.0.1 works in its "
	     "network namespace)", s->vmid, (int)s->t->nspid, s->timeout_ms);
}

static int handshake(struct j9_session *s, struct err_text *e)
{
	int rc, port, fd;

	rc = openj9_find_in_dir(MNT(s->t), s->common, s->t->nspid, s->vmid, sizeof(s->vmid));
	if (rc) {
		return err_set(e, rc, "no OpenJ9 VM advertises pid %d in %s (not an OpenJ9 JVM, or its "
		     "attach API is disabled)", (int)s->t->nspid, s->cpath);
	}
	attach_step(s->t->log, "OpenJ9 VM id %s in %s", s->vmid, s->cpath);
	s->vmdir = confine_open(MNT(s->t), s->common, s->vmid, O_PATH | O_DIRECTORY | O_NOFOLLOW,
				0, NULL);
	if (s->vmdir < 0) {
		rc = s->vmdir;
		return err_set(e, rc, "cannot open %s/%s: %s", s->cpath, s->vmid, strerror(-rc));
	}
	fd = confine_open(MNT(s->t), s->common, "_attachlock", O_RDWR | O_NOFOLLOW, 0, NULL);
	if (fd >= 0) {
		rc = fdio_lock_until(fd, FDIO_RECORD, s->deadline);
		if (rc) {
			close(fd);
			return err_set(e, rc, "cannot lock %s/_attachlock: %s%s", s->cpath, strerror(-rc),
			     rc == -ETIMEDOUT ? " (another attach is running; retry later)" : "");
		}
		s->attachlock = fd;
	} else {
		attach_step(s->t->log, "no usable _attachlock (%s), going on unlocked",
			    strerror(-fd));
	}
	if ((rc = openj9_random_key(s->key)) < 0)
		return err_set(e, rc, "cannot get random bytes for the attach key: %s", strerror(-rc));
	port = openj9_listen_loopback(s->lsock, e);
	if (port < 0)
		return port;
	if ((rc = write_replyinfo(s, port, e)) ||
	    (rc = lock_sync_files(s, e)) || (rc = post_notifier(s, e)) ||
	    (rc = accept_vm(s, e)))
		return rc;
	attach_step(s->t->log, "VM connected back with our key");
	release_attach(s);
	return 0;
}

static int converse(struct j9_session *s, const char *cmd, bool is_load, bool is_diag,
		    int out_fd, struct attach_reply *rep, struct err_text *e)
{
	char *msg = NULL, *text = NULL;
	size_t len, tlen;
	int rc = openj9_send_msg(s->conn, cmd);

	if (rc == 0)
		rc = openj9_read_msg(s->conn, REPLY_MAX, s->read_timeout_ms, &msg, &len);
	if (rc) {
		if (rc == -ETIMEDOUT)
			err_set(e, rc, "OpenJ9 VM %s did not complete its reply within %d ms "
				    "(raise the read timeout for slow commands such as heap "
				    "dumps)", s->vmid,
				    s->read_timeout_ms);
		else
			err_set(e, rc, "OpenJ9 VM %s: %s", s->vmid,
				    rc == -EPIPE ? "closed the connection before replying" :
				    rc == -EMSGSIZE ? "reply larger than 64 MiB" : strerror(-rc));
		return rc == -EPIPE ? -EPROTO : rc;
	}
	attach_step(s->t->log, "reply of %zu bytes", len);
	rc = openj9_map_reply(msg, len, is_load, is_diag, rep, &text, &tlen);
	if (rc == 0 && out_fd >= 0 && text)
		fdio_write_all(out_fd, text, tlen, 0); /* a closed reader ends it */
	free(text);
	free(msg);
	/* Detach politely; the answer does not change the outcome. */
	if (openj9_send_msg(s->conn, "ATTACH_DETACHED") == 0 &&
	    openj9_read_msg(s->conn, 4096, s->timeout_ms < DETACH_WAIT_MS ? s->timeout_ms :
			    DETACH_WAIT_MS, &msg, &len) == 0)
		free(msg);
	if (rc)
		err_set(e, rc, "out of memory decoding the reply");
	return rc;
}

/* The longest the whole reply may take: t's; -1 (no limit) when t sets
 * none (<= 0, the meaning of 0 in every read_timeout_ms of jsym). */
static int reply_timeout_ms(const struct openj9_target *t)
{
	return t->read_timeout_ms > 0 ? t->read_timeout_ms : -1;
}

int openj9_exec(const struct openj9_target *t, int argc, const char *const argv[],
		int out_fd, struct attach_reply *rep, struct err_text *e)
{
	struct j9_session s = { .t = t, .common = -1, .vmdir = -1, .attachlock = -1,
				.semid = -1, .lsock = { -1, -1 }, .conn = -1 };
	struct sigaction old[3];
	bool is_load, is_diag;
	char *cmd;
	int rc;

	if (e)
		e->msg[0] = '\0';
	memset(rep, 0, sizeof(*rep));
	cmd = malloc(CMD_MAX);
	if (!cmd)
		return -ENOMEM;
	rc = openj9_translate(argc, argv, cmd, CMD_MAX, &is_load, &is_diag, e);
	if (rc)
		goto out;
	s.timeout_ms = t->timeout_ms > 0 ? t->timeout_ms : ATTACH_TIMEOUT_MS;
	s.read_timeout_ms = reply_timeout_ms(t);
	s.deadline = clock_ms() + s.timeout_ms;
	catch_cancel(old);
	s.common = openj9_common_dir(t, s.cpath, sizeof(s.cpath), e);
	if (s.common < 0) {
		rc = s.common;
		goto out;
	}
	rc = handshake(&s, e);
	if (rc == 0) {
		attach_step(t->log, "sending %s", cmd);
		rc = converse(&s, cmd, is_load, is_diag, out_fd, rep, e);
	}
out:
	release_all(&s);
	if (s.deadline)
		restore_cancel(old);
	free(cmd);
	return rc;
}
