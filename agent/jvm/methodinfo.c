/* SPDX-License-Identifier: Apache-2.0 */
/*
 * methodinfo.c - jmethodID -> class, name, signature, display name.
 */
#include "methodinfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

int methodinfo_jvmti_major(jvmtiEnv *jvmti)
{
	static int major;
	jint v;

	if (major == 0 && (*jvmti)->GetVersionNumber(jvmti, &v) == JVMTI_ERROR_NONE)
		major = (int)(((unsigned)v & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR);
	return major;
}

static void copy(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "<unknown>");
}

int methodinfo_resolve(jvmtiEnv *jvmti, jmethodID method, struct method_info *mi)
{
	char *name = NULL, *sig = NULL, *csig = NULL;
	jclass klass = NULL;
	int rc = 0;

	if ((*jvmti)->GetMethodName(jvmti, method, &name, &sig, NULL) != JVMTI_ERROR_NONE)
		rc = -EINVAL;
	if ((*jvmti)->GetMethodDeclaringClass(jvmti, method, &klass) != JVMTI_ERROR_NONE ||
	    (*jvmti)->GetClassSignature(jvmti, klass, &csig, NULL) != JVMTI_ERROR_NONE)
		rc = -EINVAL;
	copy(mi->name, sizeof(mi->name), name);
	copy(mi->sig, sizeof(mi->sig), sig);
	if (!csig || names_class_external(csig, methodinfo_jvmti_major(jvmti), mi->cls, sizeof(mi->cls)) < 0) {
		copy(mi->cls, sizeof(mi->cls), csig);
		rc = -EINVAL;
	}
	if (!sig || names_method_display(mi->cls, mi->name, mi->sig, mi->display,
					 sizeof(mi->display)) < 0) {
		/* Still something a human can use. */
		snprintf(mi->display, sizeof(mi->display), "%s.%s%s", mi->cls, mi->name, mi->sig);
		rc = -EINVAL;
	}
	if (rc == 0 && names_intrinsic_display(mi->cls, mi->name))
		snprintf(mi->display, sizeof(mi->display), "%s",
			 names_intrinsic_display(mi->cls, mi->name));
	if (name)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)name);
	if (sig)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
	if (csig)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)csig);
	return rc;
}

int methodinfo_source(jvmtiEnv *jvmti, jmethodID method, char *file, size_t cap,
		      struct frames_line **lines, uint32_t *n_lines)
{
	jvmtiLineNumberEntry *t = NULL;
	struct frames_line *out = NULL;
	jclass klass = NULL;
	char *src = NULL;
	jint n = 0;
	uint32_t k = 0;

	file[0] = '\0';
	*lines = NULL;
	*n_lines = 0;
	if ((*jvmti)->GetMethodDeclaringClass(jvmti, method, &klass) == JVMTI_ERROR_NONE &&
	    (*jvmti)->GetSourceFileName(jvmti, klass, &src) == JVMTI_ERROR_NONE && src) {
		copy(file, cap, src);
		(*jvmti)->Deallocate(jvmti, (unsigned char *)src);
	}
	if ((*jvmti)->GetLineNumberTable(jvmti, method, &n, &t) != JVMTI_ERROR_NONE)
		return file[0] ? 0 : -EINVAL;
	if (n > 0 && (out = malloc((size_t)n * sizeof(*out)))) {
		for (jint i = 0; i < n; i++) {
			struct frames_line e;
			uint32_t j;

			if (t[i].start_location < 0 || t[i].start_location >= 0xffff ||
			    t[i].line_number <= 0 || t[i].line_number > 0xffff)
				continue;
			e.bci = (uint16_t)t[i].start_location;
			e.line = (uint16_t)t[i].line_number;
			/* insertion by bci: tables are short and nearly sorted */
			for (j = k; j > 0 && out[j - 1].bci > e.bci; j--)
				out[j] = out[j - 1];
			out[j] = e;
			k++;
		}
	}
	(*jvmti)->Deallocate(jvmti, (unsigned char *)t);
	*lines = out;
	*n_lines = out ? k : 0;
	return 0;
}
