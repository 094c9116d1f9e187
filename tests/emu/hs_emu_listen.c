/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hs_emu_listen.c - HotSpot's attach listener as JDK 11-17 run it on Linux
 * (docs/protocols.md A2-A8, A11), from that text alone.
 *
 * SIGQUIT (on the signal-dispatcher thread, hs_emu.c):
 *   not initialized  -> .attach_pid<pid> in the cwd, else in /tmp, owned by
 *                       our euid or root: start the listener; else dump
 *   initializing     -> ignored
 *   initialized      -> socket file there: thread dump; gone: stop the
 *                       listener, then as "not initialized"
 * The trigger is never deleted by us.
 *
 * "Attach Listener" thread: creates /tmp/.java_pid<pid> (bind to <path>.tmp,
 * listen 5, chmod 0600, chown euid:egid, rename), then serves one connection
 * at a time: SO_PEERCRED (root, or our euid and egid; else close without a
 * byte), the v1 request (silent close when short or over a limit; "101\n"
 * for another version), the operation (hs_emu_ops.c), "<rc>\n<output>",
 * close.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "hs_emu.h"

enum { AL_NOT_INITIALIZED, AL_INITIALIZING, AL_INITIALIZED };

/* attachListener.hpp limits and the v1 framing */
#define NAME_MAX_LEN 16
#define ARG_MAX_LEN 1024
#define ARG_COUNT 3
#define REQ_STRINGS (2 + ARG_COUNT)
#define REQ_MAX (2 + 1 + (NAME_MAX_LEN + 1) + ARG_COUNT * (ARG_MAX_LEN + 1))
#define BAD_VERSION 101

static pthread_mutex_t al_lock = PTHREAD_MUTEX_INITIALIZER;
static int al_state = AL_NOT_INITIALIZED;
static int listen_fd = -1;
static pthread_t al_thread;
static bool al_thread_joinable;
static char sock_path[64], sock_tmp[108];

static int get_state(void)
{
	int s;

	pthread_mutex_lock(&al_lock);
	s = al_state;
	pthread_mutex_unlock(&al_lock);
	return s;
}

static void set_state(int s)
{
	pthread_mutex_lock(&al_lock);
	al_state = s;
	pthread_mutex_unlock(&al_lock);
}

/* ---- one connection ------------------------------------------------------- */

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * Read "1\0name\0a0\0a1\0a2\0" as JDK 11-17 do: until 5 NULs, a full buffer
 * or EOF; the version is checked as soon as its NUL arrives.  Returns 0 and
 * fills s[] (pointers into buf), 1 after answering a bad version, -1 for a
 * silent close.
 */
static int read_request(int fd, char *buf, char *s[REQ_STRINGS])
{
	size_t off = 0, left = REQ_MAX;
	int strings = 0;
	char *p;

	do {
		ssize_t n = read(fd, buf + off, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[off + (size_t)i])
				continue;
			if (++strings == 1 && strcmp(buf, "1") != 0) {
				char msg[16];

				snprintf(msg, sizeof(msg), "%d\n", BAD_VERSION);
				write_all(fd, msg, strlen(msg));
				emu_log("request: version '%.8s' refused (101)", buf);
				return 1;
			}
		}
		off += (size_t)n;
		left -= (size_t)n;
	} while (left > 0 && strings < REQ_STRINGS);
	if (strings < REQ_STRINGS)
		return -1;
	p = buf;
	for (int i = 0; i < REQ_STRINGS; i++) {
		s[i] = p;
		p += strlen(p) + 1;
	}
	if (strlen(s[1]) > NAME_MAX_LEN)
		return -1;
	for (int i = 2; i < REQ_STRINGS; i++)
		if (strlen(s[i]) > ARG_MAX_LEN)
			return -1;
	return 0;
}

static void serve(int fd)
{
	char buf[REQ_MAX + 1], head[24], *s[REQ_STRINGS];
	struct ucred cr;
	socklen_t len = sizeof(cr);
	struct out o = { 0 };
	int rc;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
		emu_log("accept: SO_PEERCRED: %s: closed", strerror(errno));
		return;
	}
	if (cr.uid != 0 && (cr.uid != emu.euid || cr.gid != emu.egid)) {
		emu_log("accept: peer uid %d gid %d refused (we are %d:%d): closed",
			(int)cr.uid, (int)cr.gid, (int)emu.euid, (int)emu.egid);
		return;
	}
	memset(buf, 0, sizeof(buf));
	rc = read_request(fd, buf, s);
	if (rc < 0)
		emu_log("request from uid %d: short or over a limit: closed", (int)cr.uid);
	if (rc)
		return;
	emu_log("request from uid %d: %s '%s' '%s' '%s'", (int)cr.uid, s[1], s[2], s[3], s[4]);
	rc = ops_run(s, &o);
	snprintf(head, sizeof(head), "%d\n", rc);
	if (write_all(fd, head, strlen(head)) < 0 || (o.len && write_all(fd, o.p, o.len) < 0))
		emu_log("reply to %s: %s", s[1], strerror(errno));
	else
		emu_log("reply to %s: %d, %zu bytes", s[1], rc, o.len);
	free(o.p);
}

/* ---- the listener thread -------------------------------------------------- */

static int make_socket(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int rc;

	if (fd < 0)
		return -1;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock_tmp);
	unlink(sock_tmp);
	rc = bind(fd, (struct sockaddr *)&a, sizeof(a));
	if (rc == 0)
		rc = listen(fd, 5);
	if (rc == 0)
		rc = chmod(sock_tmp, 0600);
	if (rc == 0)
		rc = chown(sock_tmp, emu.euid, emu.egid);
	if (rc == 0)
		rc = rename(sock_tmp, sock_path);
	if (rc < 0) {
		emu_log("listener: cannot create %s: %s", sock_path, strerror(errno));
		close(fd);
		unlink(sock_tmp);
		return -1;
	}
	return fd;
}

static void *listener_main(void *arg)
{
	int fd;

	vm_attach_thread("Attach Listener");
	fd = make_socket();
	pthread_mutex_lock(&al_lock);
	listen_fd = fd;
	al_state = fd < 0 ? AL_NOT_INITIALIZED : AL_INITIALIZED;
	pthread_mutex_unlock(&al_lock);
	if (fd < 0)
		goto out;
	emu_log("listener: %s ready", sock_path);
	for (;;) {
		int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0 && errno == EINTR)
			continue;
		if (c < 0)
			break;
		serve(c);
		shutdown(c, SHUT_RDWR);
		close(c);
	}
	emu_log("listener: accept ended (%s): stopped", strerror(errno));
	set_state(AL_NOT_INITIALIZED);
out:
	vm_detach_thread();
	return NULL;
}

static bool trigger_valid(void)
{
	char fn[64];
	struct stat st;

	snprintf(fn, sizeof(fn), ".attach_pid%d", (int)emu.pid);
	if (stat(fn, &st) != 0) {
		snprintf(fn, sizeof(fn), "/tmp/.attach_pid%d", (int)emu.pid);
		if (stat(fn, &st) != 0) {
			emu_log("SIGQUIT: no trigger in the cwd or /tmp");
			return false;
		}
	}
	if (st.st_uid != 0 && st.st_uid != emu.euid) {
		emu_log("SIGQUIT: trigger %s owned by uid %d: ignored", fn, (int)st.st_uid);
		return false;
	}
	emu_log("SIGQUIT: trigger %s (uid %d) accepted", fn, (int)st.st_uid);
	return true;
}

static void start_listener(void)
{
	snprintf(sock_path, sizeof(sock_path), "/tmp/.java_pid%d", (int)emu.pid);
	snprintf(sock_tmp, sizeof(sock_tmp), "%s.tmp", sock_path);
	set_state(AL_INITIALIZING);
	if (pthread_create(&al_thread, NULL, listener_main, NULL) != 0) {
		emu_log("listener: cannot start its thread");
		set_state(AL_NOT_INITIALIZED);
		return;
	}
	al_thread_joinable = true;
}

/* The socket file was deleted: end the running listener (HotSpot's
 * listener_cleanup), so a valid trigger can start a new one. */
static void stop_listener(void)
{
	pthread_mutex_lock(&al_lock);
	if (listen_fd >= 0)
		shutdown(listen_fd, SHUT_RDWR);
	pthread_mutex_unlock(&al_lock);
	if (al_thread_joinable)
		pthread_join(al_thread, NULL);
	al_thread_joinable = false;
	pthread_mutex_lock(&al_lock);
	if (listen_fd >= 0)
		close(listen_fd);
	listen_fd = -1;
	al_state = AL_NOT_INITIALIZED;
	pthread_mutex_unlock(&al_lock);
}

void listener_on_sigquit(void)
{
	struct stat st;

	switch (get_state()) {
	case AL_INITIALIZING:
		emu_log("SIGQUIT: listener initializing: ignored");
		return;
	case AL_INITIALIZED:
		if (stat(sock_path, &st) == 0)
			break;
		emu_log("SIGQUIT: %s is gone: restarting the listener", sock_path);
		stop_listener();
		/* fall through */
	default:
		if (trigger_valid()) {
			start_listener();
			return;
		}
	}
	emu_print_thread_dump();
}

void listener_shutdown(void)
{
	if (get_state() == AL_INITIALIZED)
		unlink(sock_path);
}
