/*
 * lookup_int.h - inside the address index, shared by lookup.c (entries),
 * lookup_index.c (segments and queries) and lookup_follow.c (files).  Not an
 * API: use lookup.h.
 */
#ifndef JSYM_LOOKUP_INT_H
#define JSYM_LOOKUP_INT_H

#include <stddef.h>
#include <stdint.h>

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

struct heap_item;

/* u64 key -> entry index (lookup_hash.c) */
struct lk_hash {
	uint64_t *keys;
	uint32_t *val;    /* index + 1; 0 empty, UINT32_MAX deleted */
	size_t cap;       /* 0 or a power of two */
	size_t used;      /* slots not empty, tombstones included */
	size_t live;      /* keys present */
};

/* An entry in start order (lookup_index.c). */
struct start_idx {
	uint64_t start;
	uint32_t ent;
};

struct lookup {
	struct lk_ent *ents;
	size_t n_ents, cap_ents, n_dead;
	struct lk_hash by_id;    /* live entries by id */
	struct lk_hash by_start; /* live entries by start address */
	/* entries [0, n_sorted) in start order as of the last rebuild (dead
	 * ones are dropped at the next); invalid after a compaction */
	struct start_idx *order, *order_tmp;
	size_t n_order, cap_order, cap_order_tmp, n_sorted;
	int order_valid;
	struct heap_item *heap;
	size_t cap_heap;
	/* segments, valid when !dirty */
	uint64_t *s_start, *s_end;
	uint32_t *s_ent;
	size_t n_seg, cap_seg;
	int dirty;
	size_t n_inl;
	struct lookup_frame *scratch; /* inline chain of the last hit */
	size_t cap_scratch;
	struct lookup_stats st;
	uint64_t until;          /* journal records after this timestamp wait; 0 = none */
	/* followed source */
	struct jr_reader jr;
	struct pm_reader pm;
};

#define LKH_NONE ((size_t)-1)

/* An empty table with room for `want` keys.  0 or -ENOMEM (then h is empty). */
int lkh_init(struct lk_hash *h, size_t want);
void lkh_free(struct lk_hash *h);
/* Slot of key, or LKH_NONE. */
size_t lkh_find(const struct lk_hash *h, uint64_t key);
/* Entry index stored in an occupied slot. */
uint32_t lkh_idx(const struct lk_hash *h, size_t slot);
/* Add key -> idx (the key must not be present); grows as needed.  0 or -ENOMEM. */
int lkh_put(struct lk_hash *h, uint64_t key, uint32_t idx);
/* Add to a table made by lkh_init for at least that many keys: never fails. */
void lkh_fill(struct lk_hash *h, uint64_t key, uint32_t idx);
void lkh_del(struct lk_hash *h, size_t slot);

/* Grow *p (of elem-byte items, capacity *cap) to hold need items.  0 or -ENOMEM. */
int lk_grow(void **p, size_t *cap, size_t need, size_t elem);

/* Drop dead entries; indexes change, so the hash is rebuilt.  0 or -ENOMEM
 * (then nothing changed). */
int lk_compact(struct lookup *lk);

/* Compute the segments from the live entries (lookup_index.c).  0 or -ENOMEM. */
int lk_rebuild(struct lookup *lk);

/* Close the followed file, if any (lookup_follow.c). */
void lk_close_source(struct lookup *lk);

#endif
