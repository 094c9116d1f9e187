/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lookup_frames.c - the inline chains of compiled methods: JF_FRAMES
 * records into an entry, and the chain at an address (lookup_int.h).
 *
 * A LOAD's chains arrive in one or more FRAMES records, each with its own
 * method table; their ranges are kept sorted by start (the agent writes
 * them in order; a hostile journal gets them sorted here), so the chain of
 * an address is a binary search inside the method's own code.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lookup_int.h"

/* Bounds per LOAD, against hostile journals (the agent writes far less). */
#define LK_MAX_CHAINS (1u << 20)
#define LK_MAX_METHODS (1u << 16)

void lk_frames_free(struct lk_frames *fx)
{
	if (!fx)
		return;
	for (size_t i = 0; i < fx->n_meth; i++)
		free(fx->meth[i].strs);
	free(fx->meth);
	free(fx->ch);
	free(fx->fr);
	free(fx);
}

/* The tables' bytes as allocated: their capacities, so the cap on stack
 * bytes bounds the memory they take. */
static size_t tables_size(const struct lk_frames *fx)
{
	return sizeof(*fx) + fx->cap_ch * sizeof(*fx->ch) + fx->cap_fr * sizeof(*fx->fr) +
	       fx->cap_meth * sizeof(*fx->meth);
}

void lk_frames_held(const struct lk_frames *fx, size_t *names, size_t *stack)
{
	for (size_t i = 0; i < fx->n_meth; i++)
		*names += lk_strs_len(fx->meth[i].strs, fx->meth[i].o_file);
	*stack += tables_size(fx);
}

/* The capacity a table of cap items has once it holds need: exactly need
 * at first (most methods have one FRAMES record, and lk_grow's 16 items
 * at least would take several times their tables), then doubling. */
static size_t cap_after(size_t cap, size_t need)
{
	if (need <= cap)
		return cap;
	if (!cap)
		return need;
	while (cap < need)
		cap *= 2;
	return cap;
}

/* Grow table *p of elem-byte items to cap_after(*cap, need).  0 or -ENOMEM. */
static int fx_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t nc = cap_after(*cap, need);
	void *np;

	if (nc == *cap)
		return 0;
	if (!(np = realloc(*p, nc * elem)))
		return -ENOMEM;
	*p = np;
	*cap = nc;
	return 0;
}

/* A string up to its first NUL (what follows is never shown, and the
 * block's size stays what lk_strs_len says). */
static uint16_t str_len(const struct jr_str *s)
{
	const char *nul = s->len ? memchr(s->p, '\0', s->len) : NULL;

	return nul ? (uint16_t)(nul - s->p) : s->len;
}

/* The bytes add_method makes of a method's five strings. */
static size_t method_size(const struct jr_str s[5])
{
	size_t total = 0;

	for (int k = 0; k < 5; k++)
		total += str_len(&s[k]) + 1u;
	return total;
}

static int add_method(struct lk_frames *fx, const struct jr_str s[5])
{
	struct lk_meth *m;
	size_t total = method_size(s), pos = 0;
	uint32_t *offs[5];

	if (fx_grow((void **)&fx->meth, &fx->cap_meth, fx->n_meth + 1, sizeof(*fx->meth)) < 0)
		return -ENOMEM;
	m = &fx->meth[fx->n_meth];
	offs[0] = NULL;
	offs[1] = &m->o_method;
	offs[2] = &m->o_sig;
	offs[3] = &m->o_name;
	offs[4] = &m->o_file;
	if (!(m->strs = malloc(total)))
		return -ENOMEM;
	for (int k = 0; k < 5; k++) {
		uint16_t len = str_len(&s[k]);

		if (offs[k])
			*offs[k] = (uint32_t)pos;
		memcpy(m->strs + pos, s[k].p, len);
		pos += len;
		m->strs[pos++] = '\0';
	}
	fx->n_meth++;
	return 0;
}

static int by_chain_start(const void *a, const void *b)
{
	const struct lk_chain *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Append the record's ranges and frames; method indexes shift by base. */
static int add_chains(struct lk_frames *fx, const struct lk_ent *e, const struct jr_frames *f,
		      size_t base, uint64_t *bad)
{
	const unsigned char *fr = f->frames;
	int unsorted = 0;

	if (fx_grow((void **)&fx->ch, &fx->cap_ch, fx->n_ch + f->n_ranges, sizeof(*fx->ch)) < 0 ||
	    fx_grow((void **)&fx->fr, &fx->cap_fr, fx->n_fr + f->n_frames, sizeof(*fx->fr)) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->n_ranges; i++) {
		const unsigned char *r = f->ranges + (size_t)i * JF_FRAMES_RANGE;
		uint64_t off = jf_get32(r), size = jf_get32(r + 4);
		uint32_t depth = jf_get16(r + 8);
		struct lk_chain *c = &fx->ch[fx->n_ch];

		if (size == 0 || off + size > e->end - e->start) {
			(*bad)++; /* not inside its method: skipped */
			fr += (size_t)depth * JF_FRAMES_FRAME;
			continue;
		}
		*c = (struct lk_chain){ e->start + off, e->start + off + size, (uint32_t)fx->n_fr,
					depth };
		for (uint32_t k = 0; k < depth; k++, fr += JF_FRAMES_FRAME)
			fx->fr[fx->n_fr++] = (struct lk_fr){ (uint32_t)(base + jf_get16(fr)),
							     jf_get16(fr + 2), jf_get16(fr + 4) };
		if (fx->n_ch && c->start < fx->ch[fx->n_ch - 1].end)
			unsorted = 1;
		fx->n_ch++;
	}
	if (unsorted)
		qsort(fx->ch, fx->n_ch, sizeof(*fx->ch), by_chain_start);
	return 0;
}

/* What record f adds to e: its method table's names, and the growth of
 * e's tables (the caps count what is allocated). */
static void frames_cost(const struct lk_ent *e, const struct jr_frames *f, size_t *names,
			size_t *stack)
{
	struct lk_frames none = { 0 };
	const struct lk_frames *fx = e->fx ? e->fx : &none;
	struct jr_str s[5];
	size_t pos = 0;

	*names = 0;
	for (uint32_t i = 0; i < f->n_methods; i++) {
		jr_frames_method(f, &pos, s); /* checked by jr_frames_parse */
		*names += method_size(s);
	}
	*stack = (e->fx ? 0 : sizeof(*fx)) +
		 (cap_after(fx->cap_ch, fx->n_ch + f->n_ranges) - fx->cap_ch) * sizeof(*fx->ch) +
		 (cap_after(fx->cap_fr, fx->n_fr + f->n_frames) - fx->cap_fr) * sizeof(*fx->fr) +
		 (cap_after(fx->cap_meth, fx->n_meth + f->n_methods) - fx->cap_meth) *
			 sizeof(*fx->meth);
}

int lk_add_frames(struct lookup *lk, const struct jr_record *rec)
{
	struct jr_frames f;
	struct lk_frames *fx;
	struct lk_ent *e;
	struct jr_str s[5];
	size_t base, pos = 0, n_ch, names, stack, had;
	uint32_t idx;
	int rc = 0;

	if (jr_frames_parse(rec->body, rec->body_len, &f) < 0) {
		lk->st.bad_records++;
		return 0;
	}
	e = lk_map_get(&lk->by_id, f.id, &idx) ? &lk->ents[idx] : NULL;
	if (!e || e->kind != LOOKUP_LOAD || e->start != f.code_start) {
		lk->st.orphan_inlines++;
		return 0;
	}
	if ((e->fx ? e->fx->n_ch : 0) + f.n_ranges > LK_MAX_CHAINS ||
	    (e->fx ? e->fx->n_meth : 0) + f.n_methods > LK_MAX_METHODS) {
		lk->st.bad_records++;
		return 0;
	}
	/* the caps, before anything is allocated for the record */
	frames_cost(e, &f, &names, &stack);
	if (lk_over_cap(lk, names, stack) < 0)
		return -E2BIG;
	lk_ent_grows(lk, e);
	had = e->fx ? tables_size(e->fx) : 0;
	if (!e->fx && !(e->fx = calloc(1, sizeof(*e->fx))))
		return -ENOMEM;
	fx = e->fx;
	base = fx->n_meth;
	n_ch = fx->n_ch;
	names = 0;
	rc = fx_grow((void **)&fx->meth, &fx->cap_meth, fx->n_meth + f.n_methods,
		     sizeof(*fx->meth));
	for (uint32_t i = 0; i < f.n_methods && rc == 0; i++) {
		jr_frames_method(&f, &pos, s);
		if ((rc = add_method(fx, s)) == 0)
			names += method_size(s);
	}
	if (rc == 0)
		rc = add_chains(fx, e, &f, base, &lk->st.bad_records);
	/* what it holds now, whatever failed (lk_frames_held's sum, which
	 * kill_entry takes off again), added without walking it all */
	lk->name_bytes += names;
	lk->stack_bytes += tables_size(fx) - had;
	lk->st.chains += fx->n_ch - n_ch;
	return rc;
}

const struct lk_chain *lk_chain_at(const struct lk_frames *fx, uint64_t addr)
{
	size_t lo = 0, hi = fx->n_ch;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fx->ch[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= fx->ch[lo - 1].end)
		return NULL;
	return &fx->ch[lo - 1];
}

struct lookup_frame lk_chain_frame(const struct lk_ent *e, const struct lk_chain *c, uint32_t k)
{
	const struct lk_fr *f = &e->fx->fr[c->first + k];
	const struct lk_meth *m = &e->fx->meth[f->method];

	return (struct lookup_frame){
		.kind = k == 0 ? LOOKUP_LOAD : LOOKUP_INLINE,
		.id = e->id,
		.start = k == 0 ? e->start : c->start,
		.size = k == 0 ? e->end - e->start : c->end - c->start,
		.class_name = m->strs,
		.method = m->strs + m->o_method,
		.signature = m->strs + m->o_sig,
		.name = m->strs + m->o_name,
		.file = m->strs + m->o_file,
		.line = f->line,
		.bci = f->bci == JF_FRAMES_NO_BCI ? -1 : f->bci,
	};
}
