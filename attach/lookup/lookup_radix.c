/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lookup_radix.c - the radix index in front of the segment search.
 *
 * A binary search over 100k+ segment starts touches ~17 cache lines spread
 * over a megabyte: about 6 M lookups/s.  JIT code sits in one code cache, a
 * few hundred MB at most, so the high bits of an address already say which
 * few segments can hold it.  The index cuts [first start, last start] into
 * about as many equal power-of-two buckets as there are segments and keeps,
 * per bucket, how many segments start before it: a lookup is one shift, two
 * adjacent u32 loads, and a search over the handful of segments in that
 * bucket (lk_seg_find, inline in lookup_int.h: it is the whole hot path of
 * lookup_find and jsym_lookup_resolve).  A segment is one cache line that
 * also holds a copy of its entry's answer, so the public API's usual lookup
 * reads two lines: the bucket's counts and the segment.
 *
 * Hostile or odd layouts (stubs at 0x1000 and code at 0x7f..., one huge
 * cluster) only make some buckets fuller: the search inside a bucket is the
 * same binary search, so the worst case stays O(log n).
 */
#include <errno.h>
#include <stdlib.h>

#include "lookup_int.h"

#define RADIX_MAX_BUCKETS (1u << 24)

long lk_seg_bsearch(const struct lookup *lk, uint64_t addr)
{
	size_t p = lk_seg_upper(lk->seg, 0, lk->n_seg, addr);

	if (p == 0 || addr >= lk->seg[p - 1].end)
		return -1;
	return (long)(p - 1);
}


/* Start of bucket b, or UINT64_MAX when it lies past the address space. */
static uint64_t bucket_start(uint64_t base, unsigned shift, uint64_t b)
{
	uint64_t off;

	if (shift < 64 && b > (UINT64_MAX >> shift))
		return UINT64_MAX;
	off = shift < 64 ? b << shift : 0;
	return off > UINT64_MAX - base ? UINT64_MAX : base + off;
}

int lk_radix_build(struct lookup *lk)
{
	size_t n = lk->n_seg, j = 0, want;
	uint64_t span;
	unsigned shift = 0;

	lk->r_n = 0;
	if (!n)
		return 0;
	want = n < RADIX_MAX_BUCKETS ? n : RADIX_MAX_BUCKETS;
	lk->r_base = lk->seg[0].start;
	span = lk->seg[n - 1].start - lk->r_base; /* the last start is in bucket span >> shift */
	while (shift < 64 && (span >> shift) >= want)
		shift++;
	if (lk_grow((void **)&lk->r_idx, &lk->cap_r, (size_t)(span >> shift) + 2,
		    sizeof(*lk->r_idx)) < 0)
		return -ENOMEM;
	lk->r_shift = shift;
	lk->r_n = (size_t)(span >> shift) + 1;
	for (size_t b = 0; b <= lk->r_n; b++) {
		uint64_t bs = bucket_start(lk->r_base, shift, b);

		while (j < n && lk->seg[j].start < bs)
			j++;
		lk->r_idx[b] = (uint32_t)j;
	}
	return 0;
}
