/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lookup_index.c - the query side of the address index.
 *
 * The query structure is a sorted array of disjoint segments [start, end) ->
 * entry index, rebuilt lazily (on the first lookup_find after a change) by a
 * sweep over the live entries in start order with a max-heap on id: the
 * winner of each piece of address space is the live entry with the highest id
 * covering it.  Queries go through the radix index of lookup_radix.c.
 *
 * The start order is kept between rebuilds: only the entries added since the
 * last one are sorted and merged in, dead ones dropped on the way, so a
 * rebuild after a small batch (a followed JVM) costs O(n + k log k), not
 * O(n log n).  Live code does not overlap, so the heap stays tiny.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lookup_int.h"

/* ---- rebuild: entries -> disjoint segments ------------------------------ */

struct heap_item {
	uint64_t id, end;
	uint32_t ent;
};

static void heap_push(struct heap_item *h, size_t *n, struct heap_item it)
{
	size_t i = (*n)++;

	while (i && h[(i - 1) / 2].id < it.id) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = it;
}

static void heap_pop(struct heap_item *h, size_t *n)
{
	struct heap_item last = h[--(*n)];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1].id > h[c].id)
			c++;
		if (h[c].id <= last.id)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = last;
}

static int by_start(const void *a, const void *b)
{
	const struct start_idx *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Append a segment (capacity reserved by the caller), merging with its twin. */
static void emit(struct lookup *lk, uint64_t start, uint64_t end, uint32_t ent)
{
	size_t n = lk->n_seg;
	const struct lk_ent *e;

	if (n && lk->seg[n - 1].ent == ent && lk->seg[n - 1].end == start) {
		lk->seg[n - 1].end = end;
		return;
	}
	e = &lk->ents[ent];
	lk->seg[n] = (struct lk_seg){
		.start = start,
		.end = end,
		.e_start = e->start,
		.strs = e->strs,
		.id = e->id,
		.o_method = e->o_method,
		.o_sig = e->o_sig,
		.o_name = e->o_name,
		.e_size = (uint32_t)(e->end - e->start),
		.ent = ent,
		.kind = e->kind,
		.whole = !e->n_inl && !e->fx && e->end - e->start <= UINT32_MAX,
	};
	lk->n_seg++;
}

static int seg_reserve(struct lookup *lk, size_t need)
{
	struct lk_seg *s;
	size_t cap = lk_grown_cap(need); /* doubling: a followed JVM grows a little each time */

	if (need <= lk->cap_seg)
		return 0;
	/* aligned, so a segment is one cache line; the old ones are rebuilt anyway */
	if (!(s = aligned_alloc(LK_LINE, cap * sizeof(*s))))
		return -ENOMEM;
	free(lk->seg);
	lk->seg = s;
	lk->n_seg = lk->r_n = 0;
	lk->cap_seg = cap;
	return 0;
}

/*
 * Bring lk->order up to date: sort the entries added since the last rebuild
 * and merge them with the surviving old order.  0 or -ENOMEM (no change).
 */
static int update_order(struct lookup *lk)
{
	size_t from = lk->order_valid ? lk->n_sorted : 0;
	size_t keep = lk->order_valid ? lk->n_order : 0;
	size_t k = 0, i = 0, j, w = 0;
	struct start_idx *fresh, *swap;
	size_t cap_swap;

	if (lk_grow((void **)&lk->order_tmp, &lk->cap_order_tmp, keep + (lk->n_ents - from) + 1,
		    sizeof(*lk->order_tmp)) < 0)
		return -ENOMEM;
	/* the new entries, sorted, at the end of order_tmp */
	fresh = lk->order_tmp + keep;
	for (size_t e = from; e < lk->n_ents; e++)
		if (lk->ents[e].strs)
			fresh[k++] = (struct start_idx){ lk->ents[e].start, (uint32_t)e };
	qsort(fresh, k, sizeof(*fresh), by_start);
	/* merge the live old ones in front of them; w never passes i + j */
	for (j = 0; i < keep || j < k;) {
		if (i < keep && !lk->ents[lk->order[i].ent].strs) {
			i++;
			continue;
		}
		if (j >= k || (i < keep && lk->order[i].start <= fresh[j].start))
			lk->order_tmp[w++] = lk->order[i++];
		else
			lk->order_tmp[w++] = fresh[j++];
	}
	swap = lk->order;
	cap_swap = lk->cap_order;
	lk->order = lk->order_tmp;
	lk->cap_order = lk->cap_order_tmp;
	lk->order_tmp = swap;
	lk->cap_order_tmp = cap_swap;
	lk->n_order = w;
	lk->n_sorted = lk->n_ents;
	lk->order_valid = 1;
	return 0;
}

int lk_rebuild(struct lookup *lk)
{
	size_t n, i = 0, nh = 0;
	const struct start_idx *order;
	struct heap_item *heap;
	uint64_t cur;
	int rc;

	if (lk->n_dead > lk->n_ents / 2)
		lk_compact(lk); /* on ENOMEM the dead entries are skipped instead */
	if ((rc = update_order(lk)) < 0)
		return rc;
	n = lk->n_order;
	order = lk->order;
	/* every entry adds at most two segment boundaries */
	if ((rc = seg_reserve(lk, 2 * n + 1)) < 0 ||
	    (rc = lk_grow((void **)&lk->heap, &lk->cap_heap, n + 1, sizeof(*lk->heap))) < 0)
		return rc;
	heap = lk->heap;
	lk->n_seg = 0;
	cur = n ? order[0].start : 0;
	while (i < n || nh) {
		uint64_t next;

		for (; i < n && order[i].start <= cur; i++) {
			const struct lk_ent *e = &lk->ents[order[i].ent];

			heap_push(heap, &nh, (struct heap_item){ e->id, e->end, order[i].ent });
		}
		while (nh && heap[0].end <= cur)
			heap_pop(heap, &nh);
		if (!nh) {
			if (i < n)
				cur = order[i].start;
			continue;
		}
		/* The winner changes only when it ends or a (maybe higher) id starts. */
		next = heap[0].end;
		if (i < n && order[i].start < next)
			next = order[i].start;
		emit(lk, cur, next, heap[0].ent);
		cur = next;
	}
	if ((rc = lk_radix_build(lk)) < 0)
		return rc;
	lk->st.segments = lk->n_seg;
	lk->dirty = 0;
	return 0;
}

/* ---- queries ------------------------------------------------------------ */

static struct lookup_frame frame_of(int kind, uint64_t id, uint64_t start, uint64_t end,
				    const char *strs, uint32_t om, uint32_t os, uint32_t on)
{
	return (struct lookup_frame){
		.kind = kind,
		.id = id,
		.start = start,
		.size = end - start,
		.class_name = strs,
		.method = strs + om,
		.signature = strs + os,
		.name = strs + on,
		.file = "",
		.bci = -1,
	};
}

/* Inlined ranges of e holding addr into lk->scratch, innermost (smallest) first. */
static int collect_inlines(struct lookup *lk, const struct lk_ent *e, uint64_t addr,
			   size_t *count)
{
	size_t n = 0;

	for (uint32_t k = 0; k < e->n_inl; k++) {
		const struct lk_inl *in = &e->inl[e->n_inl - 1 - k]; /* later records first */
		struct lookup_frame f;
		size_t j;

		if (addr < in->start || addr >= in->end)
			continue;
		if (lk_grow((void **)&lk->scratch, &lk->cap_scratch, n + 1, sizeof(*lk->scratch)) < 0)
			return -ENOMEM;
		f = frame_of(LOOKUP_INLINE, e->id, in->start, in->end, in->strs, in->o_method,
			     in->o_sig, in->o_name);
		for (j = n; j && lk->scratch[j - 1].size > f.size; j--)
			lk->scratch[j] = lk->scratch[j - 1];
		lk->scratch[j] = f;
		n++;
	}
	*count = n;
	return 0;
}

/* The whole inline stack at addr, innermost first, into lk->chain_buf. */
static int collect_chain(struct lookup *lk, const struct lk_ent *e, uint64_t addr,
			 struct lookup_hit *hit)
{
	const struct lk_chain *c = lk_chain_at(e->fx, addr);

	if (!c)
		return 0;
	if (lk_grow((void **)&lk->chain_buf, &lk->cap_chain_buf, c->depth, sizeof(*lk->chain_buf)) < 0)
		return -ENOMEM;
	for (uint32_t k = 0; k < c->depth; k++)
		lk->chain_buf[c->depth - 1 - k] = lk_chain_frame(e, c, k);
	hit->n_chain = c->depth;
	hit->chain = lk->chain_buf;
	return 0;
}

int lookup_find(struct lookup *lk, uint64_t addr, struct lookup_hit *hit)
{
	const struct lk_seg *s;
	const struct lk_ent *e;
	long seg;
	int rc;

	memset(hit, 0, sizeof(*hit));
	hit->addr = addr;
	if (lk->dirty && (rc = lk_rebuild(lk)) < 0)
		return rc;
	if ((seg = lk_seg_find(lk, addr)) < 0)
		return 0;
	s = &lk->seg[seg];
	hit->offset = addr - s->e_start;
	if (s->whole) { /* the segment's copy is the whole answer */
		hit->sym = frame_of(s->kind, s->id, s->e_start, s->e_start + s->e_size, s->strs,
				    s->o_method, s->o_sig, s->o_name);
		return 1;
	}
	e = &lk->ents[s->ent];
	hit->sym = frame_of(e->kind, e->id, e->start, e->end, e->strs, e->o_method, e->o_sig,
			    e->o_name);
	if (e->n_inl) {
		if ((rc = collect_inlines(lk, e, addr, &hit->n_inline)) < 0)
			return rc;
		hit->inlined = hit->n_inline ? lk->scratch : NULL;
	}
	if (e->fx && (rc = collect_chain(lk, e, addr, hit)) < 0)
		return rc;
	return 1;
}
