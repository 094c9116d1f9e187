/* SPDX-License-Identifier: Apache-2.0 */
/*
 * frames.c - JF_FRAMES records (frames.h, journal_format.h).
 */
#include "frames.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "journal_format.h"

uint16_t frames_line_of(const struct frames_line *lines, uint32_t n, uint16_t bci)
{
	uint32_t lo = 0, hi = n;

	if (!lines || bci == UNFOLD_NO_BCI)
		return 0;
	while (lo < hi) { /* first entry with bci > the one asked */
		uint32_t mid = lo + (hi - lo) / 2;

		if (lines[mid].bci <= bci)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lines[lo - 1].line : 0;
}

/* Length of s cut to FRAMES_MAX_STR bytes on a UTF-8 character boundary. */
static uint16_t cut(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n <= FRAMES_MAX_STR)
		return (uint16_t)n;
	n = FRAMES_MAX_STR;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return (uint16_t)n;
}

/* The method table's bytes, or, with p, write them there. */
static size_t put_methods(unsigned char *p, const struct frames_method *m, uint32_t n)
{
	size_t pos = 0;

	for (uint32_t i = 0; i < n; i++) {
		const char *s[5] = { m[i].cls, m[i].name, m[i].sig, m[i].display, m[i].file };
		uint16_t len[5];

		for (int k = 0; k < 5; k++) {
			len[k] = cut(s[k]);
			if (p)
				jf_put16(p + pos + 2 * k, len[k]);
		}
		if (p)
			jf_put16(p + pos + 10, 0);
		pos += JF_FRAMES_METHOD_FIXED;
		for (int k = 0; k < 5; k++) {
			if (p && len[k])
				memcpy(p + pos, s[k], len[k]);
			pos += len[k];
		}
	}
	return pos;
}

/* Ranges after the merge of frames_encode: frames are (method, bci, line). */
struct merged {
	struct unfold_range *r;
	uint16_t *f;               /* 3 u16 per frame */
	uint32_t n_r, n_f;
};

static int merge(const struct unfold_info *u, const struct frames_method *m, int with_lines,
		 struct merged *out)
{
	out->r = malloc((u->n_ranges + 1) * sizeof(*out->r));
	out->f = malloc(((size_t)u->n_frames + 1) * 3 * sizeof(*out->f));
	out->n_r = out->n_f = 0;
	if (!out->r || !out->f)
		return -ENOMEM;
	for (uint32_t i = 0; i < u->n_ranges; i++) {
		const struct unfold_range *r = &u->ranges[i];
		uint16_t *f = out->f + 3 * out->n_f;
		struct unfold_range *last = out->n_r ? &out->r[out->n_r - 1] : NULL;

		for (uint32_t k = 0; k < r->depth; k++) {
			const struct unfold_frame *uf = &u->frames[r->first + k];
			const struct frames_method *mm = &m[uf->method];

			f[3 * k] = uf->method;
			f[3 * k + 1] = with_lines ? uf->bci : UNFOLD_NO_BCI;
			/* no bci: JVMTI's -1, the method's entry (HotSpot's
			 * InvocationEntryBci), which is the line of its first bytecode */
			f[3 * k + 2] = with_lines ? frames_line_of(mm->lines, mm->n_lines,
								   uf->bci == UNFOLD_NO_BCI ? 0 : uf->bci)
						  : 0;
		}
		/* same methods and lines as the range before it: one range (the bci
		 * kept is that of its first descriptor) */
		if (last && last->off + last->size == r->off && last->depth == r->depth) {
			const uint16_t *g = out->f + 3 * last->first;
			uint32_t k;

			for (k = 0; k < r->depth; k++)
				if (g[3 * k] != f[3 * k] || g[3 * k + 2] != f[3 * k + 2])
					break;
			if (k == r->depth) {
				last->size += r->size;
				continue;
			}
		}
		out->r[out->n_r++] = (struct unfold_range){ r->off, r->size, out->n_f, r->depth };
		out->n_f += r->depth;
	}
	return 0;
}

/* One record with ranges [from, to) of mg. */
static int put_record(struct bbuf *b, uint64_t ts, uint64_t parent_id, uint64_t code_start,
		      const struct merged *mg, uint32_t from, uint32_t to,
		      const struct frames_method *m, uint32_t n_methods, size_t mbytes,
		      int with_lines)
{
	uint32_t nf = 0, size;
	unsigned char *p, *q;
	int err = 0;

	for (uint32_t i = from; i < to; i++)
		nf += mg->r[i].depth;
	size = jf_align((uint32_t)(JF_PREFIX_SIZE + JF_FRAMES_FIXED +
				   (size_t)(to - from) * JF_FRAMES_RANGE + (size_t)nf * JF_FRAMES_FRAME +
				   mbytes));
	if (!(p = bbuf_reserve(b, size, &err)))
		return err;
	memset(p, 0, size);
	jf_put16(p, JF_FRAMES);
	jf_put32(p + 4, size);
	jf_put64(p + 8, ts);
	q = p + JF_PREFIX_SIZE;
	jf_put64(q, parent_id);
	jf_put64(q + 8, code_start);
	jf_put32(q + 16, to - from);
	jf_put32(q + 20, nf);
	jf_put32(q + 24, n_methods);
	jf_put32(q + 28, with_lines ? JF_FRAMES_F_LINES : 0);
	q += JF_FRAMES_FIXED;
	for (uint32_t i = from; i < to; i++, q += JF_FRAMES_RANGE) {
		jf_put32(q, mg->r[i].off);
		jf_put32(q + 4, mg->r[i].size);
		jf_put16(q + 8, mg->r[i].depth);
	}
	for (uint32_t i = from; i < to; i++)
		for (uint32_t k = 0; k < mg->r[i].depth; k++, q += JF_FRAMES_FRAME) {
			const uint16_t *f = mg->f + 3 * (mg->r[i].first + k);

			jf_put16(q, f[0]);
			jf_put16(q + 2, f[1]);
			jf_put16(q + 4, f[2]);
		}
	put_methods(q, m, n_methods);
	b->len += size;
	return 0;
}

int frames_encode(struct bbuf *b, uint64_t ts, uint64_t parent_id, uint64_t code_start,
		  const struct unfold_info *u, const struct frames_method *m, int with_lines)
{
	size_t mbytes = put_methods(NULL, m, u->n_methods), budget, used;
	size_t len0 = b->len;
	struct merged mg;
	uint32_t from = 0;
	int n = 0, rc = 0;

	if (!u->n_ranges)
		return 0;
	if (JF_PREFIX_SIZE + JF_FRAMES_FIXED + mbytes + JF_FRAMES_RANGE +
		    UNFOLD_MAX_DEPTH * JF_FRAMES_FRAME + JF_ALIGN > JF_MAX_RECORD)
		return -E2BIG;
	budget = JF_MAX_RECORD - JF_ALIGN - JF_PREFIX_SIZE - JF_FRAMES_FIXED - mbytes;
	if ((rc = merge(u, m, with_lines, &mg)) < 0)
		goto out;
	while (from < mg.n_r) {
		uint32_t to = from;

		for (used = 0; to < mg.n_r; to++) {
			size_t add = JF_FRAMES_RANGE + (size_t)mg.r[to].depth * JF_FRAMES_FRAME;

			if (used + add > budget)
				break;
			used += add;
		}
		rc = put_record(b, ts, parent_id, code_start, &mg, from, to, m, u->n_methods,
				mbytes, with_lines);
		if (rc < 0) {
			b->len = len0; /* all or nothing */
			goto out;
		}
		n++;
		from = to;
	}
	rc = n;
out:
	free(mg.r);
	free(mg.f);
	return rc;
}
