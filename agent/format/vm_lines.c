/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vm_lines.c - the page cache's 64-byte lines, read in batches (vm_mem.h).
 *
 * Naming a method follows a chain of small structures (Method ->
 * ConstMethod -> ConstantPool -> Klass -> Symbols), a few bytes of each,
 * spread over thousands of metaspace pages.  Read page by page that is one
 * read and 4 KiB copied per page; here the chains of many methods are
 * followed together, one link a round: while collecting, a read the cache
 * cannot answer asks for the lines it needs (vm_lines_want), and
 * vm_lines_fill reads every line asked for in one batch, lines near each
 * other as one range, into the cache lines of their pages.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vm_mem.h"

/* lines held apart: as many as the cache lines' slots (2 MiB) */
#define LINES_MAX (VM_CACHE_LINES * VM_LINE_SLOTS)

/*
 * A page of which a few lines are asked for keeps them here, back to back
 * (cache line slots say where): thousands of pages each touched for a few
 * bytes would otherwise each cost a page of memory, faulted in, and a miss
 * on every later read.  A page asked for more lines, or with no room
 * here, is read whole into the cache.
 */
struct vm_lines {
	uint64_t gen;                   /* `line` holds lines of this generation */
	size_t used;
	size_t n;                       /* pages with lines asked for */
	uint64_t page[VM_CACHE_LINES];  /* (a page a cache line at most) */
	unsigned char buf[VM_AHEAD_BYTES];
	unsigned char line[LINES_MAX][VM_LINE];
};

int vm_lines_begin(struct vm_mem *m)
{
	if (!m->cache)
		return -ENOTSUP;
	if (!m->lines && !(m->lines = vm_huge_alloc(sizeof(*m->lines))))
		return -ENOMEM;
	m->lines->n = 0;
	if (m->lines->gen != m->gen) {
		m->lines->gen = m->gen;
		m->lines->used = 0;
	}
	m->collect = true;
	return 0;
}

void vm_lines_end(struct vm_mem *m)
{
	m->collect = false;
}

void vm_lines_free(struct vm_mem *m)
{
	vm_huge_free(m->lines, sizeof(*m->lines));
	m->lines = NULL;
	m->collect = false;
}

int vm_lines_want(struct vm_mem *m, uint64_t page, uint64_t bits)
{
	struct vm_cache_line *l = vm_line_find(m, page);
	struct vm_lines *s = m->lines;

	/* a place for the page: not one that waits for lines of another
	 * (then it asks again in the next round) */
	if (!l && !(l = vm_line_take(m, page, true)))
		return -EAGAIN;
	if (l->bad & bits)
		return -EFAULT;
	if (!l->want) {
		if (s->n == VM_CACHE_LINES)
			return -EFAULT;         /* cannot happen: a page a line */
		s->page[s->n++] = page;
	}
	l->want |= bits & ~l->have;
	/* more lines than slots, or no room for them: the whole page */
	if (__builtin_popcountll(l->have | l->want) > VM_LINE_SLOTS ||
	    s->used + (size_t)__builtin_popcountll(l->want) > LINES_MAX)
		l->want = ~0ull;
	return -EAGAIN;
}

const unsigned char *vm_lines_at(const struct vm_mem *m, const struct vm_cache_line *l,
				 size_t line)
{
	for (int i = 0; i < VM_LINE_SLOTS; i++)
		if (l->slot[i] && (l->slot[i] & (VM_LINE - 1)) == line)
			return m->lines->line[(l->slot[i] >> 6) - 1];
	return NULL;
}

void vm_lines_copy(const struct vm_mem *m, const struct vm_cache_line *l, size_t off,
		   void *out, size_t k)
{
	unsigned char *o = out;

	/* the caller checked that l has every line of [off, off + k) */
	while (k) {
		size_t line = off / VM_LINE, from = off % VM_LINE;
		size_t n = VM_LINE - from < k ? VM_LINE - from : k;
		const unsigned char *p = vm_lines_at(m, l, line);

		if (p)
			memcpy(o, p + from, n);
		o += n;
		off += n;
		k -= n;
	}
}

/* Keep line `line` of l's page (its bytes at p) apart; false: no room. */
static bool keep(struct vm_lines *s, struct vm_cache_line *l, unsigned line,
		 const unsigned char *p)
{
	for (int i = 0; i < VM_LINE_SLOTS; i++) {
		if (l->slot[i] || s->used == LINES_MAX)
			continue;
		memcpy(s->line[s->used], p, VM_LINE);
		l->slot[i] = (uint32_t)(s->used++ + 1) << 6 | line;
		return true;
	}
	return false;
}

static int by_value(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* The lines a range covers in its page (a range's ends are line-aligned). */
static uint64_t bits_of(uint64_t from, uint64_t to)
{
	unsigned a = (unsigned)(from % VM_PAGE / VM_LINE), n = (unsigned)((to - from) / VM_LINE);

	return n >= 64 ? ~0ull : ((1ull << n) - 1) << a;
}

/* The range r was read into data (ok) or is not readable: settle the
 * lines it covers in each of its pages that still asks for them. */
static void settle(struct vm_mem *m, const struct vm_range *r, const unsigned char *data,
		   bool ok)
{
	for (uint64_t at = r->addr, end = r->addr + r->len; at < end;) {
		uint64_t page = at & ~(uint64_t)(VM_PAGE - 1);
		uint64_t to = page + VM_PAGE < end ? page + VM_PAGE : end, bits = bits_of(at, to);
		struct vm_cache_line *l = vm_line_find(m, page);

		if (l && ok && l->want == ~0ull && at == page && to == page + VM_PAGE) {
			/* asked whole: the range is the page */
			memcpy(vm_line_bytes(m, l), data + (at - r->addr), VM_PAGE);
			l->have = ~0ull;
		} else if (l && ok) {
			for (unsigned i = 0; i < 64; i++)
				if ((l->want & bits) >> i & 1 &&
				    keep(m->lines, l, i, data + (page + i * VM_LINE - r->addr)))
					l->have |= 1ull << i;
		} else if (l) {
			l->bad |= l->want & bits;
		}
		if (l)
			l->want &= ~bits;
		at = to;
	}
}

size_t vm_lines_fill(struct vm_mem *m)
{
	struct vm_lines *s = m->lines;
	struct vm_range r[VM_AHEAD_RANGES];
	size_t asked, w = 0;

	if (!s || !s->n)
		return 0;
	asked = s->n;
	qsort(s->page, s->n, sizeof(s->page[0]), by_value);
	while (w < s->n) {
		size_t k = 0, bytes = 0, at = 0;
		ssize_t whole;

		/* a range a page, from its first line asked for to its last;
		 * near ones read as one (vm_range_merge) */
		for (; w < s->n && k < VM_AHEAD_RANGES; w++) {
			struct vm_cache_line *l = vm_line_find(m, s->page[w]);
			struct vm_range x, grown;

			if (!l || !l->want || (w && s->page[w] == s->page[w - 1]))
				continue;       /* taken by another page, or a twin */
			x.addr = s->page[w] + (uint64_t)__builtin_ctzll(l->want) * VM_LINE;
			x.len = (size_t)((uint64_t)(64 - __builtin_clzll(l->want)) * VM_LINE -
					 x.addr % VM_PAGE);
			grown = k ? r[k - 1] : x;
			if (k && vm_range_merge(&grown, &x)) {
				if (bytes + grown.len - r[k - 1].len > sizeof(s->buf))
					break;
				bytes += grown.len - r[k - 1].len;
				r[k - 1] = grown;
			} else {
				if (bytes + x.len > sizeof(s->buf))
					break;
				bytes += x.len;
				r[k++] = x;
			}
		}
		if (k == 0)
			break;
		whole = vm_read_ranges(m, r, k, s->buf);
		if (whole < 0)
			break;          /* the reader failed (sticky in m->fatal) */
		for (size_t i = 0; i < (size_t)whole; i++) {
			settle(m, &r[i], s->buf + at, true);
			at += r[i].len;
		}
		if ((size_t)whole < k) {
			/* the range after the whole ones is not readable; the
			 * ones after it are asked for again */
			settle(m, &r[whole], NULL, false);
			while (w > 0 && s->page[w - 1] >= r[whole].addr + r[whole].len)
				w--;
		}
	}
	for (size_t i = 0; i < s->n; i++) {
		struct vm_cache_line *l = vm_line_find(m, s->page[i]);

		if (l)
			l->want = 0;    /* not read: asked for again if needed */
	}
	s->n = 0;
	return asked;
}
