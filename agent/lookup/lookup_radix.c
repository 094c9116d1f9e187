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
 * adjacent u32 loads, and a search over the handful of starts in that bucket.
 *
 * Hostile or odd layouts (stubs at 0x1000 and code at 0x7f..., one huge
 * cluster) only make some buckets fuller: the search inside a bucket is the
 * same binary search, so the worst case stays O(log n).
 */
#include <errno.h>
#include <stdlib.h>

#include "lookup_int.h"

#define RADIX_MAX_BUCKETS (1u << 24)

/* Count of s_start[lo, hi) that are <= addr, plus lo. */
static size_t upper(const uint64_t *s, size_t lo, size_t hi, uint64_t addr)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

long lk_seg_bsearch(const struct lookup *lk, uint64_t addr)
{
	size_t p = upper(lk->s_start, 0, lk->n_seg, addr);

	if (p == 0 || addr >= lk->s_end[p - 1])
		return -1;
	return (long)(p - 1);
}

long lk_seg_find(const struct lookup *lk, uint64_t addr)
{
	uint64_t b;
	size_t p;

	if (!lk->r_n || addr < lk->r_base)
		return -1;
	b = (addr - lk->r_base) >> lk->r_shift;
	if (b >= lk->r_n)
		p = lk->n_seg; /* past the last start: every segment starts before */
	else
		p = upper(lk->s_start, lk->r_idx[b], lk->r_idx[b + 1], addr);
	if (p == 0 || addr >= lk->s_end[p - 1])
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
	lk->r_base = lk->s_start[0];
	span = lk->s_start[n - 1] - lk->r_base; /* the last start is in bucket span >> shift */
	while (shift < 64 && (span >> shift) >= want)
		shift++;
	if (lk_grow((void **)&lk->r_idx, &lk->cap_r, (size_t)(span >> shift) + 2,
		    sizeof(*lk->r_idx)) < 0)
		return -ENOMEM;
	lk->r_shift = shift;
	lk->r_n = (size_t)(span >> shift) + 1;
	for (size_t b = 0; b <= lk->r_n; b++) {
		uint64_t bs = bucket_start(lk->r_base, shift, b);

		while (j < n && lk->s_start[j] < bs)
			j++;
		lk->r_idx[b] = (uint32_t)j;
	}
	return 0;
}
