/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_lookup.c - lookups/s of agent/lookup/lookup.c against a linear scan like the
 * seed agent's lookup_symbol(), on the same symbols and the same queries, in
 * the same run; plus the time to load a journal of that many entries.
 *
 *   bench_lookup [SYMBOLS] [QUERIES]      defaults 100000, 10000
 *
 * Rates, all on the same symbols and queries: the linear scan; the binary
 * search over the segments that was the index before the radix (old index);
 * lookup_find (internal API, radix); jsym_lookup_resolve (the public API a
 * profiler links, radix, frames filled).  Prints figures and ratios only;
 * never judges them.
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
#include "lookup.h"
#include "lookup_int.h"

/* The seed agent's table entry and search. */
struct seed_symbol {
	const void *code_start, *code_end;
	char *method_name;
};

static const struct seed_symbol *seed_lookup(const struct seed_symbol *t, size_t n,
					     const void *addr)
{
	for (size_t i = 0; i < n; i++)
		if (addr >= t[i].code_start && addr < t[i].code_end)
			return &t[i];
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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
static int write_journal(char *path, const struct seed_symbol *t, size_t n)
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

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000;
	size_t q = argc > 2 ? strtoul(argv[2], NULL, 0) : 10000;
	struct seed_symbol *t = calloc(n, sizeof(*t));
	uint64_t *addrs = calloc(q, sizeof(*addrs));
	char path[] = "/tmp/jsym-bench-XXXXXX";
	uint64_t a = 0x7f0000000000ULL, hits_lin = 0, hits_idx = 0, mismatch = 0;
	struct lookup *lk;
	jsym_lookup *pub;
	struct jsym_frame frames[8];
	struct lookup_hit hit;
	double old_s, pub_s;
	int reps_old = 0, reps_pub = 0;
	long acc = 0;
	double t0, load_s, lin_s, idx_s;
	char err[256] = "";
	long got;
	int reps = 0;

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
	lk = lookup_new();
	lookup_follow_journal(lk, open(path, O_RDONLY | O_CLOEXEC));
	got = lookup_refresh(lk, err, sizeof(err));
	lookup_find(lk, 0, &hit); /* includes the index build */
	load_s = now_s() - t0;
	if (jsym_lookup_open_files(&pub, path, NULL) < 0) {
		fprintf(stderr, "bench_lookup: jsym_lookup_open_files %s failed\n", path);
		return 2;
	}
	unlink(path);
	if (got != (long)n) {
		fprintf(stderr, "bench_lookup: journal gave %ld records, wanted %zu: %s\n", got, n, err);
		return 2;
	}

	t0 = now_s();
	for (size_t i = 0; i < q; i++) {
		const struct seed_symbol *s = seed_lookup(t, n, (const void *)(uintptr_t)addrs[i]);
		int found = lookup_find(lk, addrs[i], &hit);

		hits_lin += s != NULL;
		if ((s != NULL) != (found == 1) || (s && strcmp(s->method_name, hit.sym.name)))
			mismatch++;
	}
	lin_s = now_s() - t0; /* includes q index lookups: negligible, see below */

	t0 = now_s();
	do {
		for (size_t i = 0; i < q; i++)
			hits_idx += lookup_find(lk, addrs[i], &hit) == 1;
		reps++;
	} while (now_s() - t0 < 0.3);
	idx_s = now_s() - t0;

	t0 = now_s();
	do {
		for (size_t i = 0; i < q; i++)
			acc += lk_seg_bsearch(lk, addrs[i]);
		reps_old++;
	} while (now_s() - t0 < 0.3);
	old_s = now_s() - t0;

	t0 = now_s();
	do {
		for (size_t i = 0; i < q; i++)
			acc += jsym_lookup_resolve(pub, addrs[i], frames, 8);
		reps_pub++;
	} while (now_s() - t0 < 0.3);
	pub_s = now_s() - t0;
	for (size_t i = 0; i < q; i++) { /* the public API gives the same answers */
		int got_n = jsym_lookup_resolve(pub, addrs[i], frames, 8);

		if (got_n != lookup_find(lk, addrs[i], &hit) || (got_n && strcmp(frames[0].name, hit.sym.name)))
			mismatch++;
	}

	printf("symbols %zu, queries %zu (%.0f%% inside a symbol), answers differing: %llu\n", n, q,
	       100.0 * (double)hits_lin / (double)q, (unsigned long long)mismatch);
	printf("linear scan (seed agent): %.0f lookups/s\n", (double)q / lin_s);
	printf("old index (binary search over segments): %.0f lookups/s\n",
	       (double)q * reps_old / old_s);
	printf("jsym lookup index:        %.0f lookups/s (%d passes)\n",
	       (double)q * reps / idx_s, reps);
	printf("ratio index/linear:       %.0fx\n", ((double)q * reps / idx_s) / ((double)q / lin_s));
	printf("public API jsym_lookup_resolve: %.0f lookups/s, ratio to linear %.0fx, "
	       "to the old index %.2fx\n", (double)q * reps_pub / pub_s,
	       ((double)q * reps_pub / pub_s) / ((double)q / lin_s),
	       ((double)q * reps_pub / pub_s) / ((double)q * reps_old / old_s));
	printf("journal load + index build, %zu entries: %.1f ms\n", n, load_s * 1e3);
	printf("batch of 10 loads + 5 unloads, then a lookup: %.2f ms\n", batch_ms(lk, a + 0x1000));
	lookup_free(lk);
	jsym_lookup_close(pub);
	for (size_t i = 0; i < n; i++)
		free(t[i].method_name);
	free(t);
	free(addrs);
	(void)hits_idx;
	(void)acc;
	return mismatch ? 1 : 0;
}
