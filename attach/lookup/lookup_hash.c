/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lookup_hash.c - the storage under the index: its open-addressing hash
 * tables (u64 key -> entry index), linear probing, tombstones for
 * deletions, power-of-two capacity, used twice: id -> entry (UNLOAD by id)
 * and start -> entry (a new LOAD at the start of a live one supersedes it);
 * and lk_grow, its growable arrays.  Calls nothing else of attach/lookup.
 */
#include <errno.h>
#include <stdlib.h>

#include "lookup_int.h"

#define LK_HASH_TOMB UINT32_MAX

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

int lk_hash_init(struct lk_hash *h, size_t want)
{
	h->cap = 64;
	while (h->cap < want * 2)
		h->cap *= 2;
	h->keys = malloc(h->cap * sizeof(*h->keys));
	h->val = calloc(h->cap, sizeof(*h->val));
	h->used = h->live = 0;
	if (!h->keys || !h->val) {
		free(h->keys);
		free(h->val);
		h->keys = NULL;
		h->val = NULL;
		h->cap = 0;
		return -ENOMEM;
	}
	return 0;
}

void lk_hash_free(struct lk_hash *h)
{
	free(h->keys);
	free(h->val);
	h->keys = NULL;
	h->val = NULL;
	h->cap = h->used = h->live = 0;
}

size_t lk_hash_find(const struct lk_hash *h, uint64_t key)
{
	if (!h->cap)
		return LK_HASH_NONE;
	for (size_t i = slot_of(key, h->cap);; i = (i + 1) & (h->cap - 1)) {
		if (h->val[i] == 0)
			return LK_HASH_NONE;
		if (h->val[i] != LK_HASH_TOMB && h->keys[i] == key)
			return i;
	}
}

/* Insert into a table known to have a free slot. */
static void put_nogrow(struct lk_hash *h, uint64_t key, uint32_t idx)
{
	size_t i = slot_of(key, h->cap);

	while (h->val[i] != 0 && h->val[i] != LK_HASH_TOMB)
		i = (i + 1) & (h->cap - 1);
	if (h->val[i] == 0)
		h->used++;
	h->live++;
	h->keys[i] = key;
	h->val[i] = idx + 1;
}

int lk_hash_put(struct lk_hash *h, uint64_t key, uint32_t idx)
{
	if ((h->used + 1) * 4 > h->cap * 3) {
		/* full of entries or tombstones: rehash the live ones into a new table */
		struct lk_hash n;

		if (lk_hash_init(&n, h->live + 1) < 0)
			return -ENOMEM;
		for (size_t i = 0; i < h->cap; i++)
			if (h->val[i] != 0 && h->val[i] != LK_HASH_TOMB)
				put_nogrow(&n, h->keys[i], h->val[i] - 1);
		lk_hash_free(h);
		*h = n;
	}
	put_nogrow(h, key, idx);
	return 0;
}

void lk_hash_del(struct lk_hash *h, size_t slot)
{
	h->val[slot] = LK_HASH_TOMB;
	h->live--;
}

uint32_t lk_hash_idx(const struct lk_hash *h, size_t slot)
{
	return h->val[slot] - 1;
}

void lk_hash_fill(struct lk_hash *h, uint64_t key, uint32_t idx)
{
	put_nogrow(h, key, idx);
}

static size_t grown(size_t cap, size_t need)
{
	size_t nc = cap ? cap : 16;

	while (nc < need)
		nc *= 2;
	return nc;
}

size_t lk_grown_cap(size_t n)
{
	return n ? grown(0, n) : 0;
}

int lk_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t nc = grown(*cap, need);
	void *np;

	if (need <= *cap)
		return 0;
	np = realloc(*p, nc * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = nc;
	return 0;
}
