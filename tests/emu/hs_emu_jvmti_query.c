/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hs_emu_jvmti_query.c - JVMTI memory and the method/class queries an agent
 * makes inside CompiledMethodLoad: Allocate, Deallocate, GetMethodName,
 * GetMethodDeclaringClass, GetClassSignature.  Strings are handed out in
 * Allocate()d memory, as JVMTI does; the count of blocks not given back is
 * logged at exit (a leak in the agent shows there).  jmethodIDs and
 * jclasses are checked against the catalogue (INVALID_METHODID,
 * INVALID_CLASS), never dereferenced blindly.
 */
#include <stdlib.h>
#include <string.h>

#include "hs_emu.h"

static long outstanding;

jvmtiError JNICALL jvmti_allocate(jvmtiEnv *e, jlong size, unsigned char **mem)
{
	if (!jvmti_env_ok(e))
		return JVMTI_ERROR_INVALID_ENVIRONMENT;
	if (!mem)
		return JVMTI_ERROR_NULL_POINTER;
	if (size < 0)
		return JVMTI_ERROR_ILLEGAL_ARGUMENT;
	if (size == 0) {
		*mem = NULL;
		return JVMTI_ERROR_NONE;
	}
	*mem = malloc((size_t)size);
	if (!*mem)
		return JVMTI_ERROR_OUT_OF_MEMORY;
	__atomic_add_fetch(&outstanding, 1, __ATOMIC_RELAXED);
	return JVMTI_ERROR_NONE;
}

jvmtiError JNICALL jvmti_deallocate(jvmtiEnv *e, unsigned char *mem)
{
	if (!jvmti_env_ok(e))
		return JVMTI_ERROR_INVALID_ENVIRONMENT;
	if (mem) {
		free(mem);
		__atomic_sub_fetch(&outstanding, 1, __ATOMIC_RELAXED);
	}
	return JVMTI_ERROR_NONE;
}

long jvmti_outstanding(void)
{
	return __atomic_load_n(&outstanding, __ATOMIC_RELAXED);
}

/* Allocate()-backed copy, as JVMTI hands out strings; NULL dst: skipped. */
static jvmtiError give(jvmtiEnv *e, char **dst, const char *s)
{
	size_t n = strlen(s) + 1;
	unsigned char *p;
	jvmtiError err;

	if (!dst)
		return JVMTI_ERROR_NONE;
	err = jvmti_allocate(e, (jlong)n, &p);
	if (err)
		return err;
	memcpy(p, s, n);
	*dst = (char *)p;
	return JVMTI_ERROR_NONE;
}

jvmtiError JNICALL jvmti_get_method_name(jvmtiEnv *e, jmethodID method, char **name,
					  char **sig, char **generic)
{
	const struct emu_method *m = catalog_method_of(method);
	jvmtiError err;

	if (!jvmti_env_ok(e))
		return JVMTI_ERROR_INVALID_ENVIRONMENT;
	if (!m)
		return JVMTI_ERROR_INVALID_METHODID;
	err = give(e, name, m->name);
	if (!err)
		err = give(e, sig, m->sig);
	if (generic)
		*generic = NULL;
	return err;
}

jvmtiError JNICALL jvmti_get_method_declaring_class(jvmtiEnv *e, jmethodID method,
						     jclass *klass)
{
	const struct emu_method *m = catalog_method_of(method);

	if (!jvmti_env_ok(e))
		return JVMTI_ERROR_INVALID_ENVIRONMENT;
	if (!m)
		return JVMTI_ERROR_INVALID_METHODID;
	if (!klass)
		return JVMTI_ERROR_NULL_POINTER;
	*klass = (jclass)(void *)&m->cls->hdr;
	return JVMTI_ERROR_NONE;
}

jvmtiError JNICALL jvmti_get_class_signature(jvmtiEnv *e, jclass klass, char **sig,
					      char **generic)
{
	const struct emu_class *c = catalog_class_of(klass);

	if (!jvmti_env_ok(e))
		return JVMTI_ERROR_INVALID_ENVIRONMENT;
	if (!c)
		return JVMTI_ERROR_INVALID_CLASS;
	if (generic)
		*generic = NULL;
	return give(e, sig, c->sig);
}
