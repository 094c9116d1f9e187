/*
 * methodinfo.c - jmethodID -> class, name, signature, display name.
 */
#include "methodinfo.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "names.h"

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
	if (!csig || names_class_external(csig, mi->cls, sizeof(mi->cls)) < 0) {
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
