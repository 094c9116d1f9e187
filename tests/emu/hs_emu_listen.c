/*
 * hs_emu_listen.c - HotSpot's attach listener as JDK 11-17 run it on Linux
 * (PROTOCOLS.md A2-A8, A11), from that text alone.
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
 * for another version), the operation, "<rc>\n<output>", close.
 */
#include <dlfcn.h>
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

/* Libraries whose Agent_OnAttach returned 0 (once each). */
#define MAX_AGENTS 16
static void *agents[MAX_AGENTS];
static int n_agents;

struct out {
	char *p;
	size_t len, cap;
};

static void out_printf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (o->len + (size_t)n + 1 > o->cap) {
		size_t cap = (o->len + (size_t)n + 1) * 2;
		char *p = realloc(o->p, cap);

		if (!p)
			emu_abort("out of memory for a reply");
		o->p = p;
		o->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(o->p + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	o->len += (size_t)n;
}

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

/* ---- operations ----------------------------------------------------------- */

static void *open_agent(const char *lib, bool absolute, char *err, size_t errlen)
{
	char path[2048];
	void *h;

	err[0] = '\0';
	if (absolute) {
		h = dlopen(lib, RTLD_LAZY);
	} else {
		/* <java.home>/lib/lib<name>.so, then the loader's search path */
		struct stat st;

		h = NULL;
		snprintf(path, sizeof(path), "%s/lib/lib%s.so", emu.home, lib);
		if (stat(path, &st) == 0)
			h = dlopen(path, RTLD_LAZY);
		if (!h) {
			snprintf(path, sizeof(path), "lib%s.so", lib);
			h = dlopen(path, RTLD_LAZY);
		}
	}
	if (!h)
		snprintf(err, errlen, "%s", dlerror());
	return h;
}

/* JDK 11-20 `load` (jvmtiExport.cpp load_agent_library). */
static int op_load(const char *lib, const char *abs, const char *opts, struct out *o)
{
	typedef jint (JNICALL *on_attach_t)(JavaVM *, char *, void *);
	bool absolute = abs && strcmp(abs, "true") == 0;
	on_attach_t on_attach;
	char err[1024];
	void *h;
	jint rc;

	h = open_agent(lib, absolute, err, sizeof(err));
	if (!h) {
		emu_log("load %s: not loaded: %s", lib, err);
		out_printf(o, "%s was not loaded.\n", lib);
		if (err[0])
			out_printf(o, "%s\n", err);
		return -1;
	}
	*(void **)&on_attach = dlsym(h, "Agent_OnAttach");
	if (!on_attach) {
		emu_log("load %s: no Agent_OnAttach", lib);
		dlclose(h);
		out_printf(o, "Agent_OnAttach is not available in %s\n", lib);
		return -1;
	}
	emu_log("load %s: Agent_OnAttach(\"%s\")", lib, opts ? opts : "");
	rc = on_attach(vm_javavm(), (char *)(opts ? opts : ""), NULL);
	emu_log("load %s: Agent_OnAttach returned %d", lib, (int)rc);
	if (rc == 0) {
		int i;

		pthread_mutex_lock(&al_lock);
		for (i = 0; i < n_agents && agents[i] != h; i++)
			;
		if (i == n_agents && n_agents < MAX_AGENTS)
			agents[n_agents++] = h;
		pthread_mutex_unlock(&al_lock);
	}
	out_printf(o, "return code: %d\n", (int)rc);
	return 0;
}

static void properties(struct out *o, bool agent)
{
	out_printf(o, "#emulated by hs_emu\n");
	if (agent) {
		out_printf(o, "sun.jvm.args=\nsun.jvm.flags=\nsun.java.command=hs_emu\n");
		return;
	}
	out_printf(o, "java.version=%s\njava.vm.name=OpenJDK 64-Bit Server VM\n"
		   "java.vm.version=%s+0-hs_emu\njava.vendor=jsym tests\njava.home=%s\n"
		   "os.name=Linux\nsun.java.command=hs_emu\n",
		   HS_EMU_JAVA_VERSION, HS_EMU_JAVA_VERSION, emu.home);
}

static int run_op(char *const s[REQ_STRINGS], struct out *o)
{
	const char *name = s[1], *a0 = s[2];

	if (!strcmp(name, "load"))
		return op_load(a0, s[3], s[4], o);
	if (!strcmp(name, "properties") || !strcmp(name, "agentProperties")) {
		properties(o, name[0] == 'a');
		return 0;
	}
	if (!strcmp(name, "threaddump")) {
		char dump[4096];

		emu_thread_dump(dump, sizeof(dump));
		out_printf(o, "%s", dump);
		return 0;
	}
	if (!strcmp(name, "detachall"))
		return 0;
	if (!strcmp(name, "jcmd")) {
		if (a0 && !strcmp(a0, "VM.version")) {
			out_printf(o, "OpenJDK 64-Bit Server VM version %s+0-hs_emu\nJDK %s\n",
				   HS_EMU_JAVA_VERSION, HS_EMU_JAVA_VERSION);
			return 0;
		}
		out_printf(o, "java.lang.IllegalArgumentException: Unknown diagnostic command\n");
		return -1;
	}
	out_printf(o, "Operation %s not recognized!", name);
	return -1;
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
	rc = run_op(s, &o);
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

void listener_unload_agents(void)
{
	typedef void (JNICALL *on_unload_t)(JavaVM *);
	void *list[MAX_AGENTS];
	int n;

	pthread_mutex_lock(&al_lock);
	n = n_agents;
	memcpy(list, agents, sizeof(list));
	pthread_mutex_unlock(&al_lock);
	for (int i = 0; i < n; i++) {
		on_unload_t f;

		*(void **)&f = dlsym(list[i], "Agent_OnUnload");
		if (f) {
			emu_log("exit: Agent_OnUnload of agent %d", i);
			f(vm_javavm());
		}
	}
}
