/* SPDX-License-Identifier: Apache-2.0 */
/* vm_names.c - compiled method names in the Compiler.perfmap form, through
 * agent/format's javaname.c (the agent's formatter too). */
#include "javaname.h"
#include "vm_names.h"

int vm_names_display(const char *klass, size_t klen, const char *name, size_t nlen,
		     const char *sig, size_t slen, char *out, size_t cap)
{
	char cls[VM_NAMES_CLASS_MAX];
	int n = javaname_class(klass, klen, cls, sizeof(cls));

	if (n < 0) {            /* a class longer than cls makes no display either */
		if (cap)
			out[0] = '\0';
		return n;
	}
	return javaname_method(cls, (size_t)n, name, nlen, sig, slen, out, cap);
}

int vm_names_class(const char *klass, size_t klen, char *out, size_t cap)
{
	return javaname_class(klass, klen, out, cap);
}
