/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lookup_hash.c - the storage under the index: its maps (u64 key -> entry
 * index) on agent/format's hashtab, used twice: id -> entry (UNLOAD by id)
 * and start -> entry (a new LOAD at the start of a live one supersedes it);
 * and lk_grow, its growable arrays.  Calls nothing else of attach/lookup.
 */
#include <errno.h>
#include <stdlib.h>

#include "lookup_int.h"

/* A slot of the maps' hashtabs: 12 bytes, packed (hashtab reads keys with
 * memcpy), so 100k entries take 3 MiB a map, not 4. */
struct __attribute__((packed)) lk_map_slot {
	uint64_t key;  /* nonzero: key 0 is m->zero_idx */
	uint32_t idx;
};
_Static_assert(sizeof(struct lk_map_slot) == 12, "a map slot is 12 bytes");

int lk_map_get(const struct lk_map *m, uint64_t key, uint32_t *idx)
{
	const struct lk_map_slot *s;

	if (!key) {
		*idx = m->zero_idx;
		return m->has_zero;
	}
	if (!(s = hashtab_find(&m->t, sizeof(*s), key)))
		return 0;
	*idx = s->idx;
	return 1;
}

int lk_map_put(struct lk_map *m, uint64_t key, uint32_t idx)
{
	struct lk_map_slot *s;

	if (!key) {
		m->zero_idx = idx;
		m->has_zero = 1;
		return 0;
	}
	if (!(s = hashtab_insert(&m->t, sizeof(*s), key)))
		return -ENOMEM;
	s->idx = idx;
	return 0;
}

int lk_map_reserve(struct lk_map *m, size_t n)
{
	return hashtab_reserve(&m->t, sizeof(struct lk_map_slot), n);
}

void lk_map_del(struct lk_map *m, uint64_t key, uint32_t idx)
{
	struct lk_map_slot *s;

	if (!key) {
		if (m->has_zero && m->zero_idx == idx)
			m->has_zero = 0;
		return;
	}
	s = hashtab_find(&m->t, sizeof(*s), key);
	if (s && s->idx == idx)
		hashtab_remove(&m->t, sizeof(*s), s);
}

void lk_map_free(struct lk_map *m)
{
	hashtab_free(&m->t);
	m->has_zero = 0;
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
