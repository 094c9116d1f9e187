/*
 * unfold.h - inlined ranges from a CompiledMethodLoad's compile_info
 * (jvmticmlr.h, JVMTI_CMLR_INLINE_INFO), journaled as JF_INLINE records.
 *
 * For each PC descriptor, methods[0] is the innermost frame: the range from
 * that PC to the next one belongs to it.  Consecutive PCs with the same
 * innermost method are merged; ranges of the root method itself are
 * skipped.  PCs exist only at safepoints unless -XX:+DebugNonSafepoints,
 * so ranges are approximate without it.
 */
#ifndef JSYM_UNFOLD_H
#define JSYM_UNFOLD_H

#include <stdint.h>
#include <jvmti.h>

struct unfold_range {
	uint64_t start, size;
	jmethodID method;
};

/*
 * Compute the ranges of one compiled method into out[max]; returns how many
 * (at most max).  Pure: no JVMTI calls, so it is unit-testable.
 */
int unfold_ranges(jmethodID root, uint64_t code_start, uint64_t code_size,
		  const void *compile_info, struct unfold_range *out, int max);

#endif
