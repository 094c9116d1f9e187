/*
 * unfold.c - inlined ranges of a compiled method.
 */
#include "unfold.h"

#include <jvmticmlr.h>

int unfold_ranges(jmethodID root, uint64_t code_start, uint64_t code_size,
		  const void *compile_info, struct unfold_range *out, int max)
{
	const jvmtiCompiledMethodLoadRecordHeader *h = compile_info;
	uint64_t code_end = code_start + code_size;
	int n = 0;

	for (; h; h = h->next) {
		const jvmtiCompiledMethodLoadInlineRecord *r;

		if (h->kind != JVMTI_CMLR_INLINE_INFO)
			continue;
		r = (const jvmtiCompiledMethodLoadInlineRecord *)h;
		for (jint i = 0; i < r->numpcs && r->pcinfo; i++) {
			const PCStackInfo *pc = &r->pcinfo[i];
			uint64_t start = (uint64_t)(uintptr_t)pc->pc;
			uint64_t end = i + 1 < r->numpcs ? (uint64_t)(uintptr_t)r->pcinfo[i + 1].pc
							  : code_end;
			jmethodID m;

			if (pc->numstackframes < 1 || !pc->methods)
				continue;
			m = pc->methods[0];
			if (m == root || start < code_start || start >= code_end || end <= start)
				continue;
			if (end > code_end)
				end = code_end;
			if (n > 0 && out[n - 1].method == m &&
			    out[n - 1].start + out[n - 1].size == start) {
				out[n - 1].size = end - out[n - 1].start;
				continue;
			}
			if (n == max)
				return n;
			out[n].start = start;
			out[n].size = end - start;
			out[n].method = m;
			n++;
		}
	}
	return n;
}
