/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lookup_hash.c - the index's open-addressing hash tables (u64 key -> entry
 * index), linear probing, tombstones for deletions, power-of-two capacity.
 * Used twice: id -> entry (UNLOAD by id) and start -> entry (a new LOAD at
 * the start of a live one supersedes it).
 */
#include <errno.h>
#include <stdlib.h>

#include "lookup_int.h"

#define LKH_TOMB UINT32_MAX

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

int lkh_init(struct lk_hash *h, size_t want)
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

void lkh_free(struct lk_hash *h)
{
	free(h->keys);
	free(h->val);
	h->keys = NULL;
	h->val = NULL;
	h->cap = h->used = h->live = 0;
}

size_t lkh_find(const struct lk_hash *h, uint64_t key)
{
	if (!h->cap)
		return LKH_NONE;
	for (size_t i = slot_of(key, h->cap);; i = (i + 1) & (h->cap - 1)) {
		if (h->val[i] == 0)
			return LKH_NONE;
		if (h->val[i] != LKH_TOMB && h->keys[i] == key)
			return i;
	}
}

/* Insert into a table known to have a free slot. */
static void put_nogrow(struct lk_hash *h, uint64_t key, uint32_t idx)
{
	size_t i = slot_of(key, h->cap);

	while (h->val[i] != 0 && h->val[i] != LKH_TOMB)
		i = (i + 1) & (h->cap - 1);
	if (h->val[i] == 0)
		h->used++;
	h->live++;
	h->keys[i] = key;
	h->val[i] = idx + 1;
}

int lkh_put(struct lk_hash *h, uint64_t key, uint32_t idx)
{
	if ((h->used + 1) * 4 > h->cap * 3) {
		/* full of entries or tombstones: rehash the live ones into a new table */
		struct lk_hash n;

		if (lkh_init(&n, h->live + 1) < 0)
			return -ENOMEM;
		for (size_t i = 0; i < h->cap; i++)
			if (h->val[i] != 0 && h->val[i] != LKH_TOMB)
				put_nogrow(&n, h->keys[i], h->val[i] - 1);
		lkh_free(h);
		*h = n;
	}
	put_nogrow(h, key, idx);
	return 0;
}

void lkh_del(struct lk_hash *h, size_t slot)
{
	h->val[slot] = LKH_TOMB;
	h->live--;
}

uint32_t lkh_idx(const struct lk_hash *h, size_t slot)
{
	return h->val[slot] - 1;
}

void lkh_fill(struct lk_hash *h, uint64_t key, uint32_t idx)
{
	put_nogrow(h, key, idx);
}
