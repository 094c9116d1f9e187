/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hs_emu_catalog.c - the classes and methods this JVM "has loaded".
 *
 * Every method carries the name an agent should print for it, written here
 * by hand (HotSpot's Method::external_name form: return type, class, name,
 * parameter types; MethodHandle linkTo and invokeBasic intrinsics under one
 * name; a hidden class's '.' before its address suffix shown as '/').  The
 * emulator does not derive those names from the descriptors: the truth is
 * independent of the agent's descriptor parser.
 *
 * Two parts: hand-picked methods covering the naming rules, and a grid of
 * generated classes x method names x descriptors whose expected names are
 * glued from hand-written parts.  jclass and jmethodID values are addresses
 * inside the two arrays; anything else is refused.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_emu.h"

#define INTRINSIC "java.lang.invoke.MethodHandle.<linkTo*/invokeBasic intrinsic>"

struct fixed {
	const char *cls;        /* internal name */
	const char *name;
	const char *sig;
	const char *expect;
};

static const struct fixed fixed[] = {
	{ "java/lang/Thread", "<init>", "(Ljava/lang/String;)V",
	  "void java.lang.Thread.<init>(java.lang.String)" },
	{ "java/lang/String", "hashCode", "()I", "int java.lang.String.hashCode()" },
	{ "java/lang/String", "charAt", "(I)C", "char java.lang.String.charAt(int)" },
	{ "java/lang/String", "equals", "(Ljava/lang/Object;)Z",
	  "boolean java.lang.String.equals(java.lang.Object)" },
	{ "java/util/HashMap", "putVal", "(ILjava/lang/Object;Ljava/lang/Object;ZZ)Ljava/lang/Object;",
	  "java.lang.Object java.util.HashMap.putVal(int, java.lang.Object, java.lang.Object, "
	  "boolean, boolean)" },
	{ "java/util/HashMap", "resize", "()[Ljava/util/HashMap$Node;",
	  "java.util.HashMap$Node[] java.util.HashMap.resize()" },
	{ "java/util/HashMap$Node", "<init>",
	  "(ILjava/lang/Object;Ljava/lang/Object;Ljava/util/HashMap$Node;)V",
	  "void java.util.HashMap$Node.<init>(int, java.lang.Object, java.lang.Object, "
	  "java.util.HashMap$Node)" },
	{ "com/example/Main", "main", "([Ljava/lang/String;)V",
	  "void com.example.Main.main(java.lang.String[])" },
	{ "com/example/Main", "matrix", "([[D[[D)[[D",
	  "double[][] com.example.Main.matrix(double[][], double[][])" },
	{ "com/example/Main", "mix", "(BSCJFDZ)V",
	  "void com.example.Main.mix(byte, short, char, long, float, double, boolean)" },
	{ "com/example/Main$$Lambda$14.0x0000000800c0b000", "run", "()V",
	  "void com.example.Main$$Lambda$14/0x0000000800c0b000.run()" },
	{ "java/lang/invoke/MethodHandle", "linkToStatic",
	  "(Ljava/lang/Object;Ljava/lang/invoke/MemberName;)Ljava/lang/Object;", INTRINSIC },
	{ "java/lang/invoke/MethodHandle", "invokeBasic", "()Ljava/lang/Object;", INTRINSIC },
	{ "java/lang/invoke/MethodHandle", "bindTo",
	  "(Ljava/lang/Object;)Ljava/lang/invoke/MethodHandle;",
	  "java.lang.invoke.MethodHandle java.lang.invoke.MethodHandle.bindTo(java.lang.Object)" },
	{ "com/example/Odd", "line\nbreak", "()V", "void com.example.Odd.line\nbreak()" },
	{ "com/example/Gr\xc3\xb6\xc3\x9f" "e", "wert", "()I",
	  "int com.example.Gr\xc3\xb6\xc3\x9f" "e.wert()" },
};

/* The generated grid: gen/p<k>/Work<k>.m<i><descriptor>. */
#define GEN_CLASSES 16
#define GEN_NAMES 8

static const struct {
	const char *sig, *ret, *params;
} descs[] = {
	{ "()V", "void", "" },
	{ "(I)J", "long", "int" },
	{ "(Ljava/lang/String;I)Ljava/lang/String;", "java.lang.String", "java.lang.String, int" },
	{ "([BII)I", "int", "byte[], int, int" },
	{ "(JLjava/util/List;)Z", "boolean", "long, java.util.List" },
	{ "([[Ljava/lang/Object;D)[F", "float[]", "java.lang.Object[][], double" },
};

#define N_FIXED (sizeof(fixed) / sizeof(fixed[0]))
#define N_DESCS (sizeof(descs) / sizeof(descs[0]))
#define MAX_CLASSES (N_FIXED + GEN_CLASSES)

static struct emu_class *classes;
static size_t n_classes;
static struct emu_method *methods;
static size_t n_methods;

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		emu_abort("out of memory building the catalogue");
	return p;
}

static char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *xprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		emu_abort("out of memory building the catalogue");
	va_end(ap);
	return p;
}

static struct emu_class *class_for(const char *internal)
{
	struct emu_class *c;

	for (size_t i = 0; i < n_classes; i++)
		if (!strcmp(classes[i].internal, internal))
			return &classes[i];
	c = &classes[n_classes++];
	c->hdr.magic = EMU_OBJ_MAGIC;
	c->hdr.kind = OBJ_CLASS;
	c->internal = xstrdup(internal);
	c->sig = xprintf("L%s;", internal);
	return c;
}

static void add_method(const struct emu_class *c, const char *name, const char *sig,
		       const char *expect)
{
	struct emu_method *m = &methods[n_methods++];

	m->magic = EMU_METHOD_MAGIC;
	m->cls = c;
	m->name = name;
	m->sig = sig;
	m->expect = expect;
}

void catalog_init(void)
{
	classes = calloc(MAX_CLASSES, sizeof(*classes));
	methods = calloc(N_FIXED + GEN_CLASSES * GEN_NAMES * N_DESCS, sizeof(*methods));
	if (!classes || !methods)
		emu_abort("out of memory building the catalogue");
	for (size_t i = 0; i < N_FIXED; i++)
		add_method(class_for(fixed[i].cls), fixed[i].name, fixed[i].sig, fixed[i].expect);
	for (int k = 0; k < GEN_CLASSES; k++) {
		char internal[64], external[64];
		struct emu_class *c;

		snprintf(internal, sizeof(internal), "gen/p%d/Work%d", k, k);
		snprintf(external, sizeof(external), "gen.p%d.Work%d", k, k);
		c = class_for(internal);
		for (int i = 0; i < GEN_NAMES; i++)
			for (size_t d = 0; d < N_DESCS; d++)
				add_method(c, xprintf("m%d", i), descs[d].sig,
					   xprintf("%s %s.m%d(%s)", descs[d].ret, external, i,
						   descs[d].params));
	}
}

size_t catalog_count(void)
{
	return n_methods;
}

const struct emu_method *catalog_method(size_t i)
{
	return i < n_methods ? &methods[i] : NULL;
}

const struct emu_class *catalog_find_class(const char *internal)
{
	for (size_t i = 0; i < n_classes; i++)
		if (!strcmp(classes[i].internal, internal))
			return &classes[i];
	return NULL;
}

const struct emu_method *catalog_find_method(const struct emu_class *c, const char *name,
					     const char *sig)
{
	for (size_t i = 0; i < n_methods; i++)
		if (methods[i].cls == c && !strcmp(methods[i].name, name) &&
		    !strcmp(methods[i].sig, sig))
			return &methods[i];
	return NULL;
}

const struct emu_method *catalog_method_of(const void *p)
{
	const struct emu_method *m = p;

	if (!p || m < methods || m >= methods + n_methods ||
	    (size_t)((const char *)m - (const char *)methods) % sizeof(*m))
		return NULL;
	return m;
}

const struct emu_class *catalog_class_of(const void *p)
{
	const struct emu_class *c = p;

	if (!p || c < classes || c >= classes + n_classes ||
	    (size_t)((const char *)c - (const char *)classes) % sizeof(*c))
		return NULL;
	return c;
}
