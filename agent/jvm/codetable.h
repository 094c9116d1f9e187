/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codetable.h - the live-code table: code start address -> what lives there.
 *
 * One entry per start address (the JVM never has two live blobs starting at
 * the same address).  The agent keeps it under its buffer lock; the perf
 * map is rewritten from it, so it always reflects loads minus unloads.
 * Memory is bounded by the live code: removed entries free their name.
 */
#ifndef JSYM_CODETABLE_H
#define JSYM_CODETABLE_H

#include <stddef.h>
#include <stdint.h>

#include "hashtab.h"

enum code_kind { CODE_METHOD = 1, CODE_STUB = 2 };

struct code_entry {
	uint64_t start;     /* the key (hashtab.h): 0 = empty slot */
	uint64_t size;
	uint64_t id;        /* journal id of the LOAD/STUB that made it */
	uintptr_t method;   /* jmethodID of a CODE_METHOD, 0 for stubs */
	char *name;         /* display name, owned by the table */
	int kind;
	/* The entry's journal records (its LOAD or STUB, then its FRAMES) as
	 * written, kept when the journal is bounded (journal_max): a journal
	 * started over begins with them.  Owned by the table; NULL = none. */
	unsigned char *rec;
	uint32_t rec_len;
};

/* The entries live in the slots of a hashtab (hashtab.h). */
struct code_table {
	struct hashtab h;
};

/* An empty table ({0} is also a valid empty table). */
void codetable_init(struct code_table *t);
void codetable_free(struct code_table *t);

/* Entries in the table. */
size_t codetable_count(const struct code_table *t);

/* Every entry, in slot order: the first at or after slot *i, *i moved past
 * it; NULL at the end.  for (size_t i = 0; (e = codetable_next(t, &i));) */
struct code_entry *codetable_next(const struct code_table *t, size_t *i);

/* The entry starting at `start`, or NULL.  Valid until the next change. */
struct code_entry *codetable_find(struct code_table *t, uint64_t start);

/* Insert or replace the entry at e->start (start != 0); the name is copied,
 * e->rec (malloc'd, may be NULL) is taken over by the table on success only.
 * 0, -EINVAL or -ENOMEM (table unchanged). */
int codetable_put(struct code_table *t, const struct code_entry *e);

/* Append n bytes to the records kept for entry e.  0 or -ENOMEM. */
int codetable_add_rec(struct code_entry *e, const void *p, size_t n);

/* Remove the entry at `start`.  0 or -ENOENT. */
int codetable_remove(struct code_table *t, uint64_t start);

/* Remove everything (keeps the slot memory). */
void codetable_clear(struct code_table *t);

/* Pointers to all entries, sorted by start, in a malloc'd array of
 * t->count elements (caller frees the array only).  NULL if empty or on
 * allocation failure (*n = 0). */
const struct code_entry **codetable_sorted(const struct code_table *t, size_t *n);

/* Pointers to all entries sorted by id (ascending), like codetable_sorted. */
const struct code_entry **codetable_by_id(const struct code_table *t, size_t *n);

#endif
