/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_agent_names.c - JVM descriptors to the text jcmd Compiler.perfmap
 * prints (the expected strings were taken from JDK 17 and 25 maps).
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "names.h"

extern Suite *agent_names_suite(void); /* listed in the runner by tests/tests.mk */

static const struct {
	const char *sig, *want;
} classes[] = {
	{ "Ljava/util/HashMap;", "java.util.HashMap" },
	{ "Ljava/util/HashMap$Node;", "java.util.HashMap$Node" },
	{ "LBusy;", "Busy" },
	{ "[I", "int[]" },
	{ "[[J", "long[][]" },
	{ "[Ljava/lang/String;", "java.lang.String[]" },
	{ "[[Ljava/util/Map$Entry;", "java.util.Map$Entry[][]" },
	{ "LExp$$Lambda$1.0x00007f35bc000a08;", "Exp$$Lambda$1/0x00007f35bc000a08" },
	{ "Ljava/lang/invoke/LambdaForm$MH.0x0000000800c01000;",
	  "java.lang.invoke.LambdaForm$MH/0x0000000800c01000" },
	{ "LAgentBusy$$Lambda.0x0000000028040210;", "AgentBusy$$Lambda/0x0000000028040210" },
};

START_TEST(test_class_names)
{
	char out[256];

	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		int n = names_class_external(classes[i].sig, 17, out, sizeof(out));

		ck_assert_msg(n == (int)strlen(classes[i].want), "%s -> %d", classes[i].sig, n);
		ck_assert_str_eq(out, classes[i].want);
	}
}
END_TEST

static const struct {
	const char *cls, *name, *sig, *want;
} methods[] = {
	{ "Busy", "heavyCompute", "(I)J", "long Busy.heavyCompute(int)" },
	{ "java.util.HashMap", "resize", "()[Ljava/util/HashMap$Node;",
	  "java.util.HashMap$Node[] java.util.HashMap.resize()" },
	{ "java.util.HashMap", "putVal", "(ILjava/lang/Object;Ljava/lang/Object;ZZ)Ljava/lang/Object;",
	  "java.lang.Object java.util.HashMap.putVal(int, java.lang.Object, java.lang.Object, boolean, "
	  "boolean)" },
	{ "java.lang.Object", "<init>", "()V", "void java.lang.Object.<init>()" },
	{ "Exp$Inner", "arr", "([Ljava/lang/String;[[J)[I",
	  "int[] Exp$Inner.arr(java.lang.String[], long[][])" },
	{ "X", "all", "(BCDFIJSZ)V", "void X.all(byte, char, double, float, int, long, short, boolean)" },
	{ "X", "<clinit>", "()V", "void X.<clinit>()" },
	/* generics are erased in descriptors: List<String> get(Map<K,V>) */
	{ "G", "get", "(Ljava/util/Map;)Ljava/util/List;", "java.util.List G.get(java.util.Map)" },
	{ "Exp$$Lambda$1/0x00007f35bc000a08", "applyAsInt", "(I)I",
	  "int Exp$$Lambda$1/0x00007f35bc000a08.applyAsInt(int)" },
	{ "jdk.internal.org.objectweb.asm.Symbol", "<init>",
	  "(IILjava/lang/String;Ljava/lang/String;Ljava/lang/String;J)V",
	  "void jdk.internal.org.objectweb.asm.Symbol.<init>(int, int, java.lang.String, "
	  "java.lang.String, java.lang.String, long)" },
};

START_TEST(test_method_display)
{
	char out[512];

	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		int n = names_method_display(methods[i].cls, methods[i].name, methods[i].sig, out,
					     sizeof(out));

		ck_assert_msg(n == (int)strlen(methods[i].want), "%s%s -> %d", methods[i].name,
			      methods[i].sig, n);
		ck_assert_str_eq(out, methods[i].want);
	}
}
END_TEST

START_TEST(test_malformed)
{
	char out[64];

	ck_assert_int_eq(names_class_external("Ljava/lang/String", 17, out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(names_class_external("[Q", 17, out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(names_class_external("[V", 17, out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(names_class_external("", 17, out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(names_method_display("A", "m", "I)V", out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(names_method_display("A", "m", "(I", out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(names_method_display("A", "m", "(V)V", out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(names_method_display("A", "m", "(L;)V", out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(names_method_display("A", "m", "(Lx)V", out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(names_method_display("A", "m", "()VX", out, sizeof(out)), -EINVAL);
}
END_TEST

START_TEST(test_truncation)
{
	char out[12];

	ck_assert_int_eq(names_method_display("java.util.HashMap", "resize", "()V", out,
					      sizeof(out)), -ENOSPC);
	ck_assert_str_eq(out, "void java.u");
	ck_assert_int_eq(names_class_external("Ljava/util/HashMap;", 17, out, sizeof(out)), -ENOSPC);
	ck_assert_uint_eq(strlen(out), sizeof(out) - 1);
}
END_TEST

START_TEST(test_intrinsics)
{
	const char *want = "java.lang.invoke.MethodHandle.<linkTo*/invokeBasic intrinsic>";

	ck_assert_str_eq(names_intrinsic_display("java.lang.invoke.MethodHandle", "linkToStatic"), want);
	ck_assert_str_eq(names_intrinsic_display("java.lang.invoke.MethodHandle", "invokeBasic"), want);
	ck_assert_ptr_null(names_intrinsic_display("java.lang.invoke.MethodHandle", "invoke"));
	ck_assert_ptr_null(names_intrinsic_display("java.lang.invoke.MethodHandles", "linkToStatic"));
	ck_assert_ptr_null(names_intrinsic_display(NULL, "linkToStatic"));
}
END_TEST

Suite *agent_names_suite(void)
{
	Suite *s = suite_create("agent_names");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_class_names);
	tcase_add_test(tc, test_method_display);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_truncation);
	tcase_add_test(tc, test_intrinsics);
	suite_add_tcase(s, tc);
	return s;
}
