/* SPDX-License-Identifier: Apache-2.0 */
/*
 * agent.c - JVMTI entry points of libjsym-agent.so.
 *
 * Agent_OnLoad (-agentpath:lib=OPTS) enables the events at once and asks
 * for a replay at VMInit; Agent_OnAttach (a late `load`) enables them and
 * replays with GenerateEvents, then keeps streaming.  HotSpot calls
 * Agent_OnAttach again on every `load` of the same library: the second call
 * finds the sink running and only refreshes (EPOCH 2 + a replay that the
 * sink deduplicates), or restarts when dir/unfold changed, or stops on
 * `stop`.  Names are resolved inside the callbacks.
 *
 * With `jitdump` and `lines`, each compiled method's DEBUG_INFO (source
 * lines, jitlines.h) is built before its load is recorded.
 *
 * Return codes of Agent_OnLoad / Agent_OnAttach (docs/agent.md):
 *   0 ok, 1 invalid options, 2 JVMTI refused (env, capability, events),
 *   3 outputs (directory, files, flush thread).
 * On failure nothing stays enabled, so the JVM may unload the library.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <jvmti.h>

#include "agent_abi.h"
#include "agentlog.h"
#include "bbuf.h"
#include "codeheap.h"
#include "frames.h"
#include "jitlines.h"
#include "journal.h"
#include "methodinfo.h"
#include "options.h"
#include "sink.h"
#include "unfold.h"

#define EXPORT __attribute__((visibility("default")))

enum { RC_OK = 0, RC_OPTIONS = 1, RC_JVMTI = 2, RC_OUTPUT = 3 };

static pthread_mutex_t life = PTHREAD_MUTEX_INITIALIZER;
static JavaVM *java_vm;
static jvmtiEnv *jvmti;
static struct agent_opts cur;
static volatile bool unfold_on;
static volatile bool lines_on;
static volatile bool jitlines_on;  /* jitdump with lines: DEBUG_INFO records */
static bool lines_caps;        /* can_get_line_numbers and can_get_source_file_name */

static const jvmtiEvent code_events[] = {
	JVMTI_EVENT_COMPILED_METHOD_LOAD,
	JVMTI_EVENT_COMPILED_METHOD_UNLOAD,
	JVMTI_EVENT_DYNAMIC_CODE_GENERATED,
};

/* ---- callbacks ------------------------------------------------------------ */

/* Strings of one method of a chain, owned by struct chains. */
struct emit_method {
	char *strs;                   /* cls\0name\0sig\0display\0file\0 */
	struct frames_line *lines;
};

static void fill_method(jvmtiEnv *j, jmethodID id, bool lines, struct method_info *mi,
			struct emit_method *em, struct frames_method *fm)
{
	char file[256] = "";
	size_t l[5];
	char *p;

	methodinfo_resolve(j, id, mi);
	if (lines)
		methodinfo_source(j, id, file, sizeof(file), &em->lines, &fm->n_lines);
	l[0] = strlen(mi->cls) + 1;
	l[1] = strlen(mi->name) + 1;
	l[2] = strlen(mi->sig) + 1;
	l[3] = strlen(mi->display) + 1;
	l[4] = strlen(file) + 1;
	em->strs = p = malloc(l[0] + l[1] + l[2] + l[3] + l[4]);
	fm->lines = em->lines;
	if (!p)
		return; /* the method's names stay "" */
	fm->cls = memcpy(p, mi->cls, l[0]);
	fm->name = memcpy(p += l[0], mi->name, l[1]);
	fm->sig = memcpy(p += l[1], mi->sig, l[2]);
	fm->display = memcpy(p += l[2], mi->display, l[3]);
	fm->file = memcpy(p + l[3], file, l[4]);
}

/* The inline chains of one compiled method with its methods' names (and,
 * with `lines`, source files and line tables), resolved in the callback. */
struct chains {
	struct unfold_info u;
	struct emit_method *em;
	struct frames_method *fm;
	struct method_info *mi;
	uint64_t ts;              /* when collected: the DEBUG_INFO's time */
	bool lines, ok;
};

static void chains_free(struct chains *c)
{
	for (uint32_t i = 0; c->em && i < c->u.n_methods; i++) {
		free(c->em[i].strs);
		free(c->em[i].lines);
	}
	free(c->em);
	free(c->fm);
	free(c->mi);
	unfold_free(&c->u);
	memset(c, 0, sizeof(*c));
}

/* Fill *c (zeroed by the caller); c->ok when there are chains to encode. */
static void chains_collect(jvmtiEnv *j, jmethodID root, uint64_t code_start,
			   uint64_t code_size, const void *compile_info, struct chains *c)
{
	c->ts = journal_now();
	c->lines = lines_on;
	if (unfold_chains(root, code_start, code_size, compile_info, &c->u) <= 0)
		return;
	c->mi = malloc(sizeof(*c->mi));
	c->em = calloc(c->u.n_methods, sizeof(*c->em));
	c->fm = calloc(c->u.n_methods, sizeof(*c->fm));
	if (!c->mi || !c->em || !c->fm)
		return;
	for (uint32_t i = 0; i < c->u.n_methods; i++)
		fill_method(j, c->u.methods[i], c->lines, c->mi, &c->em[i], &c->fm[i]);
	c->ok = true;
}

/* The chains as FRAMES records of LOAD parent_id, to the sink. */
static void chains_emit(const struct chains *c, uint64_t parent_id, uint64_t code_start)
{
	struct bbuf b = { 0 };
	int n;

	if (!c->ok)
		return;
	/* stamped now, after its LOAD, even when the chains were collected
	 * before it (for the jitdump) */
	n = frames_encode(&b, journal_now(), parent_id, code_start, &c->u, c->fm, c->lines);
	if (n > 0)
		sink_record_raw(parent_id, b.data, b.len, (unsigned)n);
	bbuf_free(&b);
}

/*
 * With `unfold`, the chains are encoded here and handed to the sink as
 * whole FRAMES records.  With `jitdump` and `lines` they are collected
 * first: their source lines become the JIT_CODE_DEBUG_INFO that must
 * precede the code's CODE_LOAD (jitlines.h), and the same chains then give
 * the FRAMES records.  A replay of code already live skips that work.
 */
static void JNICALL on_compiled_load(jvmtiEnv *j, jmethodID method, jint code_size,
				     const void *code_addr, jint map_length,
				     const jvmtiAddrLocationMap *map, const void *compile_info)
{
	uint64_t start = (uint64_t)(uintptr_t)code_addr, size = (uint64_t)(uint32_t)code_size;
	struct chains c = { 0 };
	struct bbuf dbg = { 0 };
	struct method_info mi;
	bool collected = false;
	uint64_t id;

	/* instructions and stubs, as Compiler.codelist (codeheap.h) */
	size = codeheap_code_size(start, size, methodinfo_jvmti_major(j));
	methodinfo_resolve(j, method, &mi);
	if (unfold_on && jitlines_on && compile_info &&
	    !sink_has_load((uintptr_t)method, start, size)) {
		chains_collect(j, method, start, size, compile_info, &c);
		collected = true;
		if (c.ok && jitlines_encode(&dbg, c.ts, start, &c.u, c.fm) < 0)
			bbuf_clear(&dbg);
	}
	id = sink_record_load_dbg((uintptr_t)method, start, size, mi.cls, mi.name, mi.sig,
				  mi.display, dbg.data, dbg.len);
	if (id && unfold_on && compile_info) {
		if (!collected)
			chains_collect(j, method, start, size, compile_info, &c);
		chains_emit(&c, id, start);
	}
	chains_free(&c);
	bbuf_free(&dbg);
}

static void JNICALL on_compiled_unload(jvmtiEnv *j, jmethodID method, const void *code_addr)
{
	sink_record_unload((uintptr_t)method, (uint64_t)(uintptr_t)code_addr);
}

static void JNICALL on_dynamic_code(jvmtiEnv *j, const char *name, const void *address,
				    jint length)
{
	sink_record_stub((uint64_t)(uintptr_t)address, (uint64_t)(uint32_t)length,
			 name ? name : "<unnamed stub>");
}

/* ---- the flush thread: a JVMTI agent thread -------------------------------- */

static void JNICALL flush_thread_main(jvmtiEnv *j, JNIEnv *jni, void *arg)
{
	sink_flush_loop();
}

/*
 * Start "jsym-flush" as a daemon agent thread (visible in thread dumps).
 * Not a pthread: before glibc 2.34 pthread_create is in libpthread.so.0,
 * after it in libc.so.6, and a versioned reference to either file fails to
 * bind in some JVMs' symbol search order.  Needs a JNIEnv: call it from a
 * Java thread in the live phase (Agent_OnAttach, VMInit).
 */
static int spawn_flush_thread(struct err_text *why)
{
	JNIEnv *jni = NULL;
	jclass cls;
	jmethodID ctor;
	jstring name;
	jobject thread = NULL;
	jvmtiError err;

	if ((*java_vm)->GetEnv(java_vm, (void **)&jni, JNI_VERSION_1_6) != JNI_OK || !jni) {
		err_set(why, 0, "cannot start the flush thread: no JNI environment here");
		return -EINVAL;
	}
	cls = (*jni)->FindClass(jni, "java/lang/Thread");
	ctor = cls ? (*jni)->GetMethodID(jni, cls, "<init>", "(Ljava/lang/String;)V") : NULL;
	name = ctor ? (*jni)->NewStringUTF(jni, "jsym-flush") : NULL;
	if (name)
		thread = (*jni)->NewObject(jni, cls, ctor, name);
	if (!thread || (*jni)->ExceptionCheck(jni)) {
		(*jni)->ExceptionClear(jni);
		err_set(why, 0, "cannot start the flush thread: cannot create a "
			 "java.lang.Thread (out of memory?)");
		return -ENOMEM;
	}
	err = (*jvmti)->RunAgentThread(jvmti, thread, flush_thread_main, NULL,
				       JVMTI_THREAD_NORM_PRIORITY);
	(*jni)->DeleteLocalRef(jni, thread);
	(*jni)->DeleteLocalRef(jni, name);
	(*jni)->DeleteLocalRef(jni, cls);
	if (err != JVMTI_ERROR_NONE) {
		err_set(why, 0, "cannot start the flush thread: RunAgentThread error %d",
			 (int)err);
		return -EAGAIN;
	}
	return 0;
}

/* Replay everything already compiled; the sink drops what it already has. */
static void replay(jvmtiEnv *j, uint64_t epoch_reason)
{
	struct sink_stats before, after;
	uint64_t t0 = journal_now(), t1;
	jvmtiError e1, e2;

	if (epoch_reason)
		sink_record_epoch(epoch_reason);
	sink_get_stats(&before);
	e1 = (*j)->GenerateEvents(j, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
	e2 = (*j)->GenerateEvents(j, JVMTI_EVENT_COMPILED_METHOD_LOAD);
	t1 = journal_now();
	sink_sync();
	sink_get_stats(&after);
	agentlog("replay (epoch %llu): %llu methods, %llu stubs new, %llu already known, "
		 "%llu live entries, GenerateEvents %.1f ms, on disk after %.1f ms%s",
		 (unsigned long long)epoch_reason,
		 (unsigned long long)(after.loads - before.loads),
		 (unsigned long long)(after.stubs - before.stubs),
		 (unsigned long long)(after.dups - before.dups),
		 (unsigned long long)after.map_lines, (double)(t1 - t0) / 1e6,
		 (double)(journal_now() - t0) / 1e6,
		 (e1 || e2) ? " (GenerateEvents failed; only new code will be seen)" : "");
}

static void JNICALL on_vm_init(jvmtiEnv *j, JNIEnv *jni, jthread thread)
{
	struct err_text why = { "" };

	pthread_mutex_lock(&life);
	if (sink_running()) {
		/* Until now (no Java threads before VMInit) records only queued. */
		if (sink_run_thread(spawn_flush_thread, &why) < 0)
			agentlog("flushing only at JVM exit and on attach: %s", why.msg);
		replay(j, 0);
	}
	pthread_mutex_unlock(&life);
}

/* ---- setup ---------------------------------------------------------------- */

static int set_events(jvmtiEventMode mode, bool vm_init)
{
	int rc = 0;

	for (size_t i = 0; i < sizeof(code_events) / sizeof(code_events[0]); i++)
		if ((*jvmti)->SetEventNotificationMode(jvmti, mode, code_events[i], NULL))
			rc = -1;
	if (vm_init &&
	    (*jvmti)->SetEventNotificationMode(jvmti, mode, JVMTI_EVENT_VM_INIT, NULL))
		rc = -1;
	return rc;
}

/* Get a JVMTI env with our capability and callbacks.  1 = new env. */
static int setup_env(JavaVM *vm, struct err_text *why)
{
	jvmtiCapabilities caps;
	jvmtiEventCallbacks cb;
	jvmtiError err;
	jint rc;

	if (jvmti)
		return 0;
	rc = (*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2);
	if (rc != JNI_OK || !jvmti) {
		jvmti = NULL;
		err_set(why, 0, "JVMTI 1.2 not available (GetEnv returned %d): not a "
			 "HotSpot-compatible JVM?", (int)rc);
		return -1;
	}
	memset(&caps, 0, sizeof(caps));
	caps.can_generate_compiled_method_load_events = 1;
	err = (*jvmti)->AddCapabilities(jvmti, &caps);
	if (err == JVMTI_ERROR_NONE) {
		memset(&cb, 0, sizeof(cb));
		cb.CompiledMethodLoad = on_compiled_load;
		cb.CompiledMethodUnload = on_compiled_unload;
		cb.DynamicCodeGenerated = on_dynamic_code;
		cb.VMInit = on_vm_init;
		err = (*jvmti)->SetEventCallbacks(jvmti, &cb, (jint)sizeof(cb));
	}
	if (err == JVMTI_ERROR_NONE) {
		/* For `lines`; HotSpot always grants both (they cost nothing), and
		 * a JVM that does not still gets chains, without lines. */
		memset(&caps, 0, sizeof(caps));
		caps.can_get_line_numbers = 1;
		caps.can_get_source_file_name = 1;
		lines_caps = (*jvmti)->AddCapabilities(jvmti, &caps) == JVMTI_ERROR_NONE;
	}
	if (err != JVMTI_ERROR_NONE) {
		err_set(why, 0, "JVMTI refused can_generate_compiled_method_load_events "
			 "or the callbacks (error %d)", (int)err);
		(*jvmti)->DisposeEnvironment(jvmti);
		jvmti = NULL;
		return -1;
	}
	return 1;
}

static void stop_agent(const char *why)
{
	if (jvmti)
		set_events(JVMTI_DISABLE, false);
	if (sink_running())
		agentlog("stopping: %s", why);
	sink_stop();
}

static int start_agent(JavaVM *vm, const char *options, bool at_startup)
{
	struct agent_opts o;
	struct err_text why = { "" };
	int fresh_env;

	if (options_parse(options, &o, &why) < 0) {
		agentlog("%s failed: invalid options: %s", at_startup ? "Agent_OnLoad" :
			 "Agent_OnAttach", why.msg);
		return RC_OPTIONS;
	}
	if (o.stop) {
		if (!sink_running())
			agentlog("stop requested, but the agent is not running");
		stop_agent("stop requested");
		return RC_OK;
	}
	if (sink_running()) {
		if (strcmp(o.dir, cur.dir) == 0 && o.unfold == cur.unfold &&
		    o.lines == cur.lines && o.jitdump == cur.jitdump) {
			cur = o;
			sink_update(&o);
			agentlog("attached again: refreshing (flush_ms=%u)", o.flush_ms);
			replay(jvmti, JF_EPOCH_REFRESH);
			return RC_OK;
		}
		stop_agent("attached again with another dir=, unfold, lines or jitdump: "
			   "restarting");
	}
	java_vm = vm;
	fresh_env = setup_env(vm, &why);
	if (fresh_env < 0) {
		agentlog("load failed: %s", why.msg);
		return RC_JVMTI;
	}
	unfold_on = o.unfold;
	lines_on = o.lines && lines_caps;
	jitlines_on = o.jitdump && lines_on;
	if (o.lines && !lines_caps)
		agentlog("lines: JVMTI refused can_get_line_numbers/can_get_source_file_name; "
			 "chains are recorded without source lines");
	if (sink_start(&o, &why) < 0)
		goto fail_output;
	cur = o;
	if (set_events(JVMTI_ENABLE, at_startup) < 0) {
		agentlog("load failed: JVMTI refused to enable the code events");
		set_events(JVMTI_DISABLE, at_startup);
		sink_stop();
		goto fail_env;
	}
	if (!at_startup) {
		if (sink_run_thread(spawn_flush_thread, &why) < 0) {
			set_events(JVMTI_DISABLE, false);
			sink_stop();
			goto fail_output;
		}
		replay(jvmti, JF_EPOCH_ATTACHED);
	}
	return RC_OK;

fail_output:
	agentlog("load failed: %s", why.msg);
	if (fresh_env) {
		(*jvmti)->DisposeEnvironment(jvmti);
		jvmti = NULL;
	}
	return RC_OUTPUT;
fail_env:
	if (fresh_env) {
		(*jvmti)->DisposeEnvironment(jvmti);
		jvmti = NULL;
	}
	return RC_JVMTI;
}

/* ---- exported ------------------------------------------------------------- */

EXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	int rc;

	pthread_mutex_lock(&life);
	rc = start_agent(vm, options, true);
	pthread_mutex_unlock(&life);
	return rc == RC_OK ? JNI_OK : JNI_ERR;
}

EXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
	int rc;

	pthread_mutex_lock(&life);
	rc = start_agent(vm, options, false);
	pthread_mutex_unlock(&life);
	return rc;
}

EXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
	pthread_mutex_lock(&life);
	if (sink_running())
		agentlog("JVM exiting");
	sink_stop();
	pthread_mutex_unlock(&life);
}

EXPORT int jsym_agent_probe(void);

/* Lets an attacher check, after dlopen in the target's environment, that
 * this build loads there and is jsym's agent ("JSYM"). */
EXPORT int jsym_agent_probe(void)
{
	return JSYM_AGENT_PROBE_VALUE;
}
