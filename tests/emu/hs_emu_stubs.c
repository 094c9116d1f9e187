/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hs_emu_stubs.c - one loud stub per JNI and JVMTI table slot, so an agent
 * calling a function the emulator does not implement is found at once.
 *
 * A JNI stub aborts (its return type is unknown, nothing sane can be
 * returned).  A JVMTI stub logs "MISSING JVMTI function #N" on stderr and in
 * the log and returns JVMTI_ERROR_NOT_AVAILABLE; with --strict it aborts.
 * N is the number in jvmti.h's comments ("/" "*  N : Name *" "/") and in
 * jni.h the slot index (GetVersion is 4).
 *
 * The stubs take no parameters: they are called through the slot's own
 * function type, which on the Linux ABIs only leaves the arguments unread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_emu.h"

typedef void (*slot_fn)(void);

#define TEN(M, p) M(p##0) M(p##1) M(p##2) M(p##3) M(p##4) \
		  M(p##5) M(p##6) M(p##7) M(p##8) M(p##9)

static _Noreturn void missing_jni(int n)
{
	emu_abort("MISSING JNI function #%d called (slot %d of JNINativeInterface_ in jni.h): "
		  "not emulated", n, n);
}

static jvmtiError missing_jvmti(int n)
{
	if (emu.o.jvmti_strict)
		emu_abort("MISSING JVMTI function #%d called (jvmti.h numbering): not emulated", n);
	emu_log("MISSING JVMTI function #%d called (jvmti.h numbering): not emulated, "
		"JVMTI_ERROR_NOT_AVAILABLE", n);
	fprintf(stderr, "hs_emu: MISSING JVMTI function #%d called: JVMTI_ERROR_NOT_AVAILABLE\n",
		n);
	return JVMTI_ERROR_NOT_AVAILABLE;
}

#define JNI_DEF(n) static void jni_missing_##n(void) { missing_jni(n); }
#define JNI_REF(n) jni_missing_##n,
/* slot i holds JVMTI function number i + 1 */
#define JVMTI_DEF(n) static jvmtiError jvmti_missing_##n(void) { return missing_jvmti(n + 1); }
#define JVMTI_REF(n) (slot_fn)jvmti_missing_##n,

TEN(JNI_DEF, ) TEN(JNI_DEF, 1) TEN(JNI_DEF, 2) TEN(JNI_DEF, 3) TEN(JNI_DEF, 4)
TEN(JNI_DEF, 5) TEN(JNI_DEF, 6) TEN(JNI_DEF, 7) TEN(JNI_DEF, 8) TEN(JNI_DEF, 9)
TEN(JNI_DEF, 10) TEN(JNI_DEF, 11) TEN(JNI_DEF, 12) TEN(JNI_DEF, 13) TEN(JNI_DEF, 14)
TEN(JNI_DEF, 15) TEN(JNI_DEF, 16) TEN(JNI_DEF, 17) TEN(JNI_DEF, 18) TEN(JNI_DEF, 19)
TEN(JNI_DEF, 20) TEN(JNI_DEF, 21) TEN(JNI_DEF, 22) TEN(JNI_DEF, 23)

TEN(JVMTI_DEF, ) TEN(JVMTI_DEF, 1) TEN(JVMTI_DEF, 2) TEN(JVMTI_DEF, 3) TEN(JVMTI_DEF, 4)
TEN(JVMTI_DEF, 5) TEN(JVMTI_DEF, 6) TEN(JVMTI_DEF, 7) TEN(JVMTI_DEF, 8) TEN(JVMTI_DEF, 9)
TEN(JVMTI_DEF, 10) TEN(JVMTI_DEF, 11) TEN(JVMTI_DEF, 12) TEN(JVMTI_DEF, 13)
TEN(JVMTI_DEF, 14) TEN(JVMTI_DEF, 15)

static const slot_fn jni_stubs[] = {
	TEN(JNI_REF, ) TEN(JNI_REF, 1) TEN(JNI_REF, 2) TEN(JNI_REF, 3) TEN(JNI_REF, 4)
	TEN(JNI_REF, 5) TEN(JNI_REF, 6) TEN(JNI_REF, 7) TEN(JNI_REF, 8) TEN(JNI_REF, 9)
	TEN(JNI_REF, 10) TEN(JNI_REF, 11) TEN(JNI_REF, 12) TEN(JNI_REF, 13) TEN(JNI_REF, 14)
	TEN(JNI_REF, 15) TEN(JNI_REF, 16) TEN(JNI_REF, 17) TEN(JNI_REF, 18) TEN(JNI_REF, 19)
	TEN(JNI_REF, 20) TEN(JNI_REF, 21) TEN(JNI_REF, 22) TEN(JNI_REF, 23)
};

static const slot_fn jvmti_stubs[] = {
	TEN(JVMTI_REF, ) TEN(JVMTI_REF, 1) TEN(JVMTI_REF, 2) TEN(JVMTI_REF, 3)
	TEN(JVMTI_REF, 4) TEN(JVMTI_REF, 5) TEN(JVMTI_REF, 6) TEN(JVMTI_REF, 7)
	TEN(JVMTI_REF, 8) TEN(JVMTI_REF, 9) TEN(JVMTI_REF, 10) TEN(JVMTI_REF, 11)
	TEN(JVMTI_REF, 12) TEN(JVMTI_REF, 13) TEN(JVMTI_REF, 14) TEN(JVMTI_REF, 15)
};

_Static_assert(sizeof(struct JNINativeInterface_) <= sizeof(jni_stubs),
	       "jni.h has more JNI slots than stubs: add a TEN() line");
_Static_assert(sizeof(struct jvmtiInterface_1_) <= sizeof(jvmti_stubs),
	       "jvmti.h has more JVMTI slots than stubs: add a TEN() line");

void stubs_fill_jni(void *table, size_t n)
{
	memcpy(table, jni_stubs, n * sizeof(slot_fn));
}

void stubs_fill_jvmti(void *table, size_t n)
{
	memcpy(table, jvmti_stubs, n * sizeof(slot_fn));
}
