/* SPDX-License-Identifier: Apache-2.0 */
/* vm_names.c - compiled method names in the Compiler.perfmap form. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "vm_names.h"

struct out {
	char *p;
	size_t len, cap;
	int err;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->err)
		return;
	if (n >= o->cap - o->len) {
		o->err = -ENOSPC;
		return;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
	o->p[o->len] = '\0';
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* A hidden class's name ends in "+0x<hex>": HotSpot shows that '+' as '/'. */
static const char *hidden_plus(const char *s, size_t n)
{
	const char *plus = NULL;

	for (size_t i = 0; i < n; i++)
		if (s[i] == '+')
			plus = s + i;
	if (!plus || s + n - plus < 4 || plus[1] != '0' || plus[2] != 'x')
		return NULL;
	for (const char *p = plus + 3; p < s + n; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') ||
		      (*p >= 'A' && *p <= 'F')))
			return NULL;
	return plus;
}

/* An internal class name [s, s+n) in external form. */
static void put_class(struct out *o, const char *s, size_t n, bool may_be_hidden)
{
	const char *plus = may_be_hidden ? hidden_plus(s, n) : NULL;

	for (size_t i = 0; i < n && !o->err; i++) {
		char c = s[i] == '/' ? '.' : s + i == plus ? '/' : s[i];

		put(o, &c, 1);
	}
}

static const char *primitive(char c)
{
	switch (c) {
	case 'Z': return "boolean";
	case 'B': return "byte";
	case 'C': return "char";
	case 'S': return "short";
	case 'I': return "int";
	case 'J': return "long";
	case 'F': return "float";
	case 'D': return "double";
	case 'V': return "void";
	default: return NULL;
	}
}

/* One field type at *p (end e), appended in external form; advances *p.
 * 0 or -EINVAL.  void only where allow_void. */
static int put_type(struct out *o, const char **p, const char *e, bool allow_void)
{
	const char *s = *p;
	int dims = 0;

	while (s < e && *s == '[') {
		s++;
		dims++;
	}
	if (s >= e || dims > 255)
		return -EINVAL;
	if (*s == 'L') {
		const char *semi = memchr(s, ';', (size_t)(e - s));

		if (!semi || semi == s + 1)
			return -EINVAL;
		put_class(o, s + 1, (size_t)(semi - s - 1), false);
		s = semi + 1;
	} else {
		const char *prim = primitive(*s);

		if (!prim || (*s == 'V' && (dims || !allow_void)))
			return -EINVAL;
		puts_(o, prim);
		s++;
	}
	while (dims--)
		puts_(o, "[]");
	*p = s;
	return 0;
}

int vm_names_display(const char *klass, size_t klen, const char *name, size_t nlen,
		     const char *sig, size_t slen, char *out, size_t cap)
{
	struct out o = { out, 0, cap, 0 };
	const char *p, *e = sig + slen, *close;
	int rc;

	if (cap == 0)
		return -ENOSPC;
	out[0] = '\0';
	if (!klen || !nlen || memchr(klass, '\0', klen) || memchr(name, '\0', nlen) ||
	    slen < 3 || sig[0] != '(' || !(close = memchr(sig, ')', slen)))
		return -EINVAL;
	/* the return type first */
	p = close + 1;
	rc = put_type(&o, &p, e, true);
	if (rc || p != e)
		return -EINVAL;
	puts_(&o, " ");
	put_class(&o, klass, klen, true);
	puts_(&o, ".");
	put(&o, name, nlen);
	puts_(&o, "(");
	for (p = sig + 1; p < close && !o.err; ) {
		if (p != sig + 1)
			puts_(&o, ", ");
		rc = put_type(&o, &p, close, false);
		if (rc)
			return rc;
	}
	puts_(&o, ")");
	if (o.err)
		return o.err;
	return (int)o.len;
}

int vm_names_class(const char *klass, size_t klen, char *out, size_t cap)
{
	struct out o = { out, 0, cap, 0 };

	if (cap == 0)
		return -ENOSPC;
	out[0] = '\0';
	if (!klen || memchr(klass, '\0', klen))
		return -EINVAL;
	put_class(&o, klass, klen, true);
	return o.err ? o.err : (int)o.len;
}
