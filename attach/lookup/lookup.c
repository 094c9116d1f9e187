/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lookup.c - the entries of the address index: add, remove by id, inlined
 * ranges, journal records (contract in lookup_lib.h, layout in lookup_int.h).
 *
 * Entries live in one array; hash tables map id -> index (an UNLOAD finds
 * its LOAD in O(1)) and start -> index (a LOAD at the start of a live entry
 * supersedes it).  Removal only marks an entry dead and the
 * index dirty; lookup_index.c rebuilds the query structure on the next
 * lookup_find.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lookup_int.h"

/* ---- strings ------------------------------------------------------------ */

/* The length of t up to its first NUL: the copy is read as a C string, so
 * what follows a NUL is never shown, and the block's size stays what
 * lk_strs_len says (the caps count it so). */
static size_t text_len(const struct lookup_text *t)
{
	const char *nul = t->len ? memchr(t->p, '\0', t->len) : NULL;

	return nul ? (size_t)(nul - t->p) : t->len;
}

/* The bytes pack_strs makes of s. */
static size_t strs_size(const struct lookup_sym *s)
{
	return text_len(&s->class_name) + text_len(&s->method) + text_len(&s->signature) +
	       text_len(&s->name) + 4;
}

/* Copy the four texts into one block; offsets of the last three.  NULL on ENOMEM. */
static char *pack_strs(const struct lookup_sym *s, uint32_t *o_method, uint32_t *o_sig,
		       uint32_t *o_name)
{
	const struct lookup_text *t[4] = { &s->class_name, &s->method, &s->signature, &s->name };
	size_t total = strs_size(s), pos = 0;
	uint32_t *offs[4] = { NULL, o_method, o_sig, o_name };
	char *b;

	if (total > UINT32_MAX || !(b = malloc(total)))
		return NULL;
	for (int i = 0; i < 4; i++) {
		size_t len = text_len(t[i]);

		if (offs[i])
			*offs[i] = (uint32_t)pos;
		if (len)
			memcpy(b + pos, t[i]->p, len);
		pos += len;
		b[pos++] = '\0';
	}
	return b;
}

/* ---- caps (lookup_lib.h) ------------------------------------------------ */

static size_t cap_of(size_t set, size_t dflt)
{
	return set ? set : dflt;
}

void lk_set_caps(struct lookup *lk, size_t entries, size_t name_bytes, size_t stack_bytes)
{
	lk->max_entries = entries;
	lk->max_name_bytes = name_bytes;
	lk->max_stack_bytes = stack_bytes;
}

/* Would `more` bytes on top of `held` pass cap?  (No overflow.) */
static int passes(size_t held, size_t more, size_t cap)
{
	return held > cap || more > cap - held;
}

int lk_over_cap(struct lookup *lk, size_t names, size_t stack)
{
	if (passes(lk->name_bytes, names, cap_of(lk->max_name_bytes, LOOKUP_MAX_NAME_BYTES)))
		lk->capped = "name bytes";
	else if (passes(lk->stack_bytes, stack,
			cap_of(lk->max_stack_bytes, LOOKUP_MAX_STACK_BYTES)))
		lk->capped = "stack bytes";
	else
		return 0;
	return -E2BIG;
}

int lk_cap_error(const struct lookup *lk, struct err_text *e)
{
	int names = lk->capped && !strcmp(lk->capped, "name bytes");
	size_t cap = names ? cap_of(lk->max_name_bytes, LOOKUP_MAX_NAME_BYTES)
			   : cap_of(lk->max_stack_bytes, LOOKUP_MAX_STACK_BYTES);
	int mib = cap % (1u << 20) == 0;

	if (lk->capped && !strcmp(lk->capped, "entries"))
		return err_set(e, -E2BIG, "more than %zu live code ranges, jsym's cap on "
			       "entries (docs/lookup.md, \"Limits\"): refused, nothing of it "
			       "is used", cap_of(lk->max_entries, LOOKUP_MAX_ENTRIES));
	return err_set(e, -E2BIG, "more than %zu %s of %s, jsym's cap on %s "
		       "(docs/lookup.md, \"Limits\"): refused, nothing of it is used",
		       mib ? cap >> 20 : cap, mib ? "MiB" : "bytes",
		       names ? "names" : "inline-stack tables",
		       names ? "name bytes" : "stack bytes");
}

/* What e holds beyond its slot, into *names and *stack (added). */
static void ent_held(const struct lk_ent *e, size_t *names, size_t *stack)
{
	if (e->strs)
		*names += lk_strs_len(e->strs, e->o_name);
	for (uint32_t i = 0; i < e->n_inl; i++)
		*names += lk_strs_len(e->inl[i].strs, e->inl[i].o_name);
	*stack += lk_grown_cap(e->n_inl) * sizeof(*e->inl);
	if (e->fx)
		lk_frames_held(e->fx, names, stack);
}

/* lk_grow for the entries, which stay aligned to a cache line (realloc
 * would not keep that). */
static int ents_grow(struct lookup *lk, size_t need)
{
	size_t nc = lk_grown_cap(need);
	struct lk_ent *np;

	if (need <= lk->cap_ents)
		return 0;
	np = aligned_alloc(LK_LINE, nc * sizeof(*np));
	if (!np)
		return -ENOMEM;
	if (lk->n_ents)
		memcpy(np, lk->ents, lk->n_ents * sizeof(*np));
	free(lk->ents);
	lk->ents = np;
	lk->cap_ents = nc;
	return 0;
}

/* ---- entries ------------------------------------------------------------ */

static void ent_clear(struct lk_ent *e)
{
	for (uint32_t i = 0; i < e->n_inl; i++)
		free(e->inl[i].strs);
	free(e->inl);
	free(e->strs);
	lk_frames_free(e->fx);
	e->fx = NULL;
	e->inl = NULL;
	e->strs = NULL;
	e->n_inl = 0;
}

int lk_compact(struct lookup *lk)
{
	struct lk_map id = { 0 }, st = { 0 };
	size_t w = 0, live = lk->n_ents - lk->n_dead;

	/* Room for every live entry first: the loop below moves entries, so
	 * nothing in it may fail. */
	if (lk_map_reserve(&id, live) < 0 || lk_map_reserve(&st, live) < 0) {
		lk_map_free(&id);
		return -ENOMEM;
	}
	for (size_t i = 0; i < lk->n_ents; i++) {
		if (!lk->ents[i].strs)
			continue;
		lk->ents[w] = lk->ents[i];
		(void)lk_map_put(&id, lk->ents[w].id, (uint32_t)w);
		(void)lk_map_put(&st, lk->ents[w].start, (uint32_t)w);
		w++;
	}
	lk_map_free(&lk->by_id);
	lk_map_free(&lk->by_start);
	lk->by_id = id;
	lk->by_start = st;
	lk->n_ents = w;
	lk->n_dead = 0;
	lk->dirty = 1;
	lk->order_valid = 0; /* indexes changed */
	return 0;
}

void lookup_clear(struct lookup *lk)
{
	int source = lk->st.source;
	uint64_t resets = lk->st.resets;

	for (size_t i = 0; i < lk->n_ents; i++)
		ent_clear(&lk->ents[i]);
	lk_map_free(&lk->by_id);
	lk_map_free(&lk->by_start);
	lk->n_ents = lk->n_dead = lk->n_seg = lk->n_inl = lk->r_n = 0;
	lk->n_order = lk->n_sorted = 0;
	lk->order_valid = 0;
	lk->dirty = 0;
	lk->name_bytes = lk->stack_bytes = 0;
	memset(&lk->st, 0, sizeof(lk->st));
	lk->st.source = source;
	lk->st.resets = resets;
}

static int valid_range(uint64_t start, uint64_t size)
{
	return size != 0 && start + size > start;
}

/* End entry idx: free it and drop it from both tables. */
static void kill_entry(struct lookup *lk, uint32_t idx)
{
	struct lk_ent *e = &lk->ents[idx];
	size_t names = 0, stack = 0;

	ent_held(e, &names, &stack);
	lk->name_bytes -= names;
	lk->stack_bytes -= stack;
	lk_map_del(&lk->by_id, e->id, idx);
	lk_map_del(&lk->by_start, e->start, idx);
	lk->n_inl -= e->n_inl;
	if (e->fx)
		lk->st.chains -= e->fx->n_ch;
	ent_clear(e);
	lk->n_dead++;
	lk->dirty = 1;
}

static void maybe_compact(struct lookup *lk)
{
	if (lk->n_dead > 4096 && lk->n_dead > lk->n_ents / 2)
		lk_compact(lk); /* on ENOMEM the dead entries just stay a while longer */
}

int lookup_remove(struct lookup *lk, uint64_t id)
{
	uint32_t idx;

	if (!lk_map_get(&lk->by_id, id, &idx))
		return -ENOENT;
	kill_entry(lk, idx);
	maybe_compact(lk);
	return 0;
}

int lookup_add(struct lookup *lk, const struct lookup_sym *sym)
{
	struct lk_ent e = { 0 };
	uint32_t idx;

	if (sym->kind != LOOKUP_LOAD && sym->kind != LOOKUP_STUB && sym->kind != LOOKUP_MAP)
		return -EINVAL;
	if (!valid_range(sym->start, sym->size))
		return -EINVAL;
	if (lk->n_ents >= UINT32_MAX - 1)
		return -ENOMEM;
	if (ents_grow(lk, lk->n_ents + 1) < 0)
		return -ENOMEM;
	e.strs = pack_strs(sym, &e.o_method, &e.o_sig, &e.o_name);
	if (!e.strs)
		return -ENOMEM;
	e.start = sym->start;
	e.end = sym->start + sym->size;
	e.id = sym->id;
	e.kind = (uint8_t)sym->kind;
	/*
	 * The same id again: the newer record replaces it.  A live entry that
	 * starts at the same address is over: two live code blobs never share
	 * a start, so its memory was reused even if its UNLOAD is still to come
	 * (the agent drops it from the map the same way).
	 */
	if (lk_map_get(&lk->by_id, e.id, &idx))
		kill_entry(lk, idx);
	if (lk_map_get(&lk->by_start, e.start, &idx)) {
		kill_entry(lk, idx);
		lk->st.superseded++;
	}
	maybe_compact(lk);
	/* the caps, once the entries this one ends are gone: nothing is
	 * allocated for an entry past them */
	if (lk->n_ents - lk->n_dead >= cap_of(lk->max_entries, LOOKUP_MAX_ENTRIES)) {
		lk->capped = "entries";
		free(e.strs);
		return -E2BIG;
	}
	if (lk_over_cap(lk, lk_strs_len(e.strs, e.o_name), 0) < 0) {
		free(e.strs);
		return -E2BIG;
	}
	idx = (uint32_t)lk->n_ents;
	if (lk_map_put(&lk->by_id, e.id, idx) < 0) {
		free(e.strs);
		return -ENOMEM;
	}
	if (lk_map_put(&lk->by_start, e.start, idx) < 0) {
		lk_map_del(&lk->by_id, e.id, idx);
		free(e.strs);
		return -ENOMEM;
	}
	lk->ents[lk->n_ents++] = e;
	lk->name_bytes += lk_strs_len(e.strs, e.o_name);
	lk->dirty = 1;
	return 0;
}

int lookup_add_inline(struct lookup *lk, const struct lookup_sym *sym)
{
	struct lk_ent *e;
	struct lk_inl in = { 0 };
	uint32_t idx;
	size_t cap, grows;

	if (!lk_map_get(&lk->by_id, sym->id, &idx))
		return -ENOENT;
	e = &lk->ents[idx];
	if (e->kind != LOOKUP_LOAD)
		return -ENOENT;
	if (!valid_range(sym->start, sym->size) || e->n_inl >= LOOKUP_MAX_INLINE)
		return -EINVAL;
	cap = lk_grown_cap(e->n_inl);
	grows = (lk_grown_cap((size_t)e->n_inl + 1) - cap) * sizeof(*e->inl);
	if (lk_over_cap(lk, strs_size(sym), grows) < 0)
		return -E2BIG;
	lk_ent_grows(lk, e);
	if (lk_grow((void **)&e->inl, &cap, (size_t)e->n_inl + 1, sizeof(*e->inl)) < 0)
		return -ENOMEM;
	in.strs = pack_strs(sym, &in.o_method, &in.o_sig, &in.o_name);
	if (!in.strs)
		return -ENOMEM;
	in.start = sym->start;
	in.end = sym->start + sym->size;
	e->inl[e->n_inl++] = in;
	lk->n_inl++;
	lk->name_bytes += lk_strs_len(in.strs, in.o_name);
	lk->stack_bytes += grows;
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
	case JF_FRAMES:
		rc = lk_add_frames(lk, rec);
		break;
	case JF_EPOCH:
		lk->st.last_epoch = rec->reason;
		lk->st.last_epoch_ts = rec->timestamp;
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
