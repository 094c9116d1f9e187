/* SPDX-License-Identifier: Apache-2.0 */
/*
 * javaname.h - Java's external names, as `jcmd <pid> Compiler.perfmap`
 * prints them (HotSpot's Method::external_name()): the one formatter of the
 * agent (from JVMTI's strings) and of `jsym map` (from the Symbols it reads
 * in the JVM), so that both name the same method the same way.
 *
 *   class  "java/util/HashMap$Node"              -> "java.util.HashMap$Node"
 *   hidden "Foo$$Lambda+0x0000000800c0a000" (a Symbol, JDK 15+) or
 *          "Foo$$Lambda.0x0000000800c0a000" (JVMTI's form of the same)
 *                                                -> "Foo$$Lambda/0x0000000800c0a000"
 *   type   "[[I"                                  -> "int[][]"
 *   method ("java.util.HashMap", "put", "(Ljava/lang/Object;I)J")
 *          -> "long java.util.HashMap.put(java.lang.Object, int)"
 *
 * Inputs are byte ranges (no NUL needed) and may be hostile.  Every
 * function writes a NUL-terminated string into out[cap] and returns its
 * length, or -EINVAL (malformed or empty input, a NUL inside a name) or
 * -ENOSPC (out too small: it holds a truncated, terminated prefix; with
 * cap 0 nothing is written).
 */
#ifndef JSYM_JAVANAME_H
#define JSYM_JAVANAME_H

#include <stddef.h>

/* A class's internal name ("java/lang/Foo") in external form. */
int javaname_class(const char *name, size_t n, char *out, size_t cap);

/* One field descriptor taking the whole range ("Ljava/lang/Foo;", "[[I"). */
int javaname_type(const char *desc, size_t n, char *out, size_t cap);

/* "RET CLASS.NAME(P1, P2)": cls is already external (javaname_class's
 * output), sig a method descriptor. */
int javaname_method(const char *cls, size_t clen, const char *name, size_t nlen,
		    const char *sig, size_t slen, char *out, size_t cap);

/*
 * JDK 8 to 14 load lambdas and LambdaForms as VM-anonymous classes.  Their
 * Symbol is the plain name ("Foo$$Lambda$3"), which is all `jsym map` can
 * read; JVMTI's signature adds "/<identity hash>" ("Foo$$Lambda$3/1831932724",
 * the hash of the class's mirror).  The length of name without that suffix:
 * n itself unless name ends in '/' and decimal digits only.
 */
size_t javaname_anonymous_len(const char *name, size_t n);

#endif
