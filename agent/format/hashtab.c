/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hashtab.c - open addressing, linear probing, backward-shift deletion
 * (hashtab.h).
 */
#include "hashtab.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_CAP 256

/* Multiplicative (Fibonacci) hashing: code addresses and jmethodIDs are
 * aligned and journal ids consecutive, so the low bits alone would pile up. */
static size_t home(uint64_t key, size_t cap)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17) & (cap - 1);
}

static unsigned char *slot(const struct hashtab *t, size_t size, size_t i)
{
	return (unsigned char *)t->slots + i * size;
}

static uint64_t key_at(const struct hashtab *t, size_t size, size_t i)
{
	uint64_t k;

	memcpy(&k, slot(t, size, i), sizeof(k));
	return k;
}

void *hashtab_find(const struct hashtab *t, size_t size, uint64_t key)
{
	if (!t->cap || !key)
		return NULL;
	for (size_t i = home(key, t->cap);; i = (i + 1) & (t->cap - 1)) {
		uint64_t k = key_at(t, size, i);

		if (k == key)
			return slot(t, size, i);
		if (k == 0)
			return NULL;
	}
}

/* The first empty slot of key's probe run (there is one: load <= 1/2). */
static size_t free_slot(const struct hashtab *t, size_t size, uint64_t key)
{
	size_t i;

	for (i = home(key, t->cap); key_at(t, size, i); i = (i + 1) & (t->cap - 1))
		;
	return i;
}

/* Move the keys into a table of cap slots (a power of two that holds them). */
static int grow_to(struct hashtab *t, size_t size, size_t cap)
{
	struct hashtab n = { NULL, cap, t->count };

	n.slots = calloc(n.cap, size);
	if (!n.slots)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		uint64_t k = key_at(t, size, i);

		if (k)
			memcpy(slot(&n, size, free_slot(&n, size, k)), slot(t, size, i), size);
	}
	free(t->slots);
	*t = n;
	return 0;
}

void *hashtab_insert(struct hashtab *t, size_t size, uint64_t key)
{
	unsigned char *s;

	if (!key || ((t->count + 1) * 2 > t->cap && grow_to(t, size, t->cap ? t->cap * 2 : FIRST_CAP) < 0))
		return NULL;
	s = slot(t, size, free_slot(t, size, key));
	memset(s, 0, size);
	memcpy(s, &key, sizeof(key));
	t->count++;
	return s;
}

int hashtab_reserve(struct hashtab *t, size_t size, size_t n)
{
	size_t cap = t->cap ? t->cap : FIRST_CAP;

	if (n > SIZE_MAX / 4)
		return -ENOMEM;
	while (n * 2 > cap)
		cap *= 2;
	return cap == t->cap ? 0 : grow_to(t, size, cap) < 0 ? -ENOMEM : 0;
}

void hashtab_remove(struct hashtab *t, size_t size, void *at)
{
	size_t i = (size_t)((unsigned char *)at - (unsigned char *)t->slots) / size, j;
	uint64_t k;

	/* Backward shift: pull later members of the probe run into the hole. */
	for (j = (i + 1) & (t->cap - 1); (k = key_at(t, size, j)); j = (j + 1) & (t->cap - 1)) {
		size_t h = home(k, t->cap);

		/* Move j to i unless its home lies cyclically in (i, j]. */
		if ((j > i && (h <= i || h > j)) || (j < i && (h <= i && h > j))) {
			memcpy(slot(t, size, i), slot(t, size, j), size);
			i = j;
		}
	}
	memset(slot(t, size, i), 0, size);
	t->count--;
}

void *hashtab_at(const struct hashtab *t, size_t size, size_t i)
{
	return i < t->cap && key_at(t, size, i) ? slot(t, size, i) : NULL;
}

void hashtab_clear(struct hashtab *t, size_t size)
{
	if (t->slots)
		memset(t->slots, 0, t->cap * size);
	t->count = 0;
}

void hashtab_free(struct hashtab *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
