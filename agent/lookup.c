/*
 * lookup.c - the address index (see lookup.h for the contract).
 *
 * Entries live in one array; an open-addressing hash maps id -> index so an
 * UNLOAD finds its LOAD in O(1).  Removal only marks an entry dead.  The
 * query structure is a sorted array of disjoint segments [start, end) -> entry
 * index, rebuilt lazily by a sweep over the live entries in start order with
 * a max-heap on id: the winner of each piece of address space is the live
 * entry with the highest id covering it.  Rebuilding also compacts the entry
 * array, which is why indexes are only stable between rebuilds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lookup.h"
#include "perfmap_read.h"

struct lk_inl {
	uint64_t start, end;
	char *strs; /* class\0method\0sig\0name\0 */
	uint32_t o_method, o_sig, o_name;
};

struct lk_ent {
	uint64_t start, end, id;
	char *strs; /* class\0method\0sig\0name\0; NULL once dead */
	struct lk_inl *inl;
	uint32_t n_inl, cap_inl;
	uint32_t o_method, o_sig, o_name;
	int kind;
};

struct lookup {
	struct lk_ent *ents;
	size_t n_ents, cap_ents, n_dead;
	/* id -> index+1 (0 = empty, TOMB = deleted), capacity a power of two */
	uint64_t *h_ids;
	uint32_t *h_val;
	size_t h_cap, h_used; /* h_used counts tombstones too */
	/* segments, valid when !dirty */
	uint64_t *s_start, *s_end;
	uint32_t *s_ent;
	size_t n_seg, cap_seg;
	int dirty;
	size_t n_inl;
	struct lookup_frame *scratch; /* inline chain of the last hit */
	size_t cap_scratch;
	struct lookup_stats st;
	/* followed source */
	struct jr_reader jr;
	struct pm_reader pm;
};

#define TOMB UINT32_MAX

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

static int grow(void **p, size_t *cap, size_t need, size_t elem)
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

/* Drop dead entries; indexes change, so the hash is rebuilt.  0 or -ENOMEM
 * (then nothing changed). */
static int compact(struct lookup *lk)
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

static void close_source(struct lookup *lk)
{
	jr_close(&lk->jr);
	pm_close(&lk->pm);
	lk->st.source = 0;
}

void lookup_free(struct lookup *lk)
{
	if (!lk)
		return;
	for (size_t i = 0; i < lk->n_ents; i++)
		ent_clear(&lk->ents[i]);
	free(lk->ents);
	free(lk->h_ids);
	free(lk->h_val);
	free(lk->s_start);
	free(lk->s_end);
	free(lk->s_ent);
	free(lk->scratch);
	close_source(lk);
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
		compact(lk); /* on ENOMEM the dead entries just stay a while longer */
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
	if (grow((void **)&lk->ents, &lk->cap_ents, lk->n_ents + 1, sizeof(*lk->ents)) < 0)
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
	    grow((void **)&e->inl, &cap, (size_t)e->n_inl + 1, sizeof(*e->inl)) < 0)
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

struct start_idx {
	uint64_t start;
	uint32_t ent;
};

static int by_start(const void *a, const void *b)
{
	const struct start_idx *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Append a segment (capacity reserved by the caller), merging with its twin. */
static void emit(struct lookup *lk, uint64_t start, uint64_t end, uint32_t ent)
{
	size_t n = lk->n_seg;

	if (n && lk->s_ent[n - 1] == ent && lk->s_end[n - 1] == start) {
		lk->s_end[n - 1] = end;
		return;
	}
	lk->s_start[n] = start;
	lk->s_end[n] = end;
	lk->s_ent[n] = ent;
	lk->n_seg++;
}

static int seg_reserve(struct lookup *lk, size_t need)
{
	if (need <= lk->cap_seg)
		return 0;
	uint64_t *a = realloc(lk->s_start, need * sizeof(*a));

	if (a)
		lk->s_start = a;
	uint64_t *b = realloc(lk->s_end, need * sizeof(*b));

	if (b)
		lk->s_end = b;
	uint32_t *c = realloc(lk->s_ent, need * sizeof(*c));

	if (c)
		lk->s_ent = c;
	if (!a || !b || !c)
		return -ENOMEM;
	lk->cap_seg = need;
	return 0;
}

static int rebuild(struct lookup *lk)
{
	size_t n, i = 0, nh = 0;
	struct start_idx *order;
	struct heap_item *heap;
	uint64_t cur;
	int rc;

	if (lk->n_dead && (rc = compact(lk)) < 0)
		return rc;
	n = lk->n_ents;
	/* every entry adds at most two segment boundaries */
	if ((rc = seg_reserve(lk, 2 * n + 1)) < 0)
		return rc;
	order = malloc((n + 1) * sizeof(*order));
	heap = malloc((n + 1) * sizeof(*heap));
	if (!order || !heap) {
		free(order);
		free(heap);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++)
		order[k] = (struct start_idx){ lk->ents[k].start, (uint32_t)k };
	qsort(order, n, sizeof(*order), by_start);
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
	free(order);
	free(heap);
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
		if (grow((void **)&lk->scratch, &lk->cap_scratch, n + 1, sizeof(*lk->scratch)) < 0)
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

int lookup_find(struct lookup *lk, uint64_t addr, struct lookup_hit *hit)
{
	size_t lo = 0, hi;
	const struct lk_ent *e;
	int rc;

	memset(hit, 0, sizeof(*hit));
	hit->addr = addr;
	if (lk->dirty && (rc = rebuild(lk)) < 0)
		return rc;
	/* last segment with start <= addr */
	hi = lk->n_seg;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lk->s_start[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= lk->s_end[lo - 1])
		return 0;
	e = &lk->ents[lk->s_ent[lo - 1]];
	hit->sym = frame_of(e->kind, e->id, e->start, e->end, e->strs, e->o_method, e->o_sig,
			    e->o_name);
	hit->offset = addr - e->start;
	if (e->n_inl) {
		if ((rc = collect_inlines(lk, e, addr, &hit->n_inline)) < 0)
			return rc;
		hit->inlined = hit->n_inline ? lk->scratch : NULL;
	}
	return 1;
}

/* ---- following a file --------------------------------------------------- */

int lookup_follow_journal(struct lookup *lk, int fd)
{
	close_source(lk);
	jr_open_fd(&lk->jr, fd);
	lk->st.source = 1;
	return 0;
}

int lookup_follow_map(struct lookup *lk, int fd)
{
	close_source(lk);
	pm_open_fd(&lk->pm, fd);
	lk->st.source = 2;
	return 0;
}

static long refresh_journal(struct lookup *lk, char *err, size_t errlen)
{
	struct jr_record rec;
	long applied = 0;
	int rc;

	while ((rc = jr_next(&lk->jr, &rec, err, errlen)) == 1) {
		if ((rc = lookup_apply_record(lk, &rec)) < 0)
			return rc;
		applied++;
	}
	lk->st.source_offset = lk->jr.offset;
	return rc < 0 ? rc : applied;
}

static long refresh_map(struct lookup *lk, char *err, size_t errlen)
{
	struct pm_line line;
	long applied = 0;
	int rc;

	while ((rc = pm_next(&lk->pm, &line, err, errlen)) == 1) {
		struct lookup_sym s = {
			.kind = LOOKUP_MAP,
			.id = line.lineno,
			.start = line.start,
			.size = line.size,
			.name = { line.name, line.name_len },
		};

		if ((rc = lookup_add(lk, &s)) < 0)
			return rc;
		lk->st.records++;
		applied++;
	}
	lk->st.malformed_lines = lk->pm.malformed;
	lk->st.source_offset = pm_offset(&lk->pm);
	lk->st.pending_bytes = pm_pending(&lk->pm);
	return rc < 0 ? rc : applied;
}

long lookup_refresh(struct lookup *lk, char *err, size_t errlen)
{
	if (lk->st.source == 1)
		return refresh_journal(lk, err, errlen);
	if (lk->st.source == 2)
		return refresh_map(lk, err, errlen);
	return -EBADF;
}

const struct jr_header *lookup_journal_header(const struct lookup *lk)
{
	return lk->st.source == 1 && lk->jr.have_header ? &lk->jr.hdr : NULL;
}

void lookup_get_stats(const struct lookup *lk, struct lookup_stats *st)
{
	*st = lk->st;
	st->live = lk->n_ents - lk->n_dead;
	st->inlines = lk->n_inl;
}
