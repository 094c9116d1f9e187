/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lookup_int.h - inside the address index, shared by lookup.c (entries),
 * lookup_index.c (segments and queries) and lookup_follow.c (files).  Not an
 * API: use lookup_lib.h.
 */
#ifndef JSYM_LOOKUP_INT_H
#define JSYM_LOOKUP_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hashtab.h"
#include "journal_read.h"
#include "lookup_lib.h"
#include "perfmap_read.h"

struct lk_inl {
	uint64_t start, end;
	char *strs; /* class\0method\0sig\0name\0 */
	uint32_t o_method, o_sig, o_name;
};

/* The inline chains of one LOAD (JF_FRAMES records; lookup_frames.c). */
struct lk_meth {
	char *strs; /* class\0method\0sig\0name\0file\0 */
	uint32_t o_method, o_sig, o_name, o_file;
};

struct lk_chain {
	uint64_t start, end;  /* absolute */
	uint32_t first;       /* frames[first .. first + depth), outermost first */
	uint32_t depth;
};

struct lk_fr {
	uint32_t method;      /* index into meth[] */
	uint16_t bci, line;   /* JF_FRAMES_NO_BCI / 0 when unknown */
};

struct lk_frames {
	struct lk_chain *ch;
	struct lk_fr *fr;
	struct lk_meth *meth;
	size_t n_ch, cap_ch, n_fr, cap_fr, n_meth, cap_meth;
};

/*
 * One entry: 64 bytes in an array aligned to 64 (ents_grow in lookup.c), so
 * lookup_find reads one cache line of it.
 */
struct lk_ent {
	uint64_t start, end;
	char *strs; /* class\0method\0sig\0name\0; NULL once dead */
	uint32_t o_method, o_sig, o_name;
	uint8_t kind;         /* enum lookup_kind */
	uint8_t pad;
	uint16_t n_inl;       /* <= LOOKUP_MAX_INLINE */
	struct lk_frames *fx; /* NULL when the journal has no chains for it */
	struct lk_inl *inl;   /* capacity: lk_grown_cap(n_inl) */
	uint64_t id;
};

#define LK_LINE 64
_Static_assert(sizeof(struct lk_ent) == LK_LINE, "an entry is one cache line");

struct heap_item;

/*
 * u64 key -> entry index (lookup_hash.c), on agent/format's hashtab.  The
 * hashtab keeps 0 for an empty slot, and here 0 is a key like any other:
 * an id is whatever a journal says (the agent's writer starts at 1, but a
 * journal is the target's to write) and a code start may be 0 (only
 * start + size must not wrap).  So key 0 lives beside the table.  {0} is
 * an empty map.
 */
struct lk_map {
	struct hashtab t;        /* slots: struct lk_map_slot */
	uint32_t zero_idx;       /* key 0's entry, when has_zero */
	uint8_t has_zero;
};

/*
 * A piece of address space and the entry that wins it, with a copy of what
 * an answer needs from that entry: a lookup through the public API reads
 * this one cache line (the array is aligned to 64) and not the entry, unless
 * the copy is not the whole answer (whole == 0: the entry has inline ranges
 * or chains, or a size that does not fit e_size).  The copy is made at each
 * rebuild, and every change to an entry marks the index dirty.
 */
struct lk_seg {
	uint64_t start, end;     /* the piece */
	uint64_t e_start;        /* the entry's range: e_start, e_size bytes */
	const char *strs;        /* the entry's strings and their offsets */
	uint64_t id;             /* the entry's id */
	uint32_t o_method, o_sig, o_name;
	uint32_t e_size;         /* valid when whole */
	uint32_t ent;            /* index of the entry */
	uint8_t kind;            /* enum lookup_kind */
	uint8_t whole;           /* the copy is the whole answer */
};

_Static_assert(sizeof(struct lk_seg) == LK_LINE, "a segment is one cache line");

/* An entry in start order (lookup_index.c). */
struct start_idx {
	uint64_t start;
	uint32_t ent;
};

struct lookup {
	struct lk_ent *ents;
	size_t n_ents, cap_ents, n_dead;
	struct lk_map by_id;     /* live entries by id */
	struct lk_map by_start;  /* live entries by start address */
	/* entries [0, n_sorted) in start order as of the last rebuild (dead
	 * ones are dropped at the next); invalid after a compaction */
	struct start_idx *order, *order_tmp;
	size_t n_order, cap_order, cap_order_tmp, n_sorted;
	int order_valid;
	struct heap_item *heap;
	size_t cap_heap;
	/* segments in start order, disjoint; valid when !dirty */
	struct lk_seg *seg;
	size_t n_seg, cap_seg;
	/* radix index over the segment starts (lookup_index.c): bucket b holds
	 * addresses r_base + [b << r_shift, (b + 1) << r_shift), and r_idx[b] is
	 * the number of segments that start before it; r_n + 1 entries */
	uint32_t *r_idx;
	size_t r_n, cap_r;
	uint64_t r_base;
	unsigned r_shift;
	int dirty;
	size_t n_inl;
	struct lookup_frame *scratch; /* inline chain of the last hit */
	size_t cap_scratch;
	struct lookup_frame *chain_buf; /* FRAMES stack of the last hit */
	size_t cap_chain_buf;
	struct lookup_stats st;
	uint64_t until;          /* journal records after this timestamp wait; 0 = none */
	/* what the live entries hold, against the caps of lookup_lib.h
	 * (max_*: 0 = the LOOKUP_MAX_* default; lk_set_caps) */
	size_t name_bytes, stack_bytes;
	size_t max_entries, max_name_bytes, max_stack_bytes;
	const char *capped;      /* the cap passed ("entries", ...), or NULL */
	/* followed source */
	struct jr_reader jr;
	struct pm_reader pm;
};

/* Call before entry e gains an inline range or a chain: when it had none,
 * the segments' copy of it says so (whole), and must be made again. */
static inline void lk_ent_grows(struct lookup *lk, const struct lk_ent *e)
{
	if (!e->n_inl && !e->fx)
		lk->dirty = 1;
}

/* The entry index of key into *idx: 1, or 0 when key is absent. */
int lk_map_get(const struct lk_map *m, uint64_t key, uint32_t *idx);
/* Add key -> idx (the key must not be present).  0 or -ENOMEM (m unchanged). */
int lk_map_put(struct lk_map *m, uint64_t key, uint32_t idx);
/* Room for n keys in all: then lk_map_put of up to n keys never fails.
 * 0 or -ENOMEM (m unchanged). */
int lk_map_reserve(struct lk_map *m, size_t n);
/* Drop key when it maps to idx (else nothing).  Takes a key, not a slot:
 * the removal moves other keys' slots. */
void lk_map_del(struct lk_map *m, uint64_t key, uint32_t idx);
void lk_map_free(struct lk_map *m);

/* Grow *p (of elem-byte items, capacity *cap) to hold need items.  0 or -ENOMEM. */
int lk_grow(void **p, size_t *cap, size_t need, size_t elem);

/* lk_grow's capacity after it grew an array one item at a time to n items. */
size_t lk_grown_cap(size_t n);

/* Drop dead entries; indexes change, so the hash is rebuilt.  0 or -ENOMEM
 * (then nothing changed). */
int lk_compact(struct lookup *lk);

/* Compute the segments from the live entries (lookup_index.c).  0 or -ENOMEM. */
int lk_rebuild(struct lookup *lk);

/* Build the radix index over the segments (lookup_radix.c).  0 or -ENOMEM. */
int lk_radix_build(struct lookup *lk);

/* Index of the last segment starting at or below addr, by binary search
 * over all segments (the index before the radix; kept for the benchmark
 * and the oracle tests), or -1. */
long lk_seg_bsearch(const struct lookup *lk, uint64_t addr);

/* Count of the segments s[lo, hi) that start at or below addr, plus lo. */
static inline size_t lk_seg_upper(const struct lk_seg *s, size_t lo, size_t hi, uint64_t addr)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The same through the radix index (lookup_radix.c builds it): what
 * lookup_find and jsym_lookup_resolve use, inline in both because it is
 * their whole hot path.  The index must be clean (lk_rebuild). */
static inline long lk_seg_find(const struct lookup *lk, uint64_t addr)
{
	uint64_t b;
	size_t p;

	if (!lk->r_n || addr < lk->r_base)
		return -1;
	b = (addr - lk->r_base) >> lk->r_shift;
	if (b >= lk->r_n)
		p = lk->n_seg; /* past the last start: every segment starts before */
	else
		p = lk_seg_upper(lk->seg, lk->r_idx[b], lk->r_idx[b + 1], addr);
	if (p == 0 || addr >= lk->seg[p - 1].end)
		return -1;
	return (long)(p - 1);
}

/* Apply a FRAMES record (lookup_frames.c).  0, -ENOMEM or -E2BIG (a cap:
 * lk_over_cap); bad and orphan records are counted. */
int lk_add_frames(struct lookup *lk, const struct jr_record *rec);

/* Free an entry's chains. */
void lk_frames_free(struct lk_frames *fx);

/* The bytes fx holds: names into *names, tables into *stack (added). */
void lk_frames_held(const struct lk_frames *fx, size_t *names, size_t *stack);

/* Bytes of a block of NUL-terminated strings whose last starts at `last`. */
static inline size_t lk_strs_len(const char *strs, uint32_t last)
{
	return last + strlen(strs + last) + 1;
}

/* Would `names` and `stack` more bytes pass a cap?  0, or -E2BIG with
 * lk->capped set (lookup.c). */
int lk_over_cap(struct lookup *lk, size_t names, size_t stack);

/* Caps below the LOOKUP_MAX_* defaults (0 keeps a default), for the unit
 * tests: a case just over and just under each cap without 256 MiB. */
void lk_set_caps(struct lookup *lk, size_t entries, size_t name_bytes, size_t stack_bytes);

/* The reason of lk->capped into e, and -E2BIG (lookup.c). */
int lk_cap_error(const struct lookup *lk, struct err_text *e);

/* The chain of fx holding addr, or NULL. */
const struct lk_chain *lk_chain_at(const struct lk_frames *fx, uint64_t addr);

/* Frame k of chain c (k = 0 the outermost) as a lookup_frame: kind
 * LOOKUP_LOAD for the outermost, LOOKUP_INLINE for the others. */
struct lookup_frame lk_chain_frame(const struct lk_ent *e, const struct lk_chain *c, uint32_t k);

/*
 * Apply one journal record (LOAD, UNLOAD, STUB, INLINE; EPOCH is noted and
 * ignored; unknown and bad records are counted).  Returns 0, -E2BIG (a cap)
 * or -ENOMEM; the input's own inconsistencies are counted in the stats,
 * never errors.
 */
int lookup_apply_record(struct lookup *lk, const struct jr_record *rec);

/* Header of the followed journal, or NULL before it was read. */
const struct jr_header *lookup_journal_header(const struct lookup *lk);

/* Feeding entries directly (lookup_follow.c does from the files it reads;
 * the unit tests and the bench do). */

/* Input text: p[0..len) is copied; need not be NUL-terminated; p may be NULL if len is 0. */
struct lookup_text {
	const char *p;
	size_t len;
};

struct lookup_sym {
	int kind;                /* LOOKUP_LOAD, LOOKUP_STUB, LOOKUP_MAP (or LOOKUP_INLINE for
				    lookup_add_inline, where id is the parent's id) */
	uint64_t id, start, size;
	struct lookup_text class_name, method, signature, name;
};

/*
 * Add a LOAD/STUB/MAP range.  An existing live entry with the same id, and
 * one with the same start address, is ended first.  Texts are copied up to
 * their first NUL (what follows one is never shown).  Returns 0, -EINVAL
 * (size 0, range wraps, bad kind), -E2BIG (a cap of lookup_lib.h: lk->capped
 * says which) or -ENOMEM.
 */
int lookup_add(struct lookup *lk, const struct lookup_sym *sym);

/* End the entry with this id (and its inlined ranges).  0 or -ENOENT. */
int lookup_remove(struct lookup *lk, uint64_t id);

/* Inlined ranges kept per method: bounds the cost of one lookup on hostile
 * input (the agent writes at most 512). */
#define LOOKUP_MAX_INLINE 1024

/*
 * Add an inlined-method range to the live LOAD whose id is sym->id.
 * Returns 0, -ENOENT (no such live LOAD), -EINVAL (empty/wrapping range, or
 * the method has LOOKUP_MAX_INLINE already), -E2BIG (a cap) or -ENOMEM.
 */
int lookup_add_inline(struct lookup *lk, const struct lookup_sym *sym);

#endif
