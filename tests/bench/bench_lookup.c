/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_lookup.c - lookups/s of attach/lookup's index, each path against the
 * one it replaced, on the same symbols and the same queries in the same run;
 * plus the time to load a journal of that many entries.
 *
 *   bench_lookup [SYMBOLS] [QUERIES]      defaults 100000, 10000
 *
 * Paths: a linear scan over a table of ranges (what an agent without an
 * index does: the floor); the index before the radix, rebuilt here from the
 * same segments in its own layout (a binary search over a dense array of
 * starts, then the end and the entry from arrays of their own: "binary
 * search"); the radix index (lk_seg_find); lookup_find (internal API, the
 * whole answer); and jsym_lookup_resolve (the public API a profiler links,
 * frames filled).  An answer is a name, not a segment number: the two
 * searches are timed up to the name of the entry they found, as a lookup
 * through them had to be.
 *
 * The machine is shared: the indexed paths run in interleaved rounds, each
 * timed on this thread's CPU clock, and the median round of each is
 * reported, so a burst of load elsewhere moves every path alike.  Prints
 * figures and ratios only; never judges them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "journal.h"
#include "jsym/lookup.h"
#include "lookup_lib.h"
#include "lookup_int.h"

/* A plain table entry and its search: the floor every index is compared with. */
struct table_sym {
	const void *code_start, *code_end;
	char *method_name;
};

static const struct table_sym *table_lookup(const struct table_sym *t, size_t n,
					     const void *addr)
{
	for (size_t i = 0; i < n; i++)
		if (addr >= t[i].code_start && addr < t[i].code_end)
			return &t[i];
	return NULL;
}

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static double cpu_s(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Write n LOADs to a fresh journal; the path is returned in path (unlinked by the caller). */
static int write_journal(char *path, const struct table_sym *t, size_t n)
{
	struct journal_writer w;
	int fd = mkstemp(path), rc;

	if (fd < 0)
		return -errno;
	if ((rc = journal_open(&w, fd, (uint32_t)getpid(), 0)) < 0)
		return rc;
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct journal_method m = {
			.code_start = (uint64_t)(uintptr_t)t[i].code_start,
			.code_size = (uint64_t)((const char *)t[i].code_end -
						(const char *)t[i].code_start),
			.class_name = "bench.Busy",
			.method_name = t[i].method_name,
			.signature = "(I)J",
			.display = t[i].method_name,
		};

		rc = journal_append_load(&w, 1, &m, NULL);
		if (rc == 0 && i % 1024 == 0)
			rc = journal_flush(&w);
	}
	if (rc == 0)
		rc = journal_close(&w);
	return rc;
}

/* Average cost of (10 new LOADs past the end, 5 UNLOADs of old ones, 1 lookup). */
static double batch_ms(struct lookup *lk, uint64_t end)
{
	struct lookup_hit hit;
	uint64_t id = 1u << 30, gone = 1;
	double t0 = now_s();
	int rounds = 200;

	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < 10; k++, end += 0x100) {
			struct lookup_sym s = { .kind = LOOKUP_LOAD, .id = id++, .start = end,
						.size = 0x100, .name = { "new", 3 } };

			lookup_add(lk, &s);
		}
		for (int k = 0; k < 5; k++)
			lookup_remove(lk, gone++);
		lookup_find(lk, end - 1, &hit);
	}
	return (now_s() - t0) * 1e3 / rounds;
}

/* The index before the radix, in its layout: segment starts, ends and
 * entries in three arrays, searched by a binary search over all starts. */
struct old_index {
	uint64_t *start, *end;
	uint32_t *ent;
	size_t n;
};

static int old_index_build(struct old_index *o, const struct lookup *lk)
{
	o->n = lk->n_seg;
	o->start = calloc(o->n + 1, sizeof(*o->start));
	o->end = calloc(o->n + 1, sizeof(*o->end));
	o->ent = calloc(o->n + 1, sizeof(*o->ent));
	if (!o->start || !o->end || !o->ent)
		return -ENOMEM;
	for (size_t i = 0; i < o->n; i++) {
		o->start[i] = lk->seg[i].start;
		o->end[i] = lk->seg[i].end;
		o->ent[i] = lk->seg[i].ent;
	}
	return 0;
}

static void old_index_free(struct old_index *o)
{
	free(o->start);
	free(o->end);
	free(o->ent);
}

/* Segment of addr in the old index, or -1. */
static long old_find(const struct old_index *o, uint64_t addr)
{
	size_t lo = 0, hi = o->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->start[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 || addr >= o->end[lo - 1] ? -1 : (long)(lo - 1);
}

/* The paths timed in rounds, each doing the same queries. */
enum path { P_BSEARCH, P_RADIX, P_FIND, P_PUBLIC, N_PATHS };

static const char *const path_name[N_PATHS] = {
	[P_BSEARCH] = "binary search + entry (the index before the radix)",
	[P_RADIX] = "radix index + entry (lk_seg_find)",
	[P_FIND] = "lookup_find (internal API, whole answer)",
	[P_PUBLIC] = "jsym_lookup_resolve (public API, frames filled)",
};

struct bench {
	struct old_index old;
	struct lookup *lk;
	jsym_lookup *pub;
	const uint64_t *addrs;
	size_t q;
};

/* The name of entry ent as a number (0 for none, ent < 0): what a search
 * answers.  Not read, as lookup_find does not read it. */
static long ent_name(const struct lookup *lk, long ent)
{
	const struct lk_ent *e;

	if (ent < 0)
		return 0;
	e = &lk->ents[ent];
	return (long)(intptr_t)(e->strs + e->o_name);
}

/* One pass of path p over every query; the sum keeps the work from being optimised away. */
static long one_pass(const struct bench *b, enum path p)
{
	struct jsym_frame frames[8];
	struct lookup_hit hit;
	long acc = 0, seg;

	for (size_t i = 0; i < b->q; i++) {
		switch (p) {
		case P_BSEARCH:
			seg = old_find(&b->old, b->addrs[i]);
			acc += ent_name(b->lk, seg < 0 ? -1 : (long)b->old.ent[seg]);
			break;
		case P_RADIX:
			seg = lk_seg_find(b->lk, b->addrs[i]);
			acc += ent_name(b->lk, seg < 0 ? -1 : (long)b->lk->seg[seg].ent);
			break;
		case P_FIND:
			acc += lookup_find(b->lk, b->addrs[i], &hit);
			break;
		default:
			acc += jsym_lookup_resolve(b->pub, b->addrs[i], frames, 8);
			break;
		}
	}
	return acc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#define ROUNDS 41

/* Median lookups/s of each path over ROUNDS interleaved rounds, into rate[]. */
static void rates(const struct bench *b, double rate[N_PATHS])
{
	static double r[N_PATHS][ROUNDS];
	volatile long sink = 0;

	for (int k = 0; k < ROUNDS; k++)
		for (int p = 0; p < N_PATHS; p++) {
			double t0 = cpu_s(), dt;
			int passes = 0;

			do {
				sink += one_pass(b, (enum path)p);
				passes++;
			} while ((dt = cpu_s() - t0) < 0.005);
			r[p][k] = (double)b->q * passes / dt;
		}
	for (int p = 0; p < N_PATHS; p++) {
		qsort(r[p], ROUNDS, sizeof(r[p][0]), cmp_double);
		rate[p] = r[p][ROUNDS / 2];
	}
	(void)sink;
}

/* Queries where the linear scan, the two searches, lookup_find and the public API disagree. */
static unsigned long long mismatches(const struct bench *b, const struct table_sym *t, size_t n,
				     uint64_t *inside)
{
	struct jsym_frame frames[8];
	struct lookup_hit hit;
	unsigned long long bad = 0;

	*inside = 0;
	for (size_t i = 0; i < b->q; i++) {
		const struct table_sym *s = table_lookup(t, n, (const void *)(uintptr_t)b->addrs[i]);
		int found = lookup_find(b->lk, b->addrs[i], &hit);
		int got_n = jsym_lookup_resolve(b->pub, b->addrs[i], frames, 8);

		*inside += s != NULL;
		if ((s != NULL) != (found == 1) || (s && strcmp(s->method_name, hit.sym.name)))
			bad++;
		if (got_n != found || (got_n && strcmp(frames[0].name, hit.sym.name)))
			bad++;
		if (old_find(&b->old, b->addrs[i]) != lk_seg_find(b->lk, b->addrs[i]))
			bad++;
	}
	return bad;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000;
	size_t q = argc > 2 ? strtoul(argv[2], NULL, 0) : 10000;
	struct table_sym *t = calloc(n, sizeof(*t));
	uint64_t *addrs = calloc(q, sizeof(*addrs));
	char path[] = "/tmp/jsym-bench-XXXXXX";
	uint64_t a = 0x7f0000000000ULL, inside;
	volatile uint64_t lin_found = 0; /* keeps the scan from being optimised away */
	unsigned long long mismatch;
	struct bench b = { .addrs = addrs, .q = q };
	struct lookup_hit hit;
	double t0, load_s, lin_s, rate[N_PATHS], lin;
	struct err_text err = { "" };
	long got;

	if (!t || !addrs || n == 0)
		return 2;
	for (size_t i = 0; i < n; i++) {
		a += rnd() % 256;                      /* gap, sometimes none */
		t[i].code_start = (const void *)(uintptr_t)a;
		a += 64 + rnd() % 4032;
		t[i].code_end = (const void *)(uintptr_t)a;
		if (asprintf(&t[i].method_name, "long bench.Busy.m%zu(int)", i) < 0)
			return 2;
	}
	for (size_t i = 0; i < q; i++)
		addrs[i] = 0x7f0000000000ULL + rnd() % (a - 0x7f0000000000ULL + 4096);

	if (write_journal(path, t, n) < 0) {
		fprintf(stderr, "bench_lookup: cannot write %s: %m\n", path);
		return 2;
	}
	t0 = now_s();
	b.lk = lookup_new();
	lookup_follow_journal(b.lk, open(path, O_RDONLY | O_CLOEXEC));
	got = lookup_refresh(b.lk, &err);
	lookup_find(b.lk, 0, &hit); /* includes the index build */
	load_s = now_s() - t0;
	if (jsym_lookup_open_files(&b.pub, path, NULL) < 0) {
		fprintf(stderr, "bench_lookup: jsym_lookup_open_files %s failed\n", path);
		return 2;
	}
	unlink(path);
	if (got != (long)n) {
		fprintf(stderr, "bench_lookup: journal gave %ld records, wanted %zu: %s\n", got, n, err.msg);
		return 2;
	}

	t0 = cpu_s();
	for (size_t i = 0; i < q; i++)
		lin_found += table_lookup(t, n, (const void *)(uintptr_t)addrs[i]) != NULL;
	lin_s = cpu_s() - t0;
	lin = (double)q / lin_s;
	if (old_index_build(&b.old, b.lk) < 0)
		return 2;
	mismatch = mismatches(&b, t, n, &inside);
	rates(&b, rate);

	printf("symbols %zu, queries %zu (%.0f%% inside a symbol), answers differing: %llu\n", n, q,
	       100.0 * (double)inside / (double)q, mismatch);
	printf("linear scan over the table: %.0f lookups/s\n", lin);
	printf("medians of %d interleaved rounds (CPU time of this thread):\n", ROUNDS);
	for (int p = 0; p < N_PATHS; p++)
		printf("  %-48s %10.0f lookups/s, %6.2fx the binary search, %5.0fx linear\n",
		       path_name[p], rate[p], rate[p] / rate[P_BSEARCH], rate[p] / lin);
	printf("journal load + index build, %zu entries: %.1f ms\n", n, load_s * 1e3);
	printf("batch of 10 loads + 5 unloads, then a lookup: %.2f ms\n", batch_ms(b.lk, a + 0x1000));
	old_index_free(&b.old);
	lookup_free(b.lk);
	jsym_lookup_close(b.pub);
	for (size_t i = 0; i < n; i++)
		free(t[i].method_name);
	free(t);
	free(addrs);
	return mismatch ? 1 : 0;
}
