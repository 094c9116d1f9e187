/* SPDX-License-Identifier: Apache-2.0 */
/*
 * names.c - JVMTI's class signatures and method descriptors to the
 * Compiler.perfmap form, through agent/format's javaname.c: the formatter
 * `jsym map` uses too, so both name a method alike.
 */
#include "names.h"

#include <errno.h>
#include <string.h>

#include "javaname.h"

/* The JVMTI class signature [s, s+n) without its 'L' and ';', and on JDK 8
 * to 14 without a VM-anonymous class's "/<hash>". */
static int class_internal(const char *sig, int jdk_major, const char **name, size_t *n)
{
	size_t len = strlen(sig);

	if (len < 3 || sig[0] != 'L' || sig[len - 1] != ';')
		return -EINVAL;
	*name = sig + 1;
	*n = len - 2;
	if (jdk_major < 15)
		*n = javaname_anonymous_len(*name, *n);
	return 0;
}

int names_class_external(const char *class_sig, int jdk_major, char *out, size_t cap)
{
	const char *name;
	size_t n;

	if (!out || cap == 0)
		return -EINVAL;
	out[0] = '\0';
	if (!class_sig || !*class_sig)
		return -EINVAL;
	if (class_sig[0] == '[')
		return javaname_type(class_sig, strlen(class_sig), out, cap);
	if (class_sig[0] != 'L')        /* an internal name ("java/lang/Foo") */
		return javaname_class(class_sig, strlen(class_sig), out, cap);
	if (class_internal(class_sig, jdk_major, &name, &n) < 0)
		return -EINVAL;
	return javaname_class(name, n, out, cap);
}

int names_method_display(const char *class_external, const char *method_name,
			 const char *method_sig, char *out, size_t cap)
{
	if (!out || cap == 0)
		return -EINVAL;
	out[0] = '\0';
	if (!class_external || !method_name || !method_sig)
		return -EINVAL;
	return javaname_method(class_external, strlen(class_external), method_name,
			       strlen(method_name), method_sig, strlen(method_sig), out, cap);
}

const char *names_intrinsic_display(const char *class_external, const char *method_name)
{
	if (!class_external || !method_name ||
	    strcmp(class_external, "java.lang.invoke.MethodHandle") != 0)
		return NULL;
	if (strcmp(method_name, "invokeBasic") == 0 || strncmp(method_name, "linkTo", 6) == 0)
		return "java.lang.invoke.MethodHandle.<linkTo*/invokeBasic intrinsic>";
	return NULL;
}
