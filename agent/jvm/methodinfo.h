/*
 * methodinfo.h - resolve a jmethodID to its names with JVMTI, inside the
 * event callback (a jmethodID of an unloaded class is useless later).
 */
#ifndef JSYM_METHODINFO_H
#define JSYM_METHODINFO_H

#include <jvmti.h>

struct method_info {
	char cls[1024];      /* external class name: "java.util.HashMap$Node" */
	char name[512];      /* "resize", "<init>" */
	char sig[2048];      /* "(I)J" */
	char display[4096];  /* "long Busy.heavyCompute(int)" */
};

/* Fill *mi.  Never fails: unresolvable parts read "<unknown>" and the
 * return value is then -EINVAL (0 when everything resolved). */
int methodinfo_resolve(jvmtiEnv *jvmti, jmethodID method, struct method_info *mi);

#endif
