/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hs_emu_jni.c - the JNI functions the emulator implements; every other
 * slot of the table aborts with its number (hs_emu_stubs.c).
 *
 * Implemented, with HotSpot's observable behaviour for what an agent does
 * at attach time: GetVersion, FindClass, GetMethodID, NewObject (only
 * java.lang.Thread(String), the flush-thread idiom), NewStringUTF,
 * GetStringUTFLength, GetStringUTFChars, ReleaseStringUTFChars,
 * ExceptionCheck, ExceptionOccurred (NULL: no Throwable objects here),
 * ExceptionClear, ExceptionDescribe, DeleteLocalRef.
 *
 * JNI rules checked loudly (abort): a JNIEnv used on another thread than
 * its own, a reference that is not one of ours, a second exception-raising
 * call while an exception is pending.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_emu.h"

/* The pending exception of each thread: only its class name. */
static __thread const char *pending;

static void check_env(JNIEnv *env, const char *fn)
{
	if (env != vm_current_env())
		emu_abort("JNI %s: JNIEnv %p is not the calling thread's (%p): JNI "
			  "forbids using another thread's JNIEnv", fn, (void *)env,
			  (void *)vm_current_env());
}

static void throw_pending(const char *cls, const char *fn, const char *what)
{
	if (pending)
		emu_abort("JNI %s called with %s pending", fn, pending);
	pending = cls;
	emu_log("JNI %s: %s (%s)", fn, cls, what);
}

static jint JNICALL get_version(JNIEnv *env)
{
	check_env(env, "GetVersion");
	return JNI_VERSION_10;
}

static jclass JNICALL find_class(JNIEnv *env, const char *name)
{
	const struct emu_class *c;

	check_env(env, "FindClass");
	c = name ? catalog_find_class(name) : NULL;
	if (!c) {
		throw_pending("java.lang.NoClassDefFoundError", "FindClass", name ? name : "NULL");
		return NULL;
	}
	return (jclass)(void *)&c->hdr;
}

static jmethodID JNICALL get_method_id(JNIEnv *env, jclass clazz, const char *name,
				       const char *sig)
{
	const struct emu_class *c;
	const struct emu_method *m;

	check_env(env, "GetMethodID");
	c = catalog_class_of(clazz);
	if (!c)
		emu_abort("JNI GetMethodID: %p is not a class reference", (void *)clazz);
	m = name && sig ? catalog_find_method(c, name, sig) : NULL;
	if (!m) {
		throw_pending("java.lang.NoSuchMethodError", "GetMethodID", name ? name : "NULL");
		return NULL;
	}
	return (jmethodID)(void *)m;
}

static jstring JNICALL new_string_utf(JNIEnv *env, const char *utf)
{
	struct emu_string *s;

	check_env(env, "NewStringUTF");
	if (!utf)
		return NULL;
	s = (struct emu_string *)vm_obj_new(OBJ_STRING, sizeof(*s));
	s->utf = strdup(utf);
	if (!s->utf)
		emu_abort("out of memory in NewStringUTF");
	return (jstring)(void *)s;
}

static struct emu_string *string_of(jstring str, const char *fn)
{
	struct emu_obj *o = vm_obj(str, OBJ_STRING);

	if (!o)
		emu_abort("JNI %s: %p is not a live java.lang.String reference", fn,
			  (void *)str);
	return (struct emu_string *)o;
}

static jsize JNICALL get_string_utf_length(JNIEnv *env, jstring str)
{
	check_env(env, "GetStringUTFLength");
	return (jsize)strlen(string_of(str, "GetStringUTFLength")->utf);
}

static const char *JNICALL get_string_utf_chars(JNIEnv *env, jstring str, jboolean *is_copy)
{
	char *copy;

	check_env(env, "GetStringUTFChars");
	copy = strdup(string_of(str, "GetStringUTFChars")->utf);
	if (!copy)
		emu_abort("out of memory in GetStringUTFChars");
	if (is_copy)
		*is_copy = JNI_TRUE;
	return copy;
}

static void JNICALL release_string_utf_chars(JNIEnv *env, jstring str, const char *chars)
{
	check_env(env, "ReleaseStringUTFChars");
	string_of(str, "ReleaseStringUTFChars");
	free((void *)chars);
}

/* new Thread(String name): the only constructor this JVM can run. */
static jobject JNICALL new_object(JNIEnv *env, jclass clazz, jmethodID ctor, ...)
{
	const struct emu_class *c = catalog_class_of(clazz);
	const struct emu_method *m = catalog_method_of(ctor);
	struct emu_thread_obj *t;
	struct emu_string *name;
	jstring arg;
	va_list ap;

	check_env(env, "NewObject");
	if (pending)
		emu_abort("JNI NewObject called with %s pending", pending);
	if (!c || !m || m->cls != c || strcmp(m->name, "<init>") != 0)
		emu_abort("JNI NewObject: %p/%p is not a class and one of its constructors",
			  (void *)clazz, (void *)ctor);
	if (strcmp(c->internal, "java/lang/Thread") != 0 ||
	    strcmp(m->sig, "(Ljava/lang/String;)V") != 0)
		emu_abort("JNI NewObject: constructor %s%s of %s is not emulated (only "
			  "java.lang.Thread(String) is)", m->name, m->sig, c->internal);
	va_start(ap, ctor);
	arg = va_arg(ap, jstring);
	va_end(ap);
	name = string_of(arg, "NewObject(Thread(String))");
	t = (struct emu_thread_obj *)vm_obj_new(OBJ_THREAD, sizeof(*t));
	t->name = strdup(name->utf);
	if (!t->name)
		emu_abort("out of memory in NewObject");
	return (jobject)(void *)t;
}

static jboolean JNICALL exception_check(JNIEnv *env)
{
	check_env(env, "ExceptionCheck");
	return pending ? JNI_TRUE : JNI_FALSE;
}

static jthrowable JNICALL exception_occurred(JNIEnv *env)
{
	check_env(env, "ExceptionOccurred");
	if (pending)
		emu_log("JNI ExceptionOccurred: %s pending, but this JVM has no Throwable "
			"objects: NULL", pending);
	return NULL;
}

static void JNICALL exception_clear(JNIEnv *env)
{
	check_env(env, "ExceptionClear");
	pending = NULL;
}

static void JNICALL exception_describe(JNIEnv *env)
{
	check_env(env, "ExceptionDescribe");
	if (pending)
		fprintf(stderr, "Exception in thread: %s\n", pending);
	pending = NULL;
}

static void JNICALL delete_local_ref(JNIEnv *env, jobject obj)
{
	check_env(env, "DeleteLocalRef");
	if (!obj || catalog_class_of(obj))
		return;
	if (vm_obj_free(obj) < 0)
		emu_abort("JNI DeleteLocalRef: %p is not a live reference", (void *)obj);
}

static struct JNINativeInterface_ table;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_init(void)
{
	stubs_fill_jni(&table, sizeof(table) / sizeof(void *));
	table.GetVersion = get_version;
	table.FindClass = find_class;
	table.GetMethodID = get_method_id;
	table.NewObject = new_object;
	table.NewStringUTF = new_string_utf;
	table.GetStringUTFLength = get_string_utf_length;
	table.GetStringUTFChars = get_string_utf_chars;
	table.ReleaseStringUTFChars = release_string_utf_chars;
	table.ExceptionCheck = exception_check;
	table.ExceptionOccurred = exception_occurred;
	table.ExceptionClear = exception_clear;
	table.ExceptionDescribe = exception_describe;
	table.DeleteLocalRef = delete_local_ref;
}

const struct JNINativeInterface_ *jni_table(void)
{
	pthread_once(&table_once, table_init);
	return &table;
}
