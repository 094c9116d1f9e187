/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codetable.c - the live-code table (codetable.h): entries in the slots of
 * a hashtab keyed by code start address; the table owns their names and
 * kept records.
 */
#include "codetable.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SZ sizeof(struct code_entry)

void codetable_init(struct code_table *t)
{
	memset(t, 0, sizeof(*t));
}

void codetable_free(struct code_table *t)
{
	codetable_clear(t);
	hashtab_free(&t->h);
}

void codetable_clear(struct code_table *t)
{
	struct code_entry *e;

	for (size_t i = 0; (e = codetable_next(t, &i));) {
		free(e->name);
		free(e->rec);
	}
	hashtab_clear(&t->h, SZ);
}

size_t codetable_count(const struct code_table *t)
{
	return t->h.count;
}

struct code_entry *codetable_next(const struct code_table *t, size_t *i)
{
	struct code_entry *e;

	for (; *i < t->h.cap; (*i)++)
		if ((e = hashtab_at(&t->h, SZ, *i))) {
			(*i)++;
			return e;
		}
	return NULL;
}

struct code_entry *codetable_find(struct code_table *t, uint64_t start)
{
	return hashtab_find(&t->h, SZ, start);
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
		slot = hashtab_insert(&t->h, SZ, e->start);
		if (!slot) {
			free(name);
			return -ENOMEM;
		}
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

	if (!e)
		return -ENOENT;
	free(e->name);
	free(e->rec);
	hashtab_remove(&t->h, SZ, e);
	return 0;
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

static int by_start(const void *a, const void *b)
{
	const struct code_entry *x = *(const struct code_entry *const *)a;
	const struct code_entry *y = *(const struct code_entry *const *)b;

	return x->start < y->start ? -1 : x->start > y->start;
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
	struct code_entry *e;
	size_t k = 0;

	*n = 0;
	if (!t->h.count)
		return NULL;
	v = malloc(t->h.count * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; (e = codetable_next(t, &i));)
		v[k++] = e;
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
