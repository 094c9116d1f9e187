/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jsym_arch.h - the machine this build of jsym (and of its agent) is for,
 * the one place that knows the architectures jsym builds for (mk/arch.mk's
 * ARCH: x86_64, aarch64).  Shared by the agent (jitdump's ELF machine) and
 * the attach side (the JVM's libjvm.so must match, attach/deploy's build
 * trees are named after it).  Header only: constants and two small
 * functions, nothing that allocates or prints.
 *
 *   JSYM_ARCH_NAME      "x86_64" / "aarch64", as uname -m and ARCH spell it
 *   JSYM_ELF_MACHINE    the e_machine of this build's ELF files
 *   JSYM_TREE_SUFFIX    "" / "-aarch64": glibc-build<suffix>, musl-build<suffix>
 */
#ifndef JSYM_ARCH_H
#define JSYM_ARCH_H

#include <elf.h>
#include <string.h>

#include "errtext.h"

#if defined(__x86_64__)
#define JSYM_ARCH_NAME "x86_64"
#define JSYM_ELF_MACHINE EM_X86_64
#define JSYM_TREE_SUFFIX ""
#elif defined(__aarch64__)
#define JSYM_ARCH_NAME "aarch64"
#define JSYM_ELF_MACHINE EM_AARCH64
#define JSYM_TREE_SUFFIX "-aarch64"
#else
#error "jsym builds for x86_64 and aarch64 only (mk/arch.mk)"
#endif

/*
 * jsym_arch_of_machine: the ARCH name of an ELF e_machine value, or NULL
 * for a machine jsym has no build for (the caller prints the number).
 */
static inline const char *jsym_arch_of_machine(unsigned machine)
{
	switch (machine) {
	case EM_X86_64:
		return "x86_64";
	case EM_AARCH64:
		return "aarch64";
	default:
		return NULL;
	}
}

/*
 * jsym_arch_mismatch: the sentence for a JVM whose ELF machine is not this
 * build's, naming both architectures and the jsym to run instead, set in e
 * (err_set; e may be NULL).  Returns rc.  For the attach side's errors.
 */
static inline int jsym_arch_mismatch(struct err_text *e, int rc, unsigned machine)
{
	const char *name = jsym_arch_of_machine(machine);
	const char *sfx = name && strcmp(name, "x86_64") ? name : "";

	if (!name)
		return err_set(e, rc, "the JVM's ELF machine is %u, an architecture "
			       "jsym has no build for (this jsym is " JSYM_ARCH_NAME ")",
			       machine);
	return err_set(e, rc, "the JVM is %s and this jsym (with its agent builds) is "
		       JSYM_ARCH_NAME ": run the %s jsym (make ARCH=%s builds it: "
		       "glibc-build%s%s/jsym, musl-build%s%s/jsym; or an %s install tree)",
		       name, name, name, *sfx ? "-" : "", sfx, *sfx ? "-" : "", sfx, name);
}

#endif
