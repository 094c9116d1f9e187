/* SPDX-License-Identifier: Apache-2.0 */
/* jitunwind.c - one code load's unwinding data (jitunwind.h). */
#include "jitunwind.h"

#include <errno.h>
#include <string.h>

#include "codeheap.h"

int jitunwind_build(uint64_t start, uint64_t size, bool is_method, const char *name,
		    struct jitunwind *u)
{
	struct codeheap_blob b;
	struct frameshape_in in = { .arch = ehframe_host_arch(), .code = (const void *)(uintptr_t)start,
				    .size = size, .frame_complete = -1 };
	struct ehframe_row rows[EHFRAME_MAX_ROWS];
	uint64_t room, mapped;
	int n, len;

	memset(&u->found, 0, sizeof(u->found));
	u->folded = false;
	u->fixed = false;
	if (!start || !size)
		return -EINVAL;
	if (codeheap_blob_at(start, &b) < 0 || start + size > b.code_end)
		return -ENOENT;
	/* A stub that does not fill its blob shares it with others (the
	 * first stub of StubRoutines starts where the blob's code does). */
	u->packed = start != b.code_begin || (!is_method && start + size < b.code_end);
	if (name && !strcmp(name, "Interpreter")) {
		/* The interpreter's codelets fill the start of a blob of their
		 * own, generated once; the rest of it stays empty. */
		in.kind = FRAMESHAPE_INTERP;
		u->packed = start != b.code_begin;
	} else if (!u->packed && b.frame_words >= 2) {
		in.kind = FRAMESHAPE_FIXED;
		u->fixed = true;
		in.frame_words = b.frame_words;
		in.frame_complete = b.frame_complete;
	} else if (is_method && u->packed) {
		return -ENOENT;     /* a method's code is a blob of its own */
	} else {
		/* a stub, or a method handle intrinsic: an nmethod that builds
		 * no frame (_frame_size 0), only jumps to its target */
		in.kind = FRAMESHAPE_STUB;
	}
	n = frameshape_rows(&in, rows, EHFRAME_MAX_ROWS, &u->found);
	if (n <= 0)
		return n < 0 ? n : -EINVAL;
	len = ehframe_build(in.arch, size, size, rows, (size_t)n, u->data, sizeof(u->data), &u->sz);
	if (len < 0)
		return len;
	/* Where may the tables go?  A blob of its own: up to the next blob's
	 * code.  A stub packed with others: the next may start right at its
	 * end, now or later, so only over its own code. */
	mapped = ((uint64_t)len + 7) & ~7ull;
	room = !u->packed && b.limit > start ? b.limit - start : size;
	u->load_size = size;
	if (((size + 7) & ~7ull) + mapped > room) {
		/* Fold: the CODE_LOAD carries less code, the tables lie over
		 * the code's own last bytes (an nmethod's stubs section, a
		 * stub's exit), which the FDE still covers: they unwind, and
		 * perf shows them as [unknown] of this load. */
		if (room < mapped + 16)
			return -ERANGE;
		u->load_size = (room - mapped) & ~7ull;
		if (u->load_size > size)
			u->load_size = size;
		u->folded = true;
		len = ehframe_build(in.arch, size, u->load_size, rows, (size_t)n, u->data,
				    sizeof(u->data), &u->sz);
		if (len < 0)
			return len;
	}
	return 0;
}
