/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hs_emu_ops.c - the attach operations of JDK 17 (attachListener.cpp's
 * table), as far as the tests need them:
 *
 *   load LIB ABS OPTS   dlopen LIB (ABS "true": as given; else
 *                       <java.home>/lib/libLIB.so, then libLIB.so on the
 *                       loader's path), call Agent_OnAttach(vm, OPTS) on
 *                       the listener thread: "return code: N\n", rc 0.
 *                       Not loaded: "LIB was not loaded.\n<dlerror>\n",
 *                       rc -1; no Agent_OnAttach: "Agent_OnAttach is not
 *                       available in LIB\n", rc -1.  Loading the same
 *                       library again calls Agent_OnAttach again (A11).
 *   properties, agentProperties   a few properties (Properties.store form)
 *   threaddump          the dump into the reply
 *   jcmd VM.version     the version; other jcmd commands fail like HotSpot
 *   detachall           nothing, rc 0
 *   anything else       "Operation X not recognized!", rc -1 (getversion
 *                       included: JDK 17 predates it)
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hs_emu.h"

/* Libraries whose Agent_OnAttach returned 0 (once each). */
#define MAX_AGENTS 16
static pthread_mutex_t agents_lock = PTHREAD_MUTEX_INITIALIZER;
static void *agents[MAX_AGENTS];
static int n_agents;

void out_printf(struct out *o, const char *fmt, ...)
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

		pthread_mutex_lock(&agents_lock);
		for (i = 0; i < n_agents && agents[i] != h; i++)
			;
		if (i == n_agents && n_agents < MAX_AGENTS)
			agents[n_agents++] = h;
		pthread_mutex_unlock(&agents_lock);
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

int ops_run(char *const s[5], struct out *o)
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

void listener_unload_agents(void)
{
	typedef void (JNICALL *on_unload_t)(JavaVM *);
	void *list[MAX_AGENTS];
	int n;

	pthread_mutex_lock(&agents_lock);
	n = n_agents;
	memcpy(list, agents, sizeof(list));
	pthread_mutex_unlock(&agents_lock);
	for (int i = 0; i < n; i++) {
		on_unload_t f;

		*(void **)&f = dlsym(list[i], "Agent_OnUnload");
		if (f) {
			emu_log("exit: Agent_OnUnload of agent %d", i);
			f(vm_javavm());
		}
	}
}
