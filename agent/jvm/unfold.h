/* SPDX-License-Identifier: Apache-2.0 */
/*
 * unfold.h - the inline chains of a compiled method, from the compile_info
 * of CompiledMethodLoad (jvmticmlr.h, JVMTI_CMLR_INLINE_INFO), journaled as
 * JF_FRAMES records (frames.h).
 *
 * Each PCStackInfo is one of HotSpot's PC descriptors: the JVM stack at that
 * code address, methods[0]/bcis[0] innermost, methods[n-1] the compiled
 * method itself.  HotSpot's own approximate lookup (nmethod.cpp, match_desc;
 * AsyncGetCallTrace and async-profiler use it) gives the descriptor at pc_i
 * the code offsets (pc_{i-1}, pc_i]: the instructions that lead up to a call
 * or safepoint belong to the scope of that call, and a return address is
 * the pc of its call's descriptor.  unfold follows that rule.  Descriptors
 * exist only at safepoints and calls unless -XX:+DebugNonSafepoints, so
 * ranges are approximate without it.
 */
#ifndef JSYM_UNFOLD_H
#define JSYM_UNFOLD_H

#include <stdint.h>
#include <jvmti.h>

#include "hashtab.h"

#define UNFOLD_MAX_DEPTH 256     /* frames kept per range (outermost first) */
#define UNFOLD_MAX_METHODS 4096  /* distinct methods per compiled method */
#define UNFOLD_NO_BCI 0xffff

/* One range of the compiled code and its chain: frames[first .. first+depth). */
struct unfold_range {
	uint32_t off, size;       /* from the compiled method's code start */
	uint32_t first;
	uint16_t depth;
};

/* One frame of a chain: an index into methods[], and its bci (UNFOLD_NO_BCI
 * when JVMTI gave none or it does not fit 16 bits; Java bytecode is < 64 KiB). */
struct unfold_frame {
	uint16_t method;
	uint16_t bci;
};

struct unfold_info {
	struct unfold_range *ranges;
	struct unfold_frame *frames;
	jmethodID *methods;       /* distinct methods; [0] is the compiled method */
	uint32_t n_ranges, n_frames, n_methods;
	uint32_t cap_ranges, cap_frames, cap_methods;
	struct hashtab seen;      /* jmethodID -> index in methods[] (unfold.c) */
};

/*
 * Collect the chains of one compiled method into *u (emptied first; memory
 * is reused across calls, release it with unfold_free).  Consecutive
 * descriptors with the same chain (methods and bcis) are merged.  Chains
 * are outermost first, so frame `first` is always the compiled method.
 * Returns the number of ranges, or -ENOMEM (u then holds what fitted).
 * Pure: no JVMTI calls, so it is unit-testable.
 */
int unfold_chains(jmethodID root, uint64_t code_start, uint64_t code_size,
		  const void *compile_info, struct unfold_info *u);

void unfold_free(struct unfold_info *u);

#endif
