/* SPDX-License-Identifier: Apache-2.0 */
/*
 * openj9_emu_serve.c - one attachment of the OpenJ9 emulator (B7, B8).
 *
 * Connects to 127.0.0.1:<port> from the emulator's own net ns, sends
 * "ATTACH_CONNECTED <key> " + NUL, then reads commands (a message is done
 * when a read chunk ends in NUL; EOF before that ends the attachment) and
 * answers each with one NUL-terminated message.  Agent loads really dlopen
 * and call Agent_OnAttach(NULL, options, NULL); the same library name again
 * re-runs Agent_OnAttach without reopening (loadCount++).
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "openj9_emu.h"

#define MSG_MAX (1024 * 1024)

struct attach_job {
	char key[128];
	int port;
};

struct loaded {
	char *name;
	void *handle;
	int (*on_attach)(void *vm, char *options, void *reserved);
	int count;
	struct loaded *next;
};

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static struct loaded *loaded_list;
static int loads_ok;

static int send_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Send text plus its NUL terminator and log the first line. */
static int reply(int fd, const char *text)
{
	emu_log("reply %.*s", (int)strcspn(text, "\n"), text);
	return send_all(fd, text, strlen(text) + 1);
}

/* Read until a chunk ends in NUL.  Returns malloc'd text or NULL on EOF. */
static char *read_command(int fd)
{
	size_t cap = 1024, len = 0;
	char *b = malloc(cap);

	while (b) {
		ssize_t r;

		if (len == cap) {
			char *nb = cap >= MSG_MAX ? NULL : realloc(b, cap * 2);

			if (!nb)
				break;
			b = nb;
			cap *= 2;
		}
		r = recv(fd, b + len, cap - len, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		if (b[len - 1] == '\0')
			return b;
	}
	free(b);
	return NULL;
}

static void *find_library(const char *name, bool decorate)
{
	char p[2200];
	void *h;

	if (!decorate)
		return dlopen(name, RTLD_NOW | RTLD_LOCAL);
	/* like the JDK lib dir first, then the OS search path */
	snprintf(p, sizeof(p), "%s/lib%s.so", emu.self_dir, name);
	h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(p, sizeof(p), "lib%s.so", name);
		h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
	}
	return h;
}

/* B8 load: name up to the first ',', else up to the last ')'. */
static void do_load(int fd, const char *cmd, bool decorate)
{
	const char *open_p = strchr(cmd, '('), *close_p = strrchr(cmd, ')'), *comma;
	char *name, *opts = NULL, out[4600];
	struct loaded *l;
	int rc;

	if (!open_p || !close_p || close_p < open_p) {
		reply(fd, "ATTACH_ERR syntax error");
		return;
	}
	comma = memchr(open_p, ',', (size_t)(close_p - open_p));
	name = strndup(open_p + 1, (size_t)((comma ? comma : close_p) - open_p - 1));
	if (comma)
		opts = strndup(comma + 1, (size_t)(close_p - comma - 1));
	if (!name || !name[0]) {
		reply(fd, "ATTACH_ERR invalid agent name");
		goto out;
	}
	pthread_mutex_lock(&load_lock);
	for (l = loaded_list; l && strcmp(l->name, name) != 0; l = l->next)
		;
	if (!l) {
		void *h = find_library(name, decorate);
		void *sym = h ? dlsym(h, "Agent_OnAttach") : NULL;

		if (!sym) {
			pthread_mutex_unlock(&load_lock);
			emu_log("load lib=%s failed: %s", name, h ? "no Agent_OnAttach" : dlerror());
			if (h)
				dlclose(h);
			snprintf(out, sizeof(out), "ATTACH_ERR AgentLoadException %s:%s", name,
				 opts ? opts : "");
			reply(fd, out);
			goto out;
		}
		l = calloc(1, sizeof(*l));
		l->name = strdup(name);
		l->handle = h;
		*(void **)&l->on_attach = sym;
		l->next = loaded_list;
		loaded_list = l;
	}
	l->count++;
	rc = l->on_attach(NULL, opts ? opts : "", NULL);
	emu_log("load lib=%s opts=%s rc=%d count=%d", name, opts ? opts : "", rc, l->count);
	if (rc == 0 && loads_ok++ == 0)
		fprintf(stderr, "WARNING: A JVM TI agent has been loaded dynamically (%s)\n"
			"WARNING: If a serviceability tool is in use, please run with "
			"-XX:+EnableDynamicAgentLoading to hide this warning\n"
			"WARNING: If a serviceability tool is not in use, please run with "
			"-Djdk.instrument.traceUsage for more information\n"
			"WARNING: Dynamic loading of agents will be disallowed by default in a "
			"future release\n", opts ? opts : "");
	pthread_mutex_unlock(&load_lock);
	if (rc == 0) {
		reply(fd, "ATTACH_ACK");
	} else if (rc == -1) {
		snprintf(out, sizeof(out), "ATTACH_ERR AgentLoadException %s:%s", name,
			 opts ? opts : "");
		reply(fd, out);
	} else {
		fprintf(stderr, "agent %s: Agent_OnAttach returned %d\n", name, rc);
		snprintf(out, sizeof(out), "ATTACH_ERR AgentInitializationException%d", rc);
		reply(fd, out);
	}
out:
	free(name);
	free(opts);
}

static char *canned_thread_dump(void)
{
	char *b = NULL;
	FILE *f = emu.diag_path ? fopen(emu.diag_path, "r") : NULL;

	if (f) {
		size_t cap = 0;
		ssize_t n = getdelim(&b, &cap, '\0', f);

		fclose(f);
		if (n > 0)
			return b;
		free(b);
	}
	return strdup("\"main\" J9VMThread:0x00000000000ABC00, omrthread_t:0x00007F0000001000, "
		      "java/lang/Thread:0x00000000FFF00000, state:R, prio=5\n"
		      "\tat Emu.spin(Emu.java:42)\n\tat Emu.main(Emu.java:7)\n");
}

static void send_props(int fd, const char *const kv[], size_t n)
{
	char *b = NULL;
	size_t len = 0, cap = 0, i;

	if (emu_prop_header(&b, &len, &cap) < 0)
		return;
	for (i = 0; i + 1 < n; i += 2)
		if (emu_prop(&b, &len, &cap, kv[i], kv[i + 1]) < 0)
			break;
	emu_log("reply properties %zu bytes", len);
	send_all(fd, b, len + 1);
	free(b);
}

static void do_diag(int fd, const char *cmd)
{
	char *c = strdup(cmd), *root = c, *text = NULL, msg[600];
	const char *result = NULL;

	c[strcspn(c, ",")] = '\0';
	if (strcmp(root, "Thread.print") == 0)
		result = text = canned_thread_dump();
	else if (strcmp(root, "help") == 0)
		result = "help\nThread.print\nGC.run\nGC.class_histogram\nDump.heap\nDump.java\n";
	else if (strcmp(root, "GC.run") == 0)
		result = "Command succeeded";
	else if (strcmp(root, "GC.class_histogram") == 0)
		result = " num   object count  total size    class name\n"
			 "-------------------------------------------------\n"
			 "   1      42        1344     [C\n";
	else if (strcmp(root, "Dump.java") == 0 || strcmp(root, "Dump.heap") == 0)
		result = "Dump written to /tmp/emulated.dump";
	if (result) {
		const char *kv[] = { "openj9_diagnostics.error", "false",
				     "openj9_diagnostics.string_result", result,
				     "command_string", cmd };

		send_props(fd, kv, 6);
	} else {
		const char *kv[] = { "openj9_diagnostics.error", "true",
				     "openj9_diagnostics.errortype",
				     "java.lang.IllegalArgumentException",
				     "openj9_diagnostics.errormsg", msg, "command_string", cmd };

		snprintf(msg, sizeof(msg), "Command %s not recognized", root);
		send_props(fd, kv, 8);
	}
	free(text);
	free(c);
}

/* One command; returns false when the attachment ends. */
static bool serve(int fd, const char *cmd)
{
	static const char *agent_kv[] = {
		"sun.jvm.args", "-Xmx64m -Dcom.ibm.tools.attach.enable=yes",
		"sun.java.command", "Emu busy loop", "com.ibm.tools.attach.id", NULL,
	};
	char out[600];

	emu_log("cmd %s", cmd);
	if (emu.reply_delay_ms && strncmp(cmd, "ATTACH_DETACH", 13) != 0)
		usleep((useconds_t)emu.reply_delay_ms * 1000);
	if (strncmp(cmd, "ATTACH_DETACH", 13) == 0) {
		reply(fd, "ATTACH_DETACHED");
		return false;
	}
	if (strncmp(cmd, "ATTACH_LOADAGENTLIBRARY", 23) == 0)
		do_load(fd, cmd, true);
	else if (strncmp(cmd, "ATTACH_LOADAGENTPATH", 20) == 0)
		do_load(fd, cmd, false);
	else if (strncmp(cmd, "ATTACH_LOADAGENT", 16) == 0)
		do_load(fd, cmd, true);
	else if (strncmp(cmd, "ATTACH_GETSYSTEMPROPERTIES", 26) == 0) {
		const char *kv[] = { "java.vm.name", "Eclipse OpenJ9 VM", "java.vm.vendor",
				     "Eclipse OpenJ9", "java.version", "17.0.99-emu",
				     "java.io.tmpdir", emu.tmp, "path.separator", ":",
				     "emu.display", emu.display };

		send_props(fd, kv, 12);
	} else if (strncmp(cmd, "ATTACH_GETAGENTPROPERTIES", 25) == 0) {
		const char *kv[6];

		memcpy(kv, agent_kv, sizeof(kv));
		kv[5] = emu.vmid;
		send_props(fd, kv, 6);
	} else if (strncmp(cmd, "ATTACH_START_LOCAL_MANAGEMENT_AGENT", 35) == 0)
		reply(fd, "ATTACH_RESULT=service:jmx:rmi://127.0.0.1/emulated");
	else if (strncmp(cmd, "ATTACH_START_MANAGEMENT_AGENT", 29) == 0)
		reply(fd, "ATTACH_ACK");
	else if (strncmp(cmd, "ATTACH_DIAGNOSTICS:", 19) == 0)
		do_diag(fd, cmd + 19);
	else {
		snprintf(out, sizeof(out), "ATTACH_ERR command invalid: %.500s", cmd);
		reply(fd, out);
	}
	return true;
}

static void *attachment(void *arg)
{
	struct attach_job *job = arg;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)job->port) };
	char hello[200];
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char *cmd;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		emu_log("connect port=%d failed: %s", job->port, strerror(errno));
		goto out;
	}
	snprintf(hello, sizeof(hello), "ATTACH_CONNECTED %s ", job->key);
	emu_log("connected port=%d sent ATTACH_CONNECTED key=%s", job->port, job->key);
	if (send_all(fd, hello, strlen(hello) + 1) < 0)
		goto out;
	while ((cmd = read_command(fd))) {
		bool more = serve(fd, cmd);

		free(cmd);
		if (!more)
			break;
	}
	emu_log("attachment port=%d ended", job->port);
out:
	if (fd >= 0)
		close(fd);
	free(job);
	return NULL;
}

void emu_attach_start(const char *key, int port)
{
	struct attach_job *job = calloc(1, sizeof(*job));
	pthread_t th;

	if (!job)
		return;
	snprintf(job->key, sizeof(job->key), "%s", key);
	job->port = port;
	if (pthread_create(&th, NULL, attachment, job) == 0)
		pthread_detach(th);
	else
		free(job);
}
