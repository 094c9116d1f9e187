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
