/* SPDX-License-Identifier: Apache-2.0 */
/*
 * unfold.c - the inline chains of a compiled method (unfold.h).
 */
#include "unfold.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jvmticmlr.h>

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t nc = *cap ? *cap : 64;
	void *np;

	if (need <= *cap)
		return 0;
	while (nc < need)
		nc *= 2;
	np = realloc(*p, (size_t)nc * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = nc;
	return 0;
}

/* A slot of the methods' hashtab: jmethodID -> index in methods[]. */
struct method_slot {
	uint64_t key;    /* the jmethodID */
	uint32_t index;
};

/* Index of m in u->methods, added if new.  -ENOMEM, or -E2BIG past the cap. */
static int method_index(struct unfold_info *u, jmethodID m)
{
	uint64_t key = (uint64_t)(uintptr_t)m;
	struct method_slot *s = hashtab_find(&u->seen, sizeof(*s), key);

	if (s)
		return (int)s->index;
	if (!key)   /* no slot for a NULL jmethodID: look it up in the list */
		for (uint32_t i = 0; i < u->n_methods; i++)
			if (!u->methods[i])
				return (int)i;
	if (u->n_methods >= UNFOLD_MAX_METHODS)
		return -E2BIG;
	if (grow((void **)&u->methods, &u->cap_methods, u->n_methods + 1, sizeof(*u->methods)) < 0)
		return -ENOMEM;
	if (key && !(s = hashtab_insert(&u->seen, sizeof(*s), key)))
		return -ENOMEM;
	if (s)
		s->index = u->n_methods;
	u->methods[u->n_methods] = m;
	return (int)u->n_methods++;
}

/* Does the chain just appended at frames[first..] equal the previous range's? */
static int same_as_last(const struct unfold_info *u, uint32_t first, uint16_t depth)
{
	const struct unfold_range *p;

	if (!u->n_ranges)
		return 0;
	p = &u->ranges[u->n_ranges - 1];
	return p->depth == depth &&
	       memcmp(&u->frames[p->first], &u->frames[first], depth * sizeof(*u->frames)) == 0;
}

/* Append the chain of one descriptor for [off, off+size).  0, -ENOMEM, -E2BIG. */
static int add_pc(struct unfold_info *u, jmethodID root, const PCStackInfo *pc, uint32_t off,
		  uint32_t size)
{
	uint16_t depth = 0;
	uint32_t first = u->n_frames;
	int n = pc->numstackframes < UNFOLD_MAX_DEPTH ? pc->numstackframes : UNFOLD_MAX_DEPTH;
	int rc;

	if (grow((void **)&u->frames, &u->cap_frames, first + (uint32_t)n + 1,
		 sizeof(*u->frames)) < 0)
		return -ENOMEM;
	/* outermost first; a chain that does not end in the compiled method
	 * (never seen, but the data is not ours) gets it as its root */
	if (pc->methods[pc->numstackframes - 1] != root)
		u->frames[first + depth++] = (struct unfold_frame){ 0, UNFOLD_NO_BCI };
	for (int i = pc->numstackframes - 1; i >= 0 && depth < UNFOLD_MAX_DEPTH; i--) {
		jint bci = pc->bcis ? pc->bcis[i] : -1;

		if ((rc = method_index(u, pc->methods[i])) < 0)
			return rc;
		u->frames[first + depth++] = (struct unfold_frame){
			(uint16_t)rc, bci >= 0 && bci < UNFOLD_NO_BCI ? (uint16_t)bci : UNFOLD_NO_BCI
		};
	}
	if (same_as_last(u, first, depth) &&
	    u->ranges[u->n_ranges - 1].off + u->ranges[u->n_ranges - 1].size == off) {
		u->ranges[u->n_ranges - 1].size += size;
		return 0; /* the frames appended above are dropped (n_frames unchanged) */
	}
	if (grow((void **)&u->ranges, &u->cap_ranges, u->n_ranges + 1, sizeof(*u->ranges)) < 0)
		return -ENOMEM;
	u->ranges[u->n_ranges++] = (struct unfold_range){ off, size, first, depth };
	u->n_frames += depth;
	return 0;
}

int unfold_chains(jmethodID root, uint64_t code_start, uint64_t code_size,
		  const void *compile_info, struct unfold_info *u)
{
	const jvmtiCompiledMethodLoadRecordHeader *h;
	uint64_t prev_end = 0; /* offsets up to here are taken */
	int rc;

	u->n_ranges = u->n_frames = u->n_methods = 0;
	hashtab_clear(&u->seen, sizeof(struct method_slot));
	if ((rc = method_index(u, root)) < 0)
		return rc;
	for (h = compile_info; h; h = h->next) {
		const jvmtiCompiledMethodLoadInlineRecord *r;

		if (h->kind != JVMTI_CMLR_INLINE_INFO)
			continue;
		r = (const jvmtiCompiledMethodLoadInlineRecord *)h;
		for (jint i = 0; i < r->numpcs && r->pcinfo; i++) {
			const PCStackInfo *pc = &r->pcinfo[i];
			uint64_t at = (uint64_t)(uintptr_t)pc->pc, end;

			if (pc->numstackframes < 1 || !pc->methods || at < code_start ||
			    at >= code_start + code_size)
				continue;
			/* this descriptor owns (previous pc, pc]: [prev_end, pc + 1) */
			end = at - code_start + 1;
			if (end <= prev_end)
				continue; /* out of order or a repeat: the earlier one keeps it */
			rc = add_pc(u, root, pc, (uint32_t)prev_end, (uint32_t)(end - prev_end));
			if (rc < 0)
				return rc;
			prev_end = end;
		}
	}
	return (int)u->n_ranges;
}

void unfold_free(struct unfold_info *u)
{
	free(u->ranges);
	free(u->frames);
	free(u->methods);
	hashtab_free(&u->seen);
	memset(u, 0, sizeof(*u));
}
