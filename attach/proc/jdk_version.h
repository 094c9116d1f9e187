/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jdk_version.h - a HotSpot JDK's version from what is readable outside the
 * JVM, inside attach/proc; the versions jsym refuses or warns about when it
 * loads its agent (jdk_agent_verdict) are the entry's, target.h.
 *
 * Pure functions over buffers and strings (unit-tested, never print).  The
 * `release` file gives JAVA_VERSION (proc_parse_release); JDK 8 packages
 * often have none (Debian's openjdk-8 ships no `release`), so the version
 * is also found in libjvm.so itself, whose read-only data holds the string
 * the JVM prints with -version -Xinternalversion:
 *   "OpenJDK 64-Bit Server VM (25.504-b01) for linux-amd64 JRE
 *    (1.8.0_504-8u504-ga-1-b01), built on ..."   (the same shape in 9..28).
 */
#ifndef JSYM_JDK_VERSION_H
#define JSYM_JDK_VERSION_H

#include <stdbool.h>
#include <stddef.h>

#include "errtext.h"

/*
 * Find "<vm> (<x>) for <os-arch> JRE (<version>)" in a libjvm.so image and
 * copy <version> up to its first '-' or '+' into ver ("1.8.0_504", "28",
 * "17.0.21.0.3"), at most cap-1 bytes.  Returns the major version (8 for
 * 1.8.*), -ENOENT when no such string is there, -ENAMETOOLONG when it does
 * not fit, -EINVAL for bad arguments.
 */
int jdk_parse_vm_info(const char *buf, size_t len, char *ver, size_t cap);

struct jdk_version {
	int major;      /* 8, 11, 28; 0 unknown */
	int update;     /* 8: the NNN of 1.8.0_NNN; 9+: the third number
	                   (17.0.9 -> 9, "28" -> 0); -1 unknown */
};

/*
 * Parse a JAVA_VERSION-style string: "1.8.0_382", "1.8.0_504-b01",
 * "11.0.33-ea", "17.0.21.0.3", "28".  Returns 0, or -EPROTO (v->major 0)
 * when it does not start like a Java version.
 */
int jdk_parse_version(const char *s, struct jdk_version *v);

#endif
