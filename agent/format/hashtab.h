/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hashtab.h - jsym's one hash table, the agent's and the lookup
 * library's: open addressing with linear probing over slots of a fixed
 * size, each beginning with its nonzero uint64_t key (0 = an empty slot),
 * power-of-two capacity (256 first), load at most 1/2, removal by backward
 * shift (no tombstones).  Used by the agent's live-code table
 * (agent/jvm/codetable.c, key = code start, the whole entry in the slot)
 * and the methods of one compile (agent/jvm/unfold.c, key = jmethodID),
 * and by attach/lookup's index (lookup_hash.c: id -> entry and start ->
 * entry, where a key of 0 is kept beside the table).
 *
 * The slot size is the caller's (`size`, the same at every call on a
 * table).  {0} is an empty table.  Only hashtab_insert (when it grows)
 * and hashtab_reserve allocate; a bound on the number of keys is the
 * caller's (unfold.c's UNFOLD_MAX_METHODS), as is a lock.  Slot pointers stay valid until the
 * next insert, reserve or remove.
 */
#ifndef JSYM_HASHTAB_H
#define JSYM_HASHTAB_H

#include <stddef.h>
#include <stdint.h>

struct hashtab {
	void *slots;      /* cap slots of the caller's size */
	size_t cap;       /* power of two, or 0 */
	size_t count;     /* slots in use */
};

/* The slot of `key`, or NULL (also for key 0). */
void *hashtab_find(const struct hashtab *t, size_t size, uint64_t key);

/* A slot for `key`, which must be nonzero and not in the table: zeroed
 * but for its key.  NULL when growing failed (-ENOMEM; table unchanged). */
void *hashtab_insert(struct hashtab *t, size_t size, uint64_t key);

/* Room for n keys in all: after 0, inserts up to n keys in all never
 * allocate (so never fail for a nonzero key not yet there).  0 or -ENOMEM
 * (table unchanged). */
int hashtab_reserve(struct hashtab *t, size_t size, size_t n);

/* Empty `slot` (from hashtab_find), pulling later slots of its probe run
 * back.  Whatever the slot owned is the caller's to free first. */
void hashtab_remove(struct hashtab *t, size_t size, void *slot);

/* Slot i (0..cap-1) when in use, else NULL: to walk every slot. */
void *hashtab_at(const struct hashtab *t, size_t size, size_t i);

/* Empty every slot, keeping the memory. */
void hashtab_clear(struct hashtab *t, size_t size);

/* Free the slots; the table is {0} again. */
void hashtab_free(struct hashtab *t);

#endif
