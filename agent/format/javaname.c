/* SPDX-License-Identifier: Apache-2.0 */
/* javaname.c - Java's external names (javaname.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "javaname.h"

#define MAX_DIMS 255            /* the JVM's own limit on array dimensions */

struct out {
	char *p;
	size_t len, cap;
	int err;
};

/* Append n bytes; when they do not fit, append what does and note -ENOSPC. */
static void put(struct out *o, const char *s, size_t n)
{
	size_t room;

	if (o->err)
		return;
	room = o->cap - 1 - o->len;
	if (n > room) {
		n = room;
		o->err = -ENOSPC;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
	o->p[o->len] = '\0';
}

static void put_str(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static int done(const struct out *o)
{
	return o->err ? o->err : (int)o->len;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A hidden class's separator: the '+' (Symbol) or '.' (JVMTI) before a
 * trailing "0x<hex>"; NULL when the name has none. */
static const char *hidden_sep(const char *s, size_t n)
{
	size_t i = n;

	while (i > 0 && is_hex(s[i - 1]))
		i--;
	if (i == n || i < 3 || s[i - 1] != 'x' || s[i - 2] != '0' ||
	    (s[i - 3] != '+' && s[i - 3] != '.'))
		return NULL;
	return s + i - 3;
}

static void put_class(struct out *o, const char *s, size_t n)
{
	const char *sep = hidden_sep(s, n);
	size_t k;

	/* as put() of each byte, translated: what fits, then -ENOSPC */
	if (o->err)
		return;
	k = n < o->cap - 1 - o->len ? n : o->cap - 1 - o->len;
	for (size_t i = 0; i < k; i++)
		o->p[o->len + i] = s + i == sep ? '/' : s[i] == '/' ? '.' : s[i];
	o->len += k;
	o->p[o->len] = '\0';
	if (k < n)
		o->err = -ENOSPC;
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

/* One field type at *p (before e) appended in external form; *p advances
 * past it.  void only where allow_void.  0 or -EINVAL. */
static int put_type(struct out *o, const char **p, const char *e, bool allow_void)
{
	const char *s = *p;
	int dims = 0;

	while (s < e && *s == '[') {
		s++;
		dims++;
	}
	if (s >= e || dims > MAX_DIMS)
		return -EINVAL;
	if (*s == 'L') {
		const char *semi = memchr(s, ';', (size_t)(e - s));

		if (!semi || semi == s + 1 || memchr(s, '\0', (size_t)(semi - s)))
			return -EINVAL;
		put_class(o, s + 1, (size_t)(semi - s - 1));
		s = semi + 1;
	} else {
		const char *prim = primitive(*s);

		if (!prim || (*s == 'V' && (dims || !allow_void)))
			return -EINVAL;
		put_str(o, prim);
		s++;
	}
	while (dims--)
		put_str(o, "[]");
	*p = s;
	return 0;
}

/* An out over out[cap]; false (and nothing written) when cap is 0. */
static bool start(struct out *o, char *out, size_t cap)
{
	*o = (struct out){ out, 0, cap, 0 };
	if (!out || cap == 0)
		return false;
	out[0] = '\0';
	return true;
}

int javaname_class(const char *name, size_t n, char *out, size_t cap)
{
	struct out o;

	if (!start(&o, out, cap))
		return -ENOSPC;
	if (!name || n == 0 || memchr(name, '\0', n))
		return -EINVAL;
	put_class(&o, name, n);
	return done(&o);
}

int javaname_type(const char *desc, size_t n, char *out, size_t cap)
{
	struct out o;
	const char *p = desc;

	if (!start(&o, out, cap))
		return -ENOSPC;
	if (!desc || n == 0 || put_type(&o, &p, desc + n, false) < 0 || p != desc + n)
		return -EINVAL;
	return done(&o);
}

int javaname_method(const char *cls, size_t clen, const char *name, size_t nlen,
		    const char *sig, size_t slen, char *out, size_t cap)
{
	struct out o;
	const char *p, *e = sig + slen, *close;

	if (!start(&o, out, cap))
		return -ENOSPC;
	if (!cls || !name || !sig || !clen || !nlen || memchr(cls, '\0', clen) ||
	    memchr(name, '\0', nlen) || slen < 3 || sig[0] != '(' ||
	    !(close = memchr(sig, ')', slen)))
		return -EINVAL;
	p = close + 1;          /* the return type first */
	if (put_type(&o, &p, e, true) < 0 || p != e)
		return -EINVAL;
	put_str(&o, " ");
	put(&o, cls, clen);
	put_str(&o, ".");
	put(&o, name, nlen);
	put_str(&o, "(");
	for (p = sig + 1; p < close && !o.err; ) {
		if (p != sig + 1)
			put_str(&o, ", ");
		if (put_type(&o, &p, close, false) < 0)
			return -EINVAL;
	}
	put_str(&o, ")");
	return done(&o);
}

size_t javaname_anonymous_len(const char *name, size_t n)
{
	size_t i = n;

	while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
		i--;
	return i < n && i > 1 && name[i - 1] == '/' ? i - 1 : n;
}
