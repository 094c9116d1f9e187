/*
 * lookup.c - the entries of the address index: add, remove by id, inlined
 * ranges, journal records (contract in lookup.h, layout in lookup_int.h).
 *
 * Entries live in one array; an open-addressing hash maps id -> index so an
 * UNLOAD finds its LOAD in O(1).  Removal only marks an entry dead and the
 * index dirty; lookup_index.c rebuilds the query structure on the next
 * lookup_find.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lookup_int.h"

/* ---- strings ------------------------------------------------------------ */

/* Copy the four texts into one block; offsets of the last three.  NULL on ENOMEM. */
static char *pack_strs(const struct lookup_sym *s, uint32_t *o_method, uint32_t *o_sig,
		       uint32_t *o_name)
{
	const struct lookup_text *t[4] = { &s->class_name, &s->method, &s->signature, &s->name };
	size_t total = 0, pos = 0;
	uint32_t *offs[4] = { NULL, o_method, o_sig, o_name };
	char *b;

	for (int i = 0; i < 4; i++)
		total += t[i]->len + 1;
	if (total > UINT32_MAX || !(b = malloc(total)))
		return NULL;
	for (int i = 0; i < 4; i++) {
		if (offs[i])
			*offs[i] = (uint32_t)pos;
		if (t[i]->len)
			memcpy(b + pos, t[i]->p, t[i]->len);
		pos += t[i]->len;
		b[pos++] = '\0';
	}
	return b;
}

int lk_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t nc = *cap ? *cap : 16;
	void *np;

	if (need <= *cap)
		return 0;
	while (nc < need)
		nc *= 2;
	np = realloc(*p, nc * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = nc;
	return 0;
}

/* ---- id hash ------------------------------------------------------------ */

static size_t h_slot(uint64_t id, size_t cap)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	return (size_t)id & (cap - 1);
}

/* Slot holding id, or (size_t)-1. */
static size_t h_find(const struct lookup *lk, uint64_t id)
{
	if (!lk->h_cap)
		return (size_t)-1;
	for (size_t i = h_slot(id, lk->h_cap);; i = (i + 1) & (lk->h_cap - 1)) {
		if (lk->h_val[i] == 0)
			return (size_t)-1;
		if (lk->h_val[i] != TOMB && lk->h_ids[i] == id)
			return i;
	}
}

static void h_put_nogrow(struct lookup *lk, uint64_t id, uint32_t idx)
{
	size_t i = h_slot(id, lk->h_cap);

	while (lk->h_val[i] != 0 && lk->h_val[i] != TOMB)
		i = (i + 1) & (lk->h_cap - 1);
	if (lk->h_val[i] == 0)
		lk->h_used++;
	lk->h_ids[i] = id;
	lk->h_val[i] = idx + 1;
}

struct h_table {
	uint64_t *ids;
	uint32_t *val;
	size_t cap;
};

/* Allocate an empty table for `want` ids.  0 or -ENOMEM (nothing allocated). */
static int h_alloc(struct h_table *t, size_t want)
{
	t->cap = 64;
	while (t->cap < want * 2)
		t->cap *= 2;
	t->ids = malloc(t->cap * sizeof(*t->ids));
	t->val = calloc(t->cap, sizeof(*t->val));
	if (!t->ids || !t->val) {
		free(t->ids);
		free(t->val);
		return -ENOMEM;
	}
	return 0;
}

/* Replace the hash by t and fill it from the live entries. */
static void h_install(struct lookup *lk, const struct h_table *t)
{
	free(lk->h_ids);
	free(lk->h_val);
	lk->h_ids = t->ids;
	lk->h_val = t->val;
	lk->h_cap = t->cap;
	lk->h_used = 0;
	for (size_t i = 0; i < lk->n_ents; i++)
		if (lk->ents[i].strs)
			h_put_nogrow(lk, lk->ents[i].id, (uint32_t)i);
}

static int h_put(struct lookup *lk, uint64_t id, uint32_t idx)
{
	int rc;

	if ((lk->h_used + 1) * 4 > lk->h_cap * 3) {
		struct h_table t;

		if ((rc = h_alloc(&t, lk->n_ents - lk->n_dead + 1)) < 0)
			return rc;
		h_install(lk, &t);
	}
	h_put_nogrow(lk, id, idx);
	return 0;
}

/* ---- entries ------------------------------------------------------------ */

static void ent_clear(struct lk_ent *e)
{
	for (uint32_t i = 0; i < e->n_inl; i++)
		free(e->inl[i].strs);
	free(e->inl);
	free(e->strs);
	e->inl = NULL;
	e->strs = NULL;
	e->n_inl = e->cap_inl = 0;
}

int lk_compact(struct lookup *lk)
{
	struct h_table t;
	size_t w = 0;

	if (h_alloc(&t, lk->n_ents - lk->n_dead) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < lk->n_ents; i++)
		if (lk->ents[i].strs)
			lk->ents[w++] = lk->ents[i];
	lk->n_ents = w;
	lk->n_dead = 0;
	lk->dirty = 1;
	h_install(lk, &t);
	return 0;
}

struct lookup *lookup_new(void)
{
	struct lookup *lk = calloc(1, sizeof(*lk));

	if (!lk)
		return NULL;
	lk->jr.fd = lk->pm.fd = -1;
	return lk;
}

void lookup_clear(struct lookup *lk)
{
	int source = lk->st.source;
	uint64_t resets = lk->st.resets;

	for (size_t i = 0; i < lk->n_ents; i++)
		ent_clear(&lk->ents[i]);
	free(lk->h_ids);
	free(lk->h_val);
	lk->h_ids = NULL;
	lk->h_val = NULL;
	lk->h_cap = lk->h_used = 0;
	lk->n_ents = lk->n_dead = lk->n_seg = lk->n_inl = 0;
	lk->dirty = 0;
	memset(&lk->st, 0, sizeof(lk->st));
	lk->st.source = source;
	lk->st.resets = resets;
}

void lookup_free(struct lookup *lk)
{
	if (!lk)
		return;
	lookup_clear(lk);
	free(lk->ents);
	free(lk->s_start);
	free(lk->s_end);
	free(lk->s_ent);
	free(lk->scratch);
	lk_close_source(lk);
	free(lk);
}

static int valid_range(uint64_t start, uint64_t size)
{
	return size != 0 && start + size > start;
}

int lookup_remove(struct lookup *lk, uint64_t id)
{
	size_t slot = h_find(lk, id);
	struct lk_ent *e;

	if (slot == (size_t)-1)
		return -ENOENT;
	e = &lk->ents[lk->h_val[slot] - 1];
	lk->n_inl -= e->n_inl;
	ent_clear(e);
	lk->h_val[slot] = TOMB;
	lk->n_dead++;
	lk->dirty = 1;
	if (lk->n_dead > 4096 && lk->n_dead > lk->n_ents / 2)
		lk_compact(lk); /* on ENOMEM the dead entries just stay a while longer */
	return 0;
}

int lookup_add(struct lookup *lk, const struct lookup_sym *sym)
{
	struct lk_ent e = { 0 };
	int rc;

	if (sym->kind != LOOKUP_LOAD && sym->kind != LOOKUP_STUB && sym->kind != LOOKUP_MAP)
		return -EINVAL;
	if (!valid_range(sym->start, sym->size))
		return -EINVAL;
	if (lk->n_ents >= UINT32_MAX - 1)
		return -ENOMEM;
	if (lk_grow((void **)&lk->ents, &lk->cap_ents, lk->n_ents + 1, sizeof(*lk->ents)) < 0)
		return -ENOMEM;
	e.strs = pack_strs(sym, &e.o_method, &e.o_sig, &e.o_name);
	if (!e.strs)
		return -ENOMEM;
	e.start = sym->start;
	e.end = sym->start + sym->size;
	e.id = sym->id;
	e.kind = sym->kind;
	lookup_remove(lk, sym->id); /* same id again: the newer record replaces it */
	if ((rc = h_put(lk, e.id, (uint32_t)lk->n_ents)) < 0) {
		free(e.strs);
		return rc;
	}
	lk->ents[lk->n_ents++] = e;
	lk->dirty = 1;
	return 0;
}

int lookup_add_inline(struct lookup *lk, const struct lookup_sym *sym)
{
	size_t slot = h_find(lk, sym->id);
	struct lk_ent *e;
	struct lk_inl in = { 0 };
	size_t cap;

	if (slot == (size_t)-1)
		return -ENOENT;
	e = &lk->ents[lk->h_val[slot] - 1];
	if (e->kind != LOOKUP_LOAD)
		return -ENOENT;
	if (!valid_range(sym->start, sym->size))
		return -EINVAL;
	cap = e->cap_inl;
	if (e->n_inl == UINT32_MAX ||
	    lk_grow((void **)&e->inl, &cap, (size_t)e->n_inl + 1, sizeof(*e->inl)) < 0)
		return -ENOMEM;
	e->cap_inl = (uint32_t)cap;
	in.strs = pack_strs(sym, &in.o_method, &in.o_sig, &in.o_name);
	if (!in.strs)
		return -ENOMEM;
	in.start = sym->start;
	in.end = sym->start + sym->size;
	e->inl[e->n_inl++] = in;
	lk->n_inl++;
	return 0;
}

/* ---- journal records ---------------------------------------------------- */

static struct lookup_text jtext(struct jr_str s)
{
	return (struct lookup_text){ s.p, s.len };
}

int lookup_apply_record(struct lookup *lk, const struct jr_record *rec)
{
	struct lookup_sym s = {
		.id = rec->id,
		.start = rec->code_start,
		.size = rec->code_size,
		.class_name = jtext(rec->class_name),
		.method = jtext(rec->method),
		.signature = jtext(rec->signature),
		.name = jtext(rec->name),
	};
	int rc = 0;

	lk->st.records++;
	switch (rec->type) {
	case JF_LOAD:
	case JF_STUB:
		s.kind = rec->type == JF_LOAD ? LOOKUP_LOAD : LOOKUP_STUB;
		rc = lookup_add(lk, &s);
		break;
	case JF_INLINE:
		s.kind = LOOKUP_INLINE;
		rc = lookup_add_inline(lk, &s);
		if (rc == -ENOENT) {
			lk->st.orphan_inlines++;
			rc = 0;
		}
		break;
	case JF_UNLOAD:
		if (lookup_remove(lk, rec->id) == -ENOENT)
			lk->st.orphan_unloads++;
		break;
	case JF_EPOCH:
		break;
	case JR_BAD:
		lk->st.bad_records++;
		break;
	default:
		lk->st.unknown_records++;
		break;
	}
	if (rc == -EINVAL) {
		lk->st.bad_records++;
		rc = 0;
	}
	return rc;
}
