/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codetable.c - open-addressing hash table keyed by code start address,
 * linear probing with backward-shift deletion (no tombstones), load <= 1/2.
 */
#include "codetable.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static size_t slot_of(uint64_t start, size_t cap)
{
	uint64_t h = start * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17) & (cap - 1);
}

void codetable_init(struct code_table *t)
{
	memset(t, 0, sizeof(*t));
}

void codetable_free(struct code_table *t)
{
	codetable_clear(t);
	free(t->slots);
	codetable_init(t);
}

void codetable_clear(struct code_table *t)
{
	for (size_t i = 0; i < t->cap; i++) {
		free(t->slots[i].name);
		free(t->slots[i].rec);
		memset(&t->slots[i], 0, sizeof(t->slots[i]));
	}
	t->count = 0;
}

struct code_entry *codetable_find(struct code_table *t, uint64_t start)
{
	if (!t->cap || !start)
		return NULL;
	for (size_t i = slot_of(start, t->cap);; i = (i + 1) & (t->cap - 1)) {
		if (t->slots[i].start == start)
			return &t->slots[i];
		if (t->slots[i].start == 0)
			return NULL;
	}
}

static int grow(struct code_table *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 256;
	struct code_entry *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		struct code_entry *e = &t->slots[i];
		size_t j;

		if (!e->start)
			continue;
		for (j = slot_of(e->start, ncap); ns[j].start; j = (j + 1) & (ncap - 1))
			;
		ns[j] = *e;
	}
	free(t->slots);
	t->slots = ns;
	t->cap = ncap;
	return 0;
}

int codetable_put(struct code_table *t, const struct code_entry *e)
{
	struct code_entry *slot;
	char *name;

	if (!e->start)
		return -EINVAL;
	name = strdup(e->name ? e->name : "");
	if (!name)
		return -ENOMEM;
	slot = codetable_find(t, e->start);
	if (!slot) {
		size_t i;

		if ((t->count + 1) * 2 > t->cap && grow(t) < 0) {
			free(name);
			return -ENOMEM;
		}
		for (i = slot_of(e->start, t->cap); t->slots[i].start; i = (i + 1) & (t->cap - 1))
			;
		slot = &t->slots[i];
		t->count++;
	} else {
		free(slot->name);
		free(slot->rec);
	}
	*slot = *e;
	slot->name = name;
	return 0;
}

int codetable_remove(struct code_table *t, uint64_t start)
{
	struct code_entry *e = codetable_find(t, start);
	size_t i, j;

	if (!e)
		return -ENOENT;
	free(e->name);
	free(e->rec);
	i = (size_t)(e - t->slots);
	/* Backward shift: pull later members of the probe run into the hole. */
	for (j = (i + 1) & (t->cap - 1); t->slots[j].start; j = (j + 1) & (t->cap - 1)) {
		size_t home = slot_of(t->slots[j].start, t->cap);

		/* Move j to i unless its home lies cyclically in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
			t->slots[i] = t->slots[j];
			i = j;
		}
	}
	memset(&t->slots[i], 0, sizeof(t->slots[i]));
	t->count--;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct code_entry *x = *(const struct code_entry *const *)a;
	const struct code_entry *y = *(const struct code_entry *const *)b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int codetable_add_rec(struct code_entry *e, const void *p, size_t n)
{
	unsigned char *r;

	if (n > UINT32_MAX - e->rec_len)
		return -ENOMEM;
	r = realloc(e->rec, e->rec_len + n);
	if (!r)
		return -ENOMEM;
	memcpy(r + e->rec_len, p, n);
	e->rec = r;
	e->rec_len += (uint32_t)n;
	return 0;
}

static int by_id(const void *a, const void *b)
{
	const struct code_entry *x = *(const struct code_entry *const *)a;
	const struct code_entry *y = *(const struct code_entry *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static const struct code_entry **collect(const struct code_table *t, size_t *n,
					 int (*cmp)(const void *, const void *))
{
	const struct code_entry **v;
	size_t k = 0;

	*n = 0;
	if (!t->count)
		return NULL;
	v = malloc(t->count * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].start)
			v[k++] = &t->slots[i];
	qsort(v, k, sizeof(*v), cmp);
	*n = k;
	return v;
}

const struct code_entry **codetable_sorted(const struct code_table *t, size_t *n)
{
	return collect(t, n, by_start);
}

const struct code_entry **codetable_by_id(const struct code_table *t, size_t *n)
{
	return collect(t, n, by_id);
}
