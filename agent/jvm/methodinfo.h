/* SPDX-License-Identifier: Apache-2.0 */
/*
 * methodinfo.h - resolve a jmethodID to its names with JVMTI, inside the
 * event callback (a jmethodID of an unloaded class is useless later).
 */
#ifndef JSYM_METHODINFO_H
#define JSYM_METHODINFO_H

#include <stdint.h>
#include <jvmti.h>

#include "frames.h"

struct method_info {
	char cls[1024];      /* external class name: "java.util.HashMap$Node" */
	char name[512];      /* "resize", "<init>" */
	char sig[2048];      /* "(I)J" */
	char display[4096];  /* "long Busy.heavyCompute(int)" */
};

/* Fill *mi.  Never fails: unresolvable parts read "<unknown>" and the
 * return value is then -EINVAL (0 when everything resolved). */
/* The JVM's JVMTI major version: 1 on JDK 8 (JVMTI 1.2), the JDK's own
 * major version since 9; 0 if JVMTI does not say. */
int methodinfo_jvmti_major(jvmtiEnv *jvmti);

int methodinfo_resolve(jvmtiEnv *jvmti, jmethodID method, struct method_info *mi);

/*
 * The source file of method's declaring class (GetSourceFileName) into
 * file[cap] ("" when unknown) and its line table (GetLineNumberTable),
 * sorted by bci, into *lines (malloc'ed, the caller frees; NULL and
 * *n_lines 0 when unknown: native, abstract, no debug info, or no
 * can_get_line_numbers).  Returns 0, or -EINVAL when neither was known.
 */
int methodinfo_source(jvmtiEnv *jvmti, jmethodID method, char *file, size_t cap,
		      struct frames_line **lines, uint32_t *n_lines);

#endif
