/* SPDX-License-Identifier: Apache-2.0 */
/*
 * names.c - JVM descriptors to Java's external form.
 *
 * Matches HotSpot's Method::external_name(): the return type, a space, the
 * declaring class, '.', the method name, then the parameter types between
 * parentheses separated by ", ".  Generics are already erased in
 * descriptors.  A hidden class's JVMTI signature separates its name from
 * the address suffix with '.', which never occurs in an internal binary
 * name; HotSpot prints that separator as '/'.
 */
#include "names.h"

#include <errno.h>
#include <string.h>

struct sb {
	char *out;
	size_t cap;
	size_t len;
	int err;
};

static void sb_putn(struct sb *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (b->len + n >= b->cap) {
		size_t room = b->cap - 1 - b->len;

		memcpy(b->out + b->len, s, room);
		b->len += room;
		b->out[b->len] = '\0';
		b->err = -ENOSPC;
		return;
	}
	memcpy(b->out + b->len, s, n);
	b->len += n;
	b->out[b->len] = '\0';
}

static void sb_puts(struct sb *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

static int sb_done(struct sb *b)
{
	return b->err ? b->err : (int)b->len;
}

static const char *primitive_name(char c)
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

/* Append the external form of an internal binary name [s, end). */
static void put_binary_name(struct sb *b, const char *s, const char *end)
{
	const char *hidden = NULL;

	for (const char *p = s; p < end; p++)
		if (*p == '.')
			hidden = p;
	for (const char *p = s; p < end && !b->err; p++) {
		char c = *p;

		if (c == '/')
			c = '.';
		else if (p == hidden)
			c = '/';
		sb_putn(b, &c, 1);
	}
}

/*
 * Decode one field descriptor at *pp, append its external form and advance
 * *pp past it.  Returns 0 or -EINVAL.
 */
static int put_field_type(struct sb *b, const char **pp)
{
	const char *p = *pp;
	int dims = 0;
	const char *prim;

	while (*p == '[') {
		dims++;
		p++;
	}
	if (*p == 'L') {
		const char *end = strchr(p, ';');

		if (!end || end == p + 1)
			return -EINVAL;
		put_binary_name(b, p + 1, end);
		p = end + 1;
	} else if ((prim = primitive_name(*p)) != NULL && (*p != 'V' || dims == 0)) {
		sb_puts(b, prim);
		p++;
	} else {
		return -EINVAL;
	}
	while (dims-- > 0)
		sb_puts(b, "[]");
	*pp = p;
	return 0;
}

int names_class_external(const char *class_sig, char *out, size_t cap)
{
	struct sb b = { out, cap, 0, 0 };
	const char *p = class_sig;

	if (!out || cap == 0)
		return -EINVAL;
	out[0] = '\0';
	if (!class_sig || !*class_sig)
		return -EINVAL;
	if (*p != 'L' && *p != '[') {
		/* Not a signature: take it as an internal name ("java/lang/Foo"). */
		put_binary_name(&b, p, p + strlen(p));
		return sb_done(&b);
	}
	if (put_field_type(&b, &p) < 0 || *p != '\0')
		return -EINVAL;
	return sb_done(&b);
}

int names_method_display(const char *class_external, const char *method_name,
			 const char *method_sig, char *out, size_t cap)
{
	struct sb b = { out, cap, 0, 0 };
	const char *params, *ret;
	const char *p;
	int first = 1;

	if (!out || cap == 0)
		return -EINVAL;
	out[0] = '\0';
	if (!class_external || !method_name || !method_sig || method_sig[0] != '(')
		return -EINVAL;
	params = method_sig + 1;
	ret = strchr(params, ')');
	if (!ret)
		return -EINVAL;
	ret++;
	p = ret;
	if (put_field_type(&b, &p) < 0 || *p != '\0')
		return -EINVAL;
	sb_puts(&b, " ");
	sb_puts(&b, class_external);
	sb_puts(&b, ".");
	sb_puts(&b, method_name);
	sb_puts(&b, "(");
	p = params;
	while (*p != ')') {
		if (!first)
			sb_puts(&b, ", ");
		first = 0;
		if (*p == 'V' || put_field_type(&b, &p) < 0)
			return -EINVAL;
	}
	sb_puts(&b, ")");
	return sb_done(&b);
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
