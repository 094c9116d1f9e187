/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hs_emu_jvmti.c - jvmtiEnv: capabilities, callbacks, event enabling, the
 * method/class queries, memory, agent threads, and event posting.
 *
 * Implemented here: GetVersionNumber, GetPhase, GetPotentialCapabilities,
 * AddCapabilities, GetCapabilities, RelinquishCapabilities,
 * SetEventCallbacks, SetEventNotificationMode, GenerateEvents,
 * RunAgentThread, DisposeEnvironment; in hs_emu_jvmti_query.c: Allocate,
 * Deallocate, GetMethodName, GetMethodDeclaringClass, GetClassSignature.
 * Every other slot: hs_emu_stubs.c.
 *
 * The JVMTI rules the agent relies on, as HotSpot applies them: the only
 * potential capability is can_generate_compiled_method_load_events, and the
 * compiled-method events and GenerateEvents(CompiledMethodLoad) need it; an
 * event reaches an env only if it enabled it and set a callback; callbacks
 * run on attached threads; GenerateEvents replays to the calling env only,
 * on the calling thread, and returns after the callbacks.  The phase is
 * always live (VMInit may be enabled but is never posted: it is past).
 *
 * Envs are never freed (DisposeEnvironment marks them dead), so a callback
 * in flight on another thread never sees freed memory; callbacks run with
 * no lock of ours held.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_emu.h"

#define MAX_ENVS 16
#define JENV_MAGIC 0x4a544921u

struct jenv {
	const struct jvmtiInterface_1_ *functions;   /* jvmtiEnv points here */
	uint32_t magic;
	int index;
	bool live;
	jvmtiCapabilities caps;
	jvmtiEventCallbacks cb;
	bool enabled[JVMTI_MAX_EVENT_TYPE_VAL + 1];
};

static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;
static struct jenv envs[MAX_ENVS];
static int n_envs;
static struct jvmtiInterface_1_ table;

static jvmtiCapabilities potential(void)
{
	jvmtiCapabilities c;

	memset(&c, 0, sizeof(c));
	c.can_generate_compiled_method_load_events = 1;
	return c;
}

static struct jenv *env_of(jvmtiEnv *e)
{
	struct jenv *j = (struct jenv *)e;

	if (!j || j < envs || j >= envs + MAX_ENVS || j->magic != JENV_MAGIC || !j->live)
		return NULL;
	return j;
}

#define ENV_OR_FAIL(j, e)                                  \
	struct jenv *j = env_of(e);                        \
	if (!j)                                            \
		return JVMTI_ERROR_INVALID_ENVIRONMENT

bool jvmti_env_ok(jvmtiEnv *e)
{
	return env_of(e) != NULL;
}

static bool has_cml_cap(struct jenv *j)
{
	bool r;

	pthread_mutex_lock(&env_lock);
	r = j->caps.can_generate_compiled_method_load_events;
	pthread_mutex_unlock(&env_lock);
	return r;
}

/* ---- capabilities, callbacks, events ---------------------------------------- */

static jvmtiError JNICALL get_version_number(jvmtiEnv *e, jint *v)
{
	ENV_OR_FAIL(j, e);
	if (!v)
		return JVMTI_ERROR_NULL_POINTER;
	*v = JVMTI_VERSION;
	return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL get_phase(jvmtiEnv *e, jvmtiPhase *p)
{
	ENV_OR_FAIL(j, e);
	if (!p)
		return JVMTI_ERROR_NULL_POINTER;
	*p = JVMTI_PHASE_LIVE;
	return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL get_potential_capabilities(jvmtiEnv *e, jvmtiCapabilities *c)
{
	ENV_OR_FAIL(j, e);
	if (!c)
		return JVMTI_ERROR_NULL_POINTER;
	*c = potential();
	return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL add_capabilities(jvmtiEnv *e, const jvmtiCapabilities *want)
{
	jvmtiCapabilities pot = potential();
	const unsigned char *w = (const unsigned char *)want, *p = (unsigned char *)&pot;
	unsigned char *have;

	ENV_OR_FAIL(j, e);
	if (!want)
		return JVMTI_ERROR_NULL_POINTER;
	for (size_t i = 0; i < sizeof(pot); i++)
		if (w[i] & ~p[i]) {
			emu_log("AddCapabilities: byte %zu bits 0x%02x not available", i,
				(unsigned)(w[i] & ~p[i]));
			return JVMTI_ERROR_NOT_AVAILABLE;
		}
	pthread_mutex_lock(&env_lock);
	have = (unsigned char *)&j->caps;
	for (size_t i = 0; i < sizeof(pot); i++)
		have[i] |= w[i];
	pthread_mutex_unlock(&env_lock);
	return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL relinquish_capabilities(jvmtiEnv *e, const jvmtiCapabilities *drop)
{
	const unsigned char *d = (const unsigned char *)drop;
	unsigned char *have;

	ENV_OR_FAIL(j, e);
	if (!drop)
		return JVMTI_ERROR_NULL_POINTER;
	pthread_mutex_lock(&env_lock);
	have = (unsigned char *)&j->caps;
	for (size_t i = 0; i < sizeof(j->caps); i++)
		have[i] &= (unsigned char)~d[i];
	pthread_mutex_unlock(&env_lock);
	return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL get_capabilities(jvmtiEnv *e, jvmtiCapabilities *c)
{
	ENV_OR_FAIL(j, e);
	if (!c)
		return JVMTI_ERROR_NULL_POINTER;
	pthread_mutex_lock(&env_lock);
	*c = j->caps;
	pthread_mutex_unlock(&env_lock);
	return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL set_event_callbacks(jvmtiEnv *e, const jvmtiEventCallbacks *cb,
					      jint size)
{
	ENV_OR_FAIL(j, e);
	if (size < 0)
		return JVMTI_ERROR_ILLEGAL_ARGUMENT;
	pthread_mutex_lock(&env_lock);
	memset(&j->cb, 0, sizeof(j->cb));
	if (cb)
		memcpy(&j->cb, cb, (size_t)size < sizeof(j->cb) ? (size_t)size : sizeof(j->cb));
	pthread_mutex_unlock(&env_lock);
	return JVMTI_ERROR_NONE;
}

/* Events this emulator can post (and VMInit, which is past but harmless). */
static bool emulated(jvmtiEvent ev)
{
	return ev == JVMTI_EVENT_COMPILED_METHOD_LOAD || ev == JVMTI_EVENT_COMPILED_METHOD_UNLOAD ||
	       ev == JVMTI_EVENT_DYNAMIC_CODE_GENERATED || ev == JVMTI_EVENT_VM_INIT;
}

static jvmtiError JNICALL set_event_notification_mode(jvmtiEnv *e, jvmtiEventMode mode,
						      jvmtiEvent ev, jthread thread, ...)
{
	ENV_OR_FAIL(j, e);
	if (mode != JVMTI_ENABLE && mode != JVMTI_DISABLE)
		return JVMTI_ERROR_ILLEGAL_ARGUMENT;
	if (ev < JVMTI_MIN_EVENT_TYPE_VAL || ev > JVMTI_MAX_EVENT_TYPE_VAL)
		return JVMTI_ERROR_INVALID_EVENT_TYPE;
	if (thread && emulated(ev))
		return JVMTI_ERROR_ILLEGAL_ARGUMENT;   /* VM-wide events only */
	if ((ev == JVMTI_EVENT_COMPILED_METHOD_LOAD || ev == JVMTI_EVENT_COMPILED_METHOD_UNLOAD) &&
	    !has_cml_cap(j))
		return JVMTI_ERROR_MUST_POSSESS_CAPABILITY;
	if (!emulated(ev) && mode == JVMTI_ENABLE) {
		emu_log("MISSING event %d enabled%s: hs_emu never posts it", (int)ev,
			thread ? " for one thread" : "");
		fprintf(stderr, "hs_emu: MISSING event %d enabled: never posted\n", (int)ev);
	}
	pthread_mutex_lock(&env_lock);
	j->enabled[ev] = mode == JVMTI_ENABLE;
	pthread_mutex_unlock(&env_lock);
	emu_log("env %d: event %d %s", j->index, (int)ev,
		mode == JVMTI_ENABLE ? "enabled" : "disabled");
	return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL generate_events(jvmtiEnv *e, jvmtiEvent ev)
{
	ENV_OR_FAIL(j, e);
	if (ev != JVMTI_EVENT_COMPILED_METHOD_LOAD && ev != JVMTI_EVENT_DYNAMIC_CODE_GENERATED)
		return JVMTI_ERROR_ILLEGAL_ARGUMENT;
	if (ev == JVMTI_EVENT_COMPILED_METHOD_LOAD && !has_cml_cap(j))
		return JVMTI_ERROR_MUST_POSSESS_CAPABILITY;
	if (!vm_current_env())
		return JVMTI_ERROR_UNATTACHED_THREAD;
	gen_replay(e, ev);
	return JVMTI_ERROR_NONE;
}

/* ---- threads, environments ------------------------------------------------ */

struct agent_thread {
	jvmtiEnv *env;
	jvmtiStartFunction proc;
	const void *arg;
};

static void agent_thread_main(void *p)
{
	struct agent_thread t = *(struct agent_thread *)p;

	free(p);
	t.proc(t.env, vm_current_env(), (void *)t.arg);
}

static jvmtiError JNICALL run_agent_thread(jvmtiEnv *e, jthread thread, jvmtiStartFunction proc,
					   const void *arg, jint priority)
{
	struct emu_thread_obj *t = (struct emu_thread_obj *)vm_obj(thread, OBJ_THREAD);
	struct agent_thread *a;

	ENV_OR_FAIL(j, e);
	if (!t)
		return JVMTI_ERROR_INVALID_THREAD;
	if (!proc)
		return JVMTI_ERROR_NULL_POINTER;
	if (priority < JVMTI_THREAD_MIN_PRIORITY || priority > JVMTI_THREAD_MAX_PRIORITY)
		return JVMTI_ERROR_INVALID_PRIORITY;
	if (t->started)
		return JVMTI_ERROR_INVALID_THREAD;   /* a Thread starts once */
	a = malloc(sizeof(*a));
	if (!a)
		return JVMTI_ERROR_OUT_OF_MEMORY;
	*a = (struct agent_thread){ e, proc, arg };
	if (vm_start_thread(t->name, agent_thread_main, a) < 0) {
		free(a);
		return JVMTI_ERROR_OUT_OF_MEMORY;
	}
	t->started = true;
	emu_log("env %d: RunAgentThread \"%s\" started", j->index, t->name);
	return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL dispose_environment(jvmtiEnv *e)
{
	ENV_OR_FAIL(j, e);
	pthread_mutex_lock(&env_lock);
	j->live = false;
	memset(j->enabled, 0, sizeof(j->enabled));
	pthread_mutex_unlock(&env_lock);
	emu_log("env %d: disposed", j->index);
	return JVMTI_ERROR_NONE;
}

static void table_init(void)
{
	stubs_fill_jvmti(&table, sizeof(table) / sizeof(void *));
	table.GetVersionNumber = get_version_number;
	table.GetPhase = get_phase;
	table.GetPotentialCapabilities = get_potential_capabilities;
	table.AddCapabilities = add_capabilities;
	table.RelinquishCapabilities = relinquish_capabilities;
	table.GetCapabilities = get_capabilities;
	table.SetEventCallbacks = set_event_callbacks;
	table.SetEventNotificationMode = set_event_notification_mode;
	table.GenerateEvents = generate_events;
	table.Allocate = jvmti_allocate;
	table.Deallocate = jvmti_deallocate;
	table.GetMethodName = jvmti_get_method_name;
	table.GetMethodDeclaringClass = jvmti_get_method_declaring_class;
	table.GetClassSignature = jvmti_get_class_signature;
	table.RunAgentThread = run_agent_thread;
	table.DisposeEnvironment = dispose_environment;
}

jvmtiEnv *jvmti_new_env(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct jenv *j;

	pthread_once(&once, table_init);
	pthread_mutex_lock(&env_lock);
	if (n_envs == MAX_ENVS) {
		pthread_mutex_unlock(&env_lock);
		return NULL;
	}
	j = &envs[n_envs];
	memset(j, 0, sizeof(*j));
	j->functions = &table;
	j->magic = JENV_MAGIC;
	j->index = n_envs++;
	j->live = true;
	pthread_mutex_unlock(&env_lock);
	return (jvmtiEnv *)j;
}

/* ---- posting ----------------------------------------------------------------- */

bool jvmti_events_ready(void)
{
	bool ready = false;

	pthread_mutex_lock(&env_lock);
	for (int i = 0; i < n_envs && !ready; i++) {
		struct jenv *j = &envs[i];

		ready = j->live && j->enabled[JVMTI_EVENT_COMPILED_METHOD_LOAD] &&
			j->enabled[JVMTI_EVENT_COMPILED_METHOD_UNLOAD] &&
			j->enabled[JVMTI_EVENT_DYNAMIC_CODE_GENERATED] && j->cb.CompiledMethodLoad &&
			j->cb.CompiledMethodUnload && j->cb.DynamicCodeGenerated;
	}
	pthread_mutex_unlock(&env_lock);
	return ready;
}

/*
 * The callbacks of event ev that should run now: one per env that enabled it
 * (only target's when given), copied under the lock and run without it.
 */
static int receivers(jvmtiEnv *target, jvmtiEvent ev, jvmtiEnv **who, jvmtiEventCallbacks *cbs)
{
	int n = 0;

	if (!vm_current_env())
		emu_abort("event %d posted on a thread without a JNIEnv", (int)ev);
	pthread_mutex_lock(&env_lock);
	for (int i = 0; i < n_envs; i++) {
		struct jenv *j = &envs[i];

		if (!j->live || !j->enabled[ev] || (target && (jvmtiEnv *)j != target))
			continue;
		who[n] = (jvmtiEnv *)j;
		cbs[n++] = j->cb;
	}
	pthread_mutex_unlock(&env_lock);
	return n;
}

void jvmti_post_load(jvmtiEnv *target, const struct emu_method *m, uint64_t start,
		     uint64_t size, const void *compile_info)
{
	jvmtiEnv *who[MAX_ENVS];
	jvmtiEventCallbacks cbs[MAX_ENVS];
	int n = receivers(target, JVMTI_EVENT_COMPILED_METHOD_LOAD, who, cbs);

	for (int i = 0; i < n; i++)
		if (cbs[i].CompiledMethodLoad)
			cbs[i].CompiledMethodLoad(who[i], (jmethodID)(void *)m, (jint)size,
						  (const void *)(uintptr_t)start, 0, NULL,
						  compile_info);
}

void jvmti_post_unload(const struct emu_method *m, uint64_t start)
{
	jvmtiEnv *who[MAX_ENVS];
	jvmtiEventCallbacks cbs[MAX_ENVS];
	int n = receivers(NULL, JVMTI_EVENT_COMPILED_METHOD_UNLOAD, who, cbs);

	for (int i = 0; i < n; i++)
		if (cbs[i].CompiledMethodUnload)
			cbs[i].CompiledMethodUnload(who[i], (jmethodID)(void *)m,
						    (const void *)(uintptr_t)start);
}

void jvmti_post_stub(jvmtiEnv *target, const char *name, uint64_t start, uint64_t size)
{
	jvmtiEnv *who[MAX_ENVS];
	jvmtiEventCallbacks cbs[MAX_ENVS];
	int n = receivers(target, JVMTI_EVENT_DYNAMIC_CODE_GENERATED, who, cbs);

	for (int i = 0; i < n; i++)
		if (cbs[i].DynamicCodeGenerated)
			cbs[i].DynamicCodeGenerated(who[i], name, (const void *)(uintptr_t)start,
						    (jint)size);
}
