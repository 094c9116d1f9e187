/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jitunwind.h - the JIT_CODE_UNWINDING_INFO of one code load of the jitdump:
 * the blob that holds the code is read from HotSpot's code heap (its frame
 * size and frame-complete offset, codeheap.h), its frame shape found in its
 * instructions (frameshape.h), and the tables encoded (ehframe.h).
 *
 * perf maps the tables right after the code, over whatever follows it in
 * the code cache, and where two of its maps overlap the later one wins: a
 * map over another load's code would hide it (misnamed), another load over
 * the tables would hide them (no unwinding).  So the mapped range [code end
 * rounded up to 8, + mapped size) must stay clear of any other code:
 *  - a blob of its own (an nmethod, a runtime stub, the interpreter, an
 *    adapter): up to the next blob's code in the code heap (an nmethod's
 *    data and the next block's headers follow its code);
 *  - a stub packed with others in one blob (StubRoutines): within its own
 *    code, since the next stub may start right at its end, now or later.
 * Where the tables do not fit after the code they are folded over its own
 * last bytes: the CODE_LOAD carries load_size < size bytes, the FDE still
 * covers all of them, so they unwind and perf names them [unknown].
 * docs/whole-stacks.md has the measurements.
 */
#ifndef JSYM_JITUNWIND_H
#define JSYM_JITUNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include "ehframe.h"
#include "frameshape.h"

struct jitunwind {
	unsigned char data[EHFRAME_MAX_BYTES];   /* .eh_frame then .eh_frame_hdr */
	struct ehframe_sizes sz;
	bool packed;                     /* a stub inside another blob */
	bool folded;                     /* load_size < size (see above) */
	bool fixed;                      /* a frame of CodeBlob::_frame_size
	                                    (found.prologue_end < 0: its
	                                    prologue was not found) */
	uint64_t load_size;              /* the code the CODE_LOAD carries */
	int why;                         /* the caller's: jitunwind_build's
	                                    error when there is no data */
	struct frameshape_found found;
};

/*
 * Build the tables of the code at [start, start+size), live and readable
 * now: a compiled method (is_method) or a stub named `name` ("Interpreter"
 * is the template interpreter).  0 (u filled: write a CODE_LOAD of
 * u->load_size bytes after the record), -ENOENT (the code is in no code
 * heap jsym can read: no data), -ERANGE (too small to fold the tables
 * into: no data), or -EINVAL.
 */
int jitunwind_build(uint64_t start, uint64_t size, bool is_method, const char *name,
		    struct jitunwind *u);


#endif
