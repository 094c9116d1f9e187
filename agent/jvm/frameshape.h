/* SPDX-License-Identifier: Apache-2.0 */
/*
 * frameshape.h - the frame of a piece of HotSpot JIT code, as unwinding rows
 * (agent/format/ehframe.h): where the caller's stack pointer, return address
 * and frame pointer are at each instruction, without -XX:+PreserveFramePointer.
 *
 * The facts (docs/whole-stacks.md, from HotSpot's x86_64.ad, aarch64.ad,
 * c1_MacroAssembler_*.cpp and macroAssembler_*.cpp of JDK 8 to 26):
 *  - compiled methods and C2's runtime stubs have a fixed frame of
 *    CodeBlob::_frame_size words (return address and saved frame pointer
 *    included) once their prologue is done: CFA = sp + 8 * frame_size.  The
 *    prologue and each epilogue are found by their exact instructions, whose
 *    immediates follow from that frame size; where none is found the frame
 *    is taken as built from _frame_complete_offset on;
 *  - interpreter frames keep a frame pointer; the caller's stack pointer is
 *    the sender SP the interpreter saved at fp - 8 (a compiled caller that
 *    went through a c2i adapter has its frame above the adapter's space);
 *  - the call stub and most of StubRoutines' stubs open with `enter`
 *    (push rbp; mov rbp, rsp / stp x29, x30, [sp, #-16]!; mov x29, sp);
 *  - adapters, vtable and itable stubs and leaf stubs build no frame.
 * Pure: reads only the code bytes given; both architectures on any host.
 */
#ifndef JSYM_FRAMESHAPE_H
#define JSYM_FRAMESHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "ehframe.h"

enum frameshape_kind {
	FRAMESHAPE_FIXED,    /* a compiled method or a stub with a frame size */
	FRAMESHAPE_INTERP,   /* the template interpreter */
	FRAMESHAPE_STUB,     /* a stub of unknown frame: `enter` if it opens with
	                        one, else frameless */
};

struct frameshape_in {
	enum ehframe_arch arch;
	enum frameshape_kind kind;
	const unsigned char *code;   /* the code's bytes, readable */
	uint64_t size;
	uint32_t frame_words;        /* FIXED: CodeBlob::_frame_size, >= 2 */
	int64_t frame_complete;      /* FIXED: _frame_complete_offset from the
	                                code's start, or -1 (unknown) */
};

/* What frameshape_rows found, for the counters and the tests. */
struct frameshape_found {
	int32_t prologue_end;        /* offset after the prologue, or -1 */
	uint32_t epilogues;          /* epilogues given rows of their own */
	uint8_t fp_stub;             /* STUB: opens with `enter` */
};

/*
 * Fill rows[0..cap) for the code in `in` (cap >= 4; EHFRAME_MAX_ROWS is
 * always enough) and return how many, or -EINVAL (a FIXED frame below 2
 * words or past 1 MiB, no code).  Rows that would pass cap are left out
 * from the last epilogue backwards, never the prologue's.
 */
int frameshape_rows(const struct frameshape_in *in, struct ehframe_row *rows, size_t cap,
		    struct frameshape_found *found);

#endif
