/* SPDX-License-Identifier: Apache-2.0 */
/*
 * names.h - JVM internal names to Java's external form, as `jcmd <pid>
 * Compiler.perfmap` prints them (HotSpot's Method::external_name()).
 *
 *   class signature "Ljava/util/HashMap$Node;"   -> "java.util.HashMap$Node"
 *   hidden class    "LFoo$$Lambda$14.0x0000000800c0a000;"
 *                                                -> "Foo$$Lambda$14/0x0000000800c0a000"
 *   JDK 8-14 lambda "LFoo$$Lambda$3/1831932724;"  -> "Foo$$Lambda$3"
 *   array           "[[I"                         -> "int[][]"
 *   display name    (class, "put", "(Ljava/lang/Object;I)J")
 *                   -> "long java.util.HashMap.put(java.lang.Object, int)"
 *
 * All functions write a NUL-terminated string into out[cap] and return its
 * length, or -EINVAL (malformed input; out holds what was decoded so far)
 * or -ENOSPC (out too small; out holds a truncated, terminated prefix).
 */
#ifndef JSYM_NAMES_H
#define JSYM_NAMES_H

#include <stddef.h>

/* A class signature as GetClassSignature returns it ("L...;" or "[...")
 * of a JVM whose JVMTI major version is jdk_major (1 for JDK 8): below 15,
 * a VM-anonymous class's "/<identity hash>" is left out, as `jsym map`
 * cannot read it (agent/format/javaname.h). */
int names_class_external(const char *class_sig, int jdk_major, char *out, size_t cap);

/* The display name: "RET CLASS.METHOD(P1, P2)".  class_external is already
 * external (names_class_external's output); method_sig is a JVM method
 * descriptor. */
int names_method_display(const char *class_external, const char *method_name,
			 const char *method_sig, char *out, size_t cap);

/*
 * MethodHandle.invokeBasic / linkTo* are signature-polymorphic: HotSpot
 * compiles one intrinsic per signature, but JVMTI reports them all under one
 * jmethodID, so the name and signature it gives belong to whichever came
 * first.  names_intrinsic_display() returns the honest display name for
 * such a method (the class, then "<linkTo" "*" "/invokeBasic intrinsic>"
 * as one word), or NULL for every other method.
 */
const char *names_intrinsic_display(const char *class_external, const char *method_name);

#endif
