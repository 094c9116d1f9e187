/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hs_emu_vm.c - the JavaVM of the emulator: its invocation interface,
 * "Java threads" (each with its own JNIEnv, as JNI requires) and the heap
 * objects handed out as jobject (strings, unstarted java.lang.Thread).
 *
 * GetEnv follows HotSpot: a thread that is not attached gets JNI_EDETACHED
 * for JNI and JVMTI alike; JNI versions 1.1 to 10 and JVMTI 1.0-1.2 and 9
 * to our own are accepted, others get JNI_EVERSION.  Every JVMTI GetEnv
 * makes a new environment.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_emu.h"

#define ENV_MAGIC 0x454e5621u

/* A JNIEnv: JNI code sees a pointer to `functions`, which must be first. */
struct thread_env {
	const struct JNINativeInterface_ *functions;
	uint32_t magic;
	char name[64];
	struct thread_env *next;
};

static pthread_mutex_t vm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct thread_env *threads;
static __thread struct thread_env *self_env;

/* Live objects (strings, threads): a reference must name one of these. */
#define MAX_OBJS 4096
static struct emu_obj *objs[MAX_OBJS];

/* ---- threads -------------------------------------------------------------- */

JNIEnv *vm_attach_thread(const char *name)
{
	struct thread_env *t = self_env;

	if (t)
		return (JNIEnv *)t;
	t = calloc(1, sizeof(*t));
	if (!t)
		emu_abort("out of memory attaching thread %s", name);
	t->functions = jni_table();
	t->magic = ENV_MAGIC;
	snprintf(t->name, sizeof(t->name), "%s", name ? name : "attached thread");
	pthread_mutex_lock(&vm_lock);
	t->next = threads;
	threads = t;
	pthread_mutex_unlock(&vm_lock);
	self_env = t;
	return (JNIEnv *)t;
}

void vm_detach_thread(void)
{
	struct thread_env *t = self_env, **pp;

	if (!t)
		return;
	pthread_mutex_lock(&vm_lock);
	for (pp = &threads; *pp && *pp != t; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = t->next;
	pthread_mutex_unlock(&vm_lock);
	t->magic = 0;
	free(t);
	self_env = NULL;
}

JNIEnv *vm_current_env(void)
{
	return (JNIEnv *)self_env;
}

void vm_thread_names(char *buf, size_t cap)
{
	size_t len = 0;
	int n = 1;

	buf[0] = '\0';
	pthread_mutex_lock(&vm_lock);
	for (struct thread_env *t = threads; t && len + 1 < cap; t = t->next) {
		int w = snprintf(buf + len, cap - len, "\"%s\" #%d daemon prio=5 os_prio=0 "
				 "java.lang.Thread.State: RUNNABLE\n\n", t->name, n++);

		if (w < 0)
			break;
		len += (size_t)w;
	}
	pthread_mutex_unlock(&vm_lock);
}

struct trampoline {
	char name[64];
	void (*fn)(void *);
	void *arg;
};

static void *thread_main(void *p)
{
	struct trampoline t = *(struct trampoline *)p;

	free(p);
	vm_attach_thread(t.name);
	t.fn(t.arg);
	vm_detach_thread();
	return NULL;
}

int vm_start_thread(const char *name, void (*fn)(void *), void *arg)
{
	struct trampoline *t = calloc(1, sizeof(*t));
	pthread_attr_t at;
	pthread_t th;
	int rc;

	if (!t)
		return -ENOMEM;
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->fn = fn;
	t->arg = arg;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&th, &at, thread_main, t);
	pthread_attr_destroy(&at);
	if (rc) {
		free(t);
		return -rc;
	}
	return 0;
}

/* ---- objects -------------------------------------------------------------- */

struct emu_obj *vm_obj_new(enum emu_obj_kind kind, size_t size)
{
	struct emu_obj *o = calloc(1, size);

	if (!o)
		emu_abort("out of memory for a Java object");
	o->magic = EMU_OBJ_MAGIC;
	o->kind = kind;
	pthread_mutex_lock(&vm_lock);
	for (int i = 0; i < MAX_OBJS; i++)
		if (!objs[i]) {
			objs[i] = o;
			pthread_mutex_unlock(&vm_lock);
			return o;
		}
	pthread_mutex_unlock(&vm_lock);
	emu_abort("more than %d live local references: a DeleteLocalRef is missing", MAX_OBJS);
}

struct emu_obj *vm_obj(const void *p, enum emu_obj_kind kind)
{
	struct emu_obj *found = NULL;

	if (!p)
		return NULL;
	if (kind == OBJ_CLASS) {
		const struct emu_class *c = catalog_class_of(p);

		return c ? (struct emu_obj *)&c->hdr : NULL;
	}
	pthread_mutex_lock(&vm_lock);
	for (int i = 0; i < MAX_OBJS; i++)
		if (objs[i] == p && objs[i]->kind == kind)
			found = objs[i];
	pthread_mutex_unlock(&vm_lock);
	return found;
}

int vm_obj_free(const void *p)
{
	struct emu_obj *o = NULL;

	pthread_mutex_lock(&vm_lock);
	for (int i = 0; i < MAX_OBJS; i++)
		if (objs[i] == p) {
			o = objs[i];
			objs[i] = NULL;
		}
	pthread_mutex_unlock(&vm_lock);
	if (!o)
		return -ENOENT;
	if (o->kind == OBJ_STRING)
		free(((struct emu_string *)o)->utf);
	else if (o->kind == OBJ_THREAD)
		free(((struct emu_thread_obj *)o)->name);
	o->magic = 0;
	free(o);
	return 0;
}

/* ---- the invocation interface --------------------------------------------- */

static jint JNICALL destroy_vm(JavaVM *vm)
{
	emu_log("DestroyJavaVM called: not emulated");
	return JNI_ERR;
}

static jint attach(void **penv, void *args)
{
	const JavaVMAttachArgs *a = args;

	if (!penv)
		return JNI_ERR;
	*penv = vm_attach_thread(a && a->name ? a->name : "attached by JNI");
	return JNI_OK;
}

static jint JNICALL attach_current_thread(JavaVM *vm, void **penv, void *args)
{
	return attach(penv, args);
}

static jint JNICALL attach_current_thread_as_daemon(JavaVM *vm, void **penv, void *args)
{
	return attach(penv, args);
}

static jint JNICALL detach_current_thread(JavaVM *vm)
{
	if (!self_env)
		return JNI_EDETACHED;
	vm_detach_thread();
	return JNI_OK;
}

static bool jni_version_ok(jint v)
{
	return v == JNI_VERSION_1_1 || v == JNI_VERSION_1_2 || v == JNI_VERSION_1_4 ||
	       v == JNI_VERSION_1_6 || v == JNI_VERSION_1_8 || v == JNI_VERSION_9 ||
	       v == JNI_VERSION_10;
}

static bool jvmti_version_ok(jint v)
{
	int major = (v & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR;
	int minor = (v & JVMTI_VERSION_MASK_MINOR) >> JVMTI_VERSION_SHIFT_MINOR;
	int ours = (JVMTI_VERSION & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR;

	if (major == 1)
		return minor <= 2;
	return major >= 9 && major <= ours;
}

static jint JNICALL get_env(JavaVM *vm, void **penv, jint version)
{
	if (!penv)
		return JNI_ERR;
	*penv = NULL;
	if (!self_env) {
		emu_log("GetEnv(0x%x) on a thread that is not attached: JNI_EDETACHED",
			(unsigned)version);
		return JNI_EDETACHED;
	}
	if ((version & JVMTI_VERSION_MASK_INTERFACE_TYPE) == JVMTI_VERSION_INTERFACE_JVMTI) {
		if (!jvmti_version_ok(version))
			return JNI_EVERSION;
		*penv = jvmti_new_env();
		if (!*penv)
			return JNI_ENOMEM;
		emu_log("GetEnv(JVMTI 0x%x) on \"%s\": new env %p", (unsigned)version,
			self_env->name, *penv);
		return JNI_OK;
	}
	if (!jni_version_ok(version))
		return JNI_EVERSION;
	*penv = self_env;
	return JNI_OK;
}

static const struct JNIInvokeInterface_ invoke = {
	.DestroyJavaVM = destroy_vm,
	.AttachCurrentThread = attach_current_thread,
	.DetachCurrentThread = detach_current_thread,
	.GetEnv = get_env,
	.AttachCurrentThreadAsDaemon = attach_current_thread_as_daemon,
};

static JavaVM the_vm = &invoke;

JavaVM *vm_javavm(void)
{
	return &the_vm;
}
