/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vm_names.h - a compiled method's name as `jcmd <pid> Compiler.perfmap`
 * prints it (HotSpot's Method::external_name()), from the three Symbols
 * jsym reads in the JVM: the holder class's internal name, the method
 * name and the method descriptor.
 *
 *   ("java/util/HashMap", "put", "(Ljava/lang/Object;I)J")
 *       -> "long java.util.HashMap.put(java.lang.Object, int)"
 *   hidden class "Foo$$Lambda+0x0000000800c0a000" -> "Foo$$Lambda/0x0000000800c0a000"
 *
 * Both go through agent/format/javaname.c, the agent's formatter too, so
 * both name a method alike; the unit suite checks it.  Inputs are byte
 * ranges read from the target (no NUL needed) and are hostile.
 */
#ifndef JSYM_VM_NAMES_H
#define JSYM_VM_NAMES_H

#include <stddef.h>

/* The longest class name vm_names_display takes (-ENOSPC beyond): as
 * long as the longest display jsym map keeps (VM_MAX_NAME). */
#define VM_NAMES_CLASS_MAX 4096

/*
 * Write "RET CLASS.NAME(P1, P2)" NUL-terminated into out[cap].  Returns its
 * length, -EINVAL for a malformed descriptor or an empty or NUL-holding
 * name, -ENOSPC when out is too small.
 */
int vm_names_display(const char *klass, size_t klen, const char *name, size_t nlen,
		     const char *sig, size_t slen, char *out, size_t cap);

/*
 * Write the class's external form, as the agent's journal names it
 * ("java.util.HashMap$Node", "Foo$$Lambda/0x0000000800c0a000"), into
 * out[cap].  Its length, -EINVAL (empty or NUL-holding), -ENOSPC.
 */
int vm_names_class(const char *klass, size_t klen, char *out, size_t cap);

#endif
