/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_lookup.c - the address index: boundaries, reused addresses, "highest
 * id wins", inline chains, following a journal that grows, the caps on
 * what a lookup holds, and a brute-force oracle on randomized
 * load/unload/stub/query sequences.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "journal.h"
#include "lookup_lib.h"
#include "lookup_int.h"

extern Suite *lookup_suite(void); /* listed in the runner by tests/tests.mk */

static struct lookup_text txt(const char *s)
{
	return (struct lookup_text){ s, s ? strlen(s) : 0 };
}

static void add(struct lookup *lk, int kind, uint64_t id, uint64_t start, uint64_t size,
		const char *name)
{
	struct lookup_sym s = {
		.kind = kind, .id = id, .start = start, .size = size,
		.class_name = txt("C"), .method = txt("m"), .signature = txt("()V"),
		.name = txt(name),
	};

	if (lookup_add(lk, &s) != 0)
		ck_abort_msg("lookup_add id %llu failed", (unsigned long long)id);
}

/* Name found at addr, or "??". */
static const char *at(struct lookup *lk, uint64_t addr)
{
	static struct lookup_hit h;
	int rc = lookup_find(lk, addr, &h);

	ck_assert_int_ge(rc, 0);
	return rc ? h.sym.name : "??";
}

START_TEST(boundaries)
{
	struct lookup *lk = lookup_new();
	struct lookup_hit h;

	ck_assert_str_eq(at(lk, 0x1000), "??"); /* empty */
	add(lk, LOOKUP_LOAD, 1, 0x1000, 0x100, "A");
	add(lk, LOOKUP_LOAD, 2, 0x1100, 0x10, "B"); /* adjacent */
	ck_assert_str_eq(at(lk, 0xfff), "??");
	ck_assert_str_eq(at(lk, 0x1000), "A");
	ck_assert_str_eq(at(lk, 0x1080), "A");
	ck_assert_str_eq(at(lk, 0x10ff), "A");
	ck_assert_str_eq(at(lk, 0x1100), "B");
	ck_assert_str_eq(at(lk, 0x110f), "B");
	ck_assert_str_eq(at(lk, 0x1110), "??");
	ck_assert_str_eq(at(lk, UINT64_MAX), "??");
	ck_assert_int_eq(lookup_find(lk, 0x10ff, &h), 1);
	ck_assert_uint_eq(h.offset, 0xff);
	ck_assert_uint_eq(h.sym.start, 0x1000);
	ck_assert_uint_eq(h.sym.size, 0x100);
	ck_assert_str_eq(h.sym.class_name, "C");
	ck_assert_str_eq(h.sym.method, "m");
	ck_assert_str_eq(h.sym.signature, "()V");
	ck_assert_int_eq(h.sym.kind, LOOKUP_LOAD);
	/* empty and wrapping ranges are refused */
	struct lookup_sym bad = { .kind = LOOKUP_LOAD, .id = 9, .start = 5, .size = 0 };
	ck_assert_int_eq(lookup_add(lk, &bad), -EINVAL);
	bad.start = UINT64_MAX - 1;
	bad.size = 2;
	ck_assert_int_eq(lookup_add(lk, &bad), -EINVAL);
	bad.size = 1;
	ck_assert_int_eq(lookup_add(lk, &bad), 0);
	ck_assert_int_eq(lookup_find(lk, UINT64_MAX - 1, &h), 1);
	lookup_free(lk);
}
END_TEST

/* LOAD A@X, UNLOAD A, LOAD B@X, late UNLOAD A again: B stays. */
START_TEST(reused_address)
{
	struct lookup *lk = lookup_new();
	struct lookup_stats st;

	add(lk, LOOKUP_LOAD, 1, 0x4000, 0x80, "A");
	ck_assert_str_eq(at(lk, 0x4010), "A");
	ck_assert_int_eq(lookup_remove(lk, 1), 0);
	ck_assert_str_eq(at(lk, 0x4010), "??");
	add(lk, LOOKUP_LOAD, 2, 0x4000, 0x40, "B");
	ck_assert_int_eq(lookup_remove(lk, 1), -ENOENT);
	ck_assert_str_eq(at(lk, 0x4010), "B");
	ck_assert_str_eq(at(lk, 0x4050), "??");
	/* the UNLOAD of the old method arrives after the new LOAD at its start:
	 * the old one ended when the new one came, tail included */
	add(lk, LOOKUP_LOAD, 3, 0x5000, 0x80, "C");
	add(lk, LOOKUP_LOAD, 4, 0x5000, 0x40, "D");
	ck_assert_str_eq(at(lk, 0x5000), "D");
	ck_assert_str_eq(at(lk, 0x5060), "??");
	ck_assert_int_eq(lookup_remove(lk, 3), -ENOENT);
	ck_assert_str_eq(at(lk, 0x5000), "D");
	ck_assert_int_eq(lookup_remove(lk, 4), 0);
	ck_assert_str_eq(at(lk, 0x5000), "??");
	/* overlapping elsewhere than the start: byte by byte, the newer wins */
	add(lk, LOOKUP_LOAD, 5, 0x6000, 0x80, "E");
	add(lk, LOOKUP_LOAD, 6, 0x6040, 0x80, "F");
	ck_assert_str_eq(at(lk, 0x603f), "E");
	ck_assert_str_eq(at(lk, 0x6040), "F");
	ck_assert_int_eq(lookup_remove(lk, 5), 0);
	ck_assert_str_eq(at(lk, 0x603f), "??");
	ck_assert_str_eq(at(lk, 0x6040), "F");
	lookup_get_stats(lk, &st);
	ck_assert_uint_eq(st.superseded, 1);
	lookup_free(lk);
}
END_TEST

START_TEST(highest_id_wins)
{
	struct lookup *lk = lookup_new();

	add(lk, LOOKUP_STUB, 5, 0x1000, 0x1000, "big-old");
	add(lk, LOOKUP_LOAD, 7, 0x1400, 0x100, "mid-new");
	add(lk, LOOKUP_STUB, 6, 0x1300, 0x400, "mid-older");
	ck_assert_str_eq(at(lk, 0x1000), "big-old");
	ck_assert_str_eq(at(lk, 0x1300), "mid-older");
	ck_assert_str_eq(at(lk, 0x1400), "mid-new");
	ck_assert_str_eq(at(lk, 0x14ff), "mid-new");
	ck_assert_str_eq(at(lk, 0x1500), "mid-older");
	ck_assert_str_eq(at(lk, 0x1700), "big-old");
	ck_assert_int_eq(lookup_remove(lk, 7), 0);
	ck_assert_str_eq(at(lk, 0x1400), "mid-older");
	/* same id again replaces */
	add(lk, LOOKUP_STUB, 6, 0x9000, 0x10, "moved");
	ck_assert_str_eq(at(lk, 0x1300), "big-old");
	ck_assert_str_eq(at(lk, 0x9000), "moved");
	lookup_free(lk);
}
END_TEST

START_TEST(inline_chain)
{
	struct lookup *lk = lookup_new();
	struct lookup_sym in = { .kind = LOOKUP_INLINE, .id = 1 };
	struct lookup_hit h;
	struct lookup_stats st;
	struct jr_record orphan = { .type = JF_INLINE, .id = 42, .code_start = 1, .code_size = 1 };

	add(lk, LOOKUP_LOAD, 1, 0x1000, 0x100, "outer()");
	in.start = 0x1010, in.size = 0x70, in.name = txt("mid()"), in.class_name = txt("M");
	ck_assert_int_eq(lookup_add_inline(lk, &in), 0);
	in.start = 0x1020, in.size = 0x20, in.name = txt("inner()");
	ck_assert_int_eq(lookup_add_inline(lk, &in), 0);
	ck_assert_int_eq(lookup_find(lk, 0x1030, &h), 1);
	ck_assert_str_eq(h.sym.name, "outer()");
	ck_assert_uint_eq(h.offset, 0x30);
	ck_assert_uint_eq(h.n_inline, 2);
	ck_assert_str_eq(h.inlined[0].name, "inner()");
	ck_assert_str_eq(h.inlined[1].name, "mid()");
	ck_assert_str_eq(h.inlined[1].class_name, "M");
	ck_assert_int_eq(h.inlined[0].kind, LOOKUP_INLINE);
	ck_assert_int_eq(lookup_find(lk, 0x1070, &h), 1);
	ck_assert_uint_eq(h.n_inline, 1);
	ck_assert_int_eq(lookup_find(lk, 0x1090, &h), 1);
	ck_assert_uint_eq(h.n_inline, 0);
	ck_assert_ptr_null(h.inlined);
	lookup_get_stats(lk, &st);
	ck_assert_uint_eq(st.inlines, 2);
	/* at most LOOKUP_MAX_INLINE per method */
	in.start = 0x1000, in.size = 1, in.name = txt("many()");
	for (int i = 2; i < LOOKUP_MAX_INLINE; i++)
		ck_assert_int_eq(lookup_add_inline(lk, &in), 0);
	ck_assert_int_eq(lookup_add_inline(lk, &in), -EINVAL);
	ck_assert_int_eq(lookup_find(lk, 0x1000, &h), 1);
	ck_assert_uint_eq(h.n_inline, LOOKUP_MAX_INLINE - 2);
	/* inlines end with their parent; unknown parents are counted */
	ck_assert_int_eq(lookup_remove(lk, 1), 0);
	in.id = 1;
	ck_assert_int_eq(lookup_add_inline(lk, &in), -ENOENT);
	ck_assert_int_eq(lookup_apply_record(lk, &orphan), 0);
	lookup_get_stats(lk, &st);
	ck_assert_uint_eq(st.inlines, 0);
	ck_assert_uint_eq(st.orphan_inlines, 1);
	lookup_free(lk);
}
END_TEST

/* ---- oracle ------------------------------------------------------------- */

struct o_ent {
	uint64_t id, start, end;
	int live;
};

static uint64_t rs;

static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static void oracle_check(struct lookup *lk, const struct o_ent *o, size_t n, uint64_t addr)
{
	const struct o_ent *best = NULL;
	struct lookup_hit h;
	char want[32];
	int rc;

	for (size_t i = 0; i < n; i++)
		if (o[i].live && addr >= o[i].start && addr < o[i].end &&
		    (!best || o[i].id > best->id))
			best = &o[i];
	/* plain ifs: Check logs every ck_assert, which would dominate the run */
	rc = lookup_find(lk, addr, &h);
	/* the radix index and a plain binary search over the same segments agree */
	if (lk_seg_find(lk, addr) != lk_seg_bsearch(lk, addr))
		ck_abort_msg("addr %llx: radix segment %ld, binary search %ld",
			     (unsigned long long)addr, lk_seg_find(lk, addr), lk_seg_bsearch(lk, addr));
	if (!best) {
		if (rc != 0)
			ck_abort_msg("addr %llx: got %d/id %llu, want none", (unsigned long long)addr,
				     rc, (unsigned long long)h.sym.id);
		return;
	}
	snprintf(want, sizeof(want), "n%llu", (unsigned long long)best->id);
	if (rc != 1 || h.sym.id != best->id || strcmp(h.sym.name, want) ||
	    h.sym.start != best->start || h.offset != addr - best->start)
		ck_abort_msg("addr %llx: got %d/id %llu, want id %llu", (unsigned long long)addr, rc,
			     (unsigned long long)h.sym.id, (unsigned long long)best->id);
}

/*
 * Where ranges go: `space` bytes after one of these origins.  One origin is
 * the old layout; three far apart (low memory, a code cache, the top of the
 * address space) give the radix index nearly empty buckets and full ones.
 */
static const uint64_t origins[] = { 0x10000, 0x7f0000000000ULL, UINT64_MAX - (1ULL << 22) };
static size_t n_origins = 1;

static uint64_t origin(void)
{
	return n_origins > 1 ? origins[rnd() % n_origins] : origins[0];
}

/* One randomized run: `ops` operations in an address space of `space` bytes. */
static size_t oracle_run(uint64_t seed, size_t ops, uint64_t space)
{
	struct lookup *lk = lookup_new();
	struct o_ent *o = calloc(ops, sizeof(*o));
	size_t n = 0, queries = 0;
	uint64_t next_id = 1;

	rs = seed * 0x9e3779b97f4a7c15ULL + 1;
	for (size_t op = 0; op < ops; op++) {
		unsigned r = (unsigned)(rnd() % 100);

		if (r < 40) { /* LOAD or STUB, sometimes an id out of order */
			char name[32];
			uint64_t id = rnd() % 10 ? next_id++ : rnd() % (next_id + 5) + 1;

			o[n].id = id;
			o[n].start = origin() + rnd() % space;
			o[n].end = o[n].start + 1 + rnd() % (rnd() % 4 ? 64 : space / 4);
			o[n].live = 1;
			for (size_t i = 0; i < n; i++) /* same id or same start: the newer replaces */
				if (o[i].id == id || o[i].start == o[n].start)
					o[i].live = 0;
			snprintf(name, sizeof(name), "n%llu", (unsigned long long)id);
			add(lk, rnd() % 4 ? LOOKUP_LOAD : LOOKUP_STUB, id, o[n].start,
			    o[n].end - o[n].start, name);
			n++;
		} else if (r < 60 && n) { /* UNLOAD by id: live, dead or unknown */
			uint64_t id = rnd() % 8 ? o[rnd() % n].id : next_id + 100;
			int was = 0;

			for (size_t i = 0; i < n; i++)
				if (o[i].live && o[i].id == id) {
					o[i].live = 0;
					was = 1;
				}
			if (lookup_remove(lk, id) != (was ? 0 : -ENOENT))
				ck_abort_msg("lookup_remove(%llu) disagrees", (unsigned long long)id);
		} else { /* query a few addresses, at range boundaries or anywhere */
			for (int k = 0; k < 4; k++, queries++) {
				uint64_t a = origin() + rnd() % (space + 128) - 64;

				if (n && rnd() % 3) {
					const struct o_ent *e = &o[rnd() % n];
					uint64_t pick[4] = { e->start - 1, e->start, e->end - 1, e->end };

					a = pick[rnd() % 4];
				}
				oracle_check(lk, o, n, a);
			}
		}
	}
	for (size_t i = 0; i < n; i++, queries += 2) { /* final sweep over all edges */
		oracle_check(lk, o, n, o[i].start);
		oracle_check(lk, o, n, o[i].end);
	}
	lookup_free(lk);
	free(o);
	return queries;
}

START_TEST(oracle_small_space)
{
	size_t q = 0;

	for (uint64_t seed = 1; seed <= 200; seed++)
		q += oracle_run(seed, 1500, 2048);
	ck_assert_uint_gt(q, 200 * 1000);
}
END_TEST

START_TEST(oracle_sparse_space)
{
	for (uint64_t seed = 1000; seed < 1012; seed++)
		oracle_run(seed, 5000, 1u << 20);
}
END_TEST

START_TEST(oracle_far_clusters)
{
	n_origins = 3;
	for (uint64_t seed = 2000; seed < 2040; seed++)
		oracle_run(seed, 3000, seed % 2 ? 4096 : 1u << 20);
	n_origins = 1;
}
END_TEST

/* Many unloads: dead entries are compacted away and the answers stay right. */
START_TEST(churn_compacts)
{
	struct lookup *lk = lookup_new();
	struct lookup_stats st;

	/* every 64th round the new one lands at the start of a live one instead */
	for (uint64_t id = 1; id <= 20000; id++) {
		int reuse = id > 50 && id % 64 == 0;

		add(lk, LOOKUP_LOAD, id, 0x100000 + (reuse ? id - 25 : id) * 0x100, 0x100, "x");
		if (id > 50 && lookup_remove(lk, id - 50) != (id % 64 == 25 ? -ENOENT : 0))
			ck_abort_msg("remove %llu", (unsigned long long)(id - 50));
	}
	lookup_get_stats(lk, &st);
	ck_assert_uint_eq(st.live, 50);
	ck_assert_uint_eq(st.superseded, 20000 / 64);
	ck_assert_str_eq(at(lk, 0x100000 + 19999 * 0x100), "x");
	ck_assert_str_eq(at(lk, 0x100000 + 19950 * 0x100), "??");
	ck_assert_str_eq(at(lk, 0x100000 + 19943 * 0x100 + 0xff), "x"); /* 19968 lives there */
	lookup_free(lk);
}
END_TEST

/* Id 0 and start 0 are keys like any other (the index's maps keep key 0
 * beside agent/format's hashtab, which reserves 0 for an empty slot),
 * before and after a compaction. */
START_TEST(key_zero)
{
	struct lookup *lk = lookup_new();
	struct lookup_stats st;

	add(lk, LOOKUP_LOAD, 0, 0, 0x10, "Z");
	add(lk, LOOKUP_LOAD, 1, 0x100, 0x10, "A");
	ck_assert_str_eq(at(lk, 0), "Z");
	add(lk, LOOKUP_LOAD, 2, 0, 0x20, "Y"); /* supersedes Z by its start */
	ck_assert_str_eq(at(lk, 0x18), "Y");
	ck_assert_int_eq(lookup_remove(lk, 0), -ENOENT);
	add(lk, LOOKUP_LOAD, 0, 0x200, 0x10, "W");
	ck_assert_str_eq(at(lk, 0x200), "W");
	ck_assert_int_eq(lookup_remove(lk, 0), 0);
	ck_assert_str_eq(at(lk, 0x200), "??");
	add(lk, LOOKUP_LOAD, 0, 0x300, 0x10, "V");
	ck_assert_int_eq(lookup_remove(lk, 1), 0);
	ck_assert_int_eq(lk_compact(lk), 0);
	ck_assert_str_eq(at(lk, 0x300), "V");
	add(lk, LOOKUP_LOAD, 3, 0, 0x8, "X"); /* start 0 still found: Y ends */
	ck_assert_int_eq(lookup_remove(lk, 2), -ENOENT);
	ck_assert_str_eq(at(lk, 0x18), "??");
	ck_assert_int_eq(lookup_remove(lk, 0), 0);
	ck_assert_int_eq(lookup_remove(lk, 0), -ENOENT);
	lookup_get_stats(lk, &st);
	ck_assert_uint_eq(st.superseded, 2);
	ck_assert_uint_eq(st.live, 1);
	lookup_free(lk);
}
END_TEST

/* lookup_refresh follows a journal the writer keeps appending to. */
START_TEST(follow_journal)
{
	struct lookup *lk = lookup_new();
	struct journal_writer w;
	struct journal_method m = {
		.code_start = 0x7000, .code_size = 0x100, .class_name = "Busy",
		.method_name = "a", .signature = "()V", .display = "void Busy.a()",
	};
	struct lookup_stats st;
	struct lookup_hit h;
	struct err_text err;
	int fd = memfd_create("jsym-check", MFD_CLOEXEC);
	uint64_t a_id, b_id;

	ck_assert_int_eq(lookup_refresh(lk, &err), -EBADF);
	ck_assert_int_eq(lookup_follow_journal(lk, dup(fd)), 0);
	ck_assert_int_eq(lookup_refresh(lk, &err), -EAGAIN); /* nothing yet */
	ck_assert_int_eq(journal_open(&w, fd, 99, 0), 0);
	ck_assert_int_eq(journal_append_load(&w, 0, &m, &a_id), 0);
	ck_assert_int_eq(journal_flush(&w), 0);
	ck_assert_int_eq(lookup_refresh(lk, &err), 1);
	ck_assert_ptr_nonnull(lookup_journal_header(lk));
	ck_assert_uint_eq(lookup_journal_header(lk)->pid, 99);
	ck_assert_int_eq(lookup_find(lk, 0x7010, &h), 1);
	ck_assert_str_eq(h.sym.name, "void Busy.a()");
	ck_assert_str_eq(h.sym.class_name, "Busy");
	/* unload a, load b at the same address, then a late duplicate unload of a */
	ck_assert_int_eq(journal_append_unload(&w, 0, a_id, m.code_start), 0);
	m.display = "void Busy.b()";
	ck_assert_int_eq(journal_append_load(&w, 0, &m, &b_id), 0);
	ck_assert_int_eq(journal_append_unload(&w, 0, a_id, m.code_start), 0);
	ck_assert_int_eq(journal_append_stub(&w, 0, 0x9000, 0x40, "Interpreter", NULL), 0);
	ck_assert_int_eq(journal_append_epoch(&w, 0, JF_EPOCH_REFRESH), 0);
	ck_assert_int_eq(journal_flush(&w), 0);
	ck_assert_int_eq(lookup_refresh(lk, &err), 5);
	ck_assert_str_eq(at(lk, 0x7000), "void Busy.b()");
	ck_assert_int_eq(lookup_find(lk, 0x9001, &h), 1);
	ck_assert_int_eq(h.sym.kind, LOOKUP_STUB);
	ck_assert_str_eq(h.sym.name, "Interpreter");
	ck_assert_str_eq(h.sym.class_name, "");
	ck_assert_int_eq(lookup_refresh(lk, &err), 0);
	lookup_get_stats(lk, &st);
	ck_assert_uint_eq(st.records, 6);
	ck_assert_uint_eq(st.orphan_unloads, 1);
	ck_assert_uint_eq(st.live, 2);
	ck_assert_int_eq(journal_close(&w), 0);
	lookup_free(lk);
}
END_TEST

/* A new process with the same pid starts the journal over in place. */
START_TEST(follow_journal_started_over)
{
	struct lookup *lk = lookup_new();
	struct journal_writer w;
	struct journal_method m = {
		.code_start = 0x7000, .code_size = 0x100, .class_name = "Old",
		.method_name = "a", .signature = "()V", .display = "void Old.a()",
	};
	struct lookup_stats st;
	int fd = memfd_create("jsym-check", MFD_CLOEXEC);

	ck_assert_int_eq(lookup_follow_journal(lk, dup(fd)), 0);
	ck_assert_int_eq(journal_open(&w, dup(fd), 1, 100), 0);
	ck_assert_int_eq(journal_append_load(&w, 0, &m, NULL), 0);
	ck_assert_int_eq(journal_close(&w), 0);
	ck_assert_int_eq(lookup_refresh(lk, NULL), 1);
	ck_assert_str_eq(at(lk, 0x7000), "void Old.a()");
	/* the next process: truncate, new header (other start time), more records */
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(journal_open(&w, fd, 1, 200), 0);
	m.display = "void New.b()";
	for (int i = 0; i < 3; i++, m.code_start += 0x1000)
		ck_assert_int_eq(journal_append_load(&w, 0, &m, NULL), 0);
	ck_assert_int_eq(journal_flush(&w), 0);
	ck_assert_int_eq(lookup_refresh(lk, NULL), 3);
	ck_assert_str_eq(at(lk, 0x7000), "void New.b()");
	ck_assert_str_eq(at(lk, 0x9000), "void New.b()");
	lookup_get_stats(lk, &st);
	ck_assert_uint_eq(st.resets, 1);
	ck_assert_uint_eq(st.live, 3);
	ck_assert_int_eq(journal_close(&w), 0);
	lookup_free(lk);
}
END_TEST

/* A time limit leaves later records unread; lifting it reads them. */
START_TEST(until_time)
{
	struct lookup *lk = lookup_new();
	struct journal_writer w;
	struct journal_method m = {
		.code_start = 0x7000, .code_size = 0x100, .display = "void A.a()",
	};
	struct lookup_stats st;
	uint64_t id;
	int fd = memfd_create("jsym-check", MFD_CLOEXEC);

	ck_assert_int_eq(journal_open(&w, dup(fd), 1, 0), 0);
	ck_assert_int_eq(journal_append_load(&w, 10, &m, &id), 0);
	ck_assert_int_eq(journal_append_unload(&w, 30, id, m.code_start), 0);
	ck_assert_int_eq(journal_append_epoch(&w, 31, JF_EPOCH_STOPPED), 0);
	ck_assert_int_eq(journal_close(&w), 0);
	lookup_follow_journal(lk, fd);
	lookup_set_until(lk, 29);
	ck_assert_int_eq(lookup_refresh(lk, NULL), 1);
	ck_assert_int_eq(lookup_refresh(lk, NULL), 0); /* still waiting */
	ck_assert_str_eq(at(lk, 0x7000), "void A.a()");
	lookup_set_until(lk, 0);
	ck_assert_int_eq(lookup_refresh(lk, NULL), 2);
	ck_assert_str_eq(at(lk, 0x7000), "??");
	lookup_get_stats(lk, &st);
	ck_assert_uint_eq(st.last_epoch, JF_EPOCH_STOPPED);
	ck_assert_uint_eq(st.last_epoch_ts, 31);
	lookup_free(lk);
}
END_TEST

/* Perf map: later line wins, malformed lines counted, torn line waits. */
START_TEST(follow_map)
{
	struct lookup *lk = lookup_new();
	struct lookup_stats st;
	struct lookup_hit h;
	static const char m1[] = "1000 100 first one\nnonsense\n1080 10 0x2nd\n2000 10 to";
	static const char m2[] = "rn\n";
	int fd = memfd_create("jsym-check", MFD_CLOEXEC);

	ck_assert_int_eq(pwrite(fd, m1, strlen(m1), 0), (ssize_t)strlen(m1));
	ck_assert_int_eq(lookup_follow_map(lk, fd), 0);
	ck_assert_int_eq(lookup_refresh(lk, NULL), 2);
	ck_assert_str_eq(at(lk, 0x1000), "first one");
	ck_assert_str_eq(at(lk, 0x1085), "0x2nd");
	ck_assert_str_eq(at(lk, 0x1090), "first one");
	ck_assert_str_eq(at(lk, 0x2000), "??");
	lookup_get_stats(lk, &st);
	ck_assert_uint_eq(st.malformed_lines, 1);
	ck_assert_uint_eq(st.pending_bytes, 10);
	ck_assert_int_eq(pwrite(fd, m2, strlen(m2), (off_t)strlen(m1)), (ssize_t)strlen(m2));
	ck_assert_int_eq(lookup_refresh(lk, NULL), 1);
	ck_assert_int_eq(lookup_find(lk, 0x200f, &h), 1);
	ck_assert_str_eq(h.sym.name, "torn");
	ck_assert_int_eq(h.sym.kind, LOOKUP_MAP);
	/* rewritten in place, shorter: read again from the start */
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(pwrite(fd, "5000 10 only\n", 13, 0), 13);
	ck_assert_int_eq(lookup_refresh(lk, NULL), 1);
	ck_assert_str_eq(at(lk, 0x1000), "??");
	ck_assert_str_eq(at(lk, 0x5000), "only");
	lookup_get_stats(lk, &st);
	ck_assert_uint_eq(st.resets, 1);
	ck_assert_uint_eq(st.live, 1);
	lookup_free(lk);
}
END_TEST

/* Issue 33 row 5: nothing capped what a lookup holds.  The cap on live
 * entries, at its real value: LOOKUP_MAX_ENTRIES go in, one more is
 * -E2BIG, one that replaces a live one (same id) still goes in. */
START_TEST(cap_entries)
{
	struct lookup *lk = lookup_new();
	struct lookup_sym s = { .kind = LOOKUP_MAP, .size = 1 };

	for (uint64_t i = 0; i < LOOKUP_MAX_ENTRIES; i++) {
		s.id = i + 1;
		s.start = 16 * i;
		if (lookup_add(lk, &s) != 0)
			ck_abort_msg("entry %llu of the cap refused", (unsigned long long)i);
	}
	s.id = LOOKUP_MAX_ENTRIES + 1;
	s.start = 16ull * LOOKUP_MAX_ENTRIES;
	ck_assert_int_eq(lookup_add(lk, &s), -E2BIG);
	ck_assert_str_eq(lk->capped, "entries");
	s.id = 1;       /* replaces entry 1: no more live entries */
	ck_assert_int_eq(lookup_add(lk, &s), 0);
	lookup_free(lk);
}
END_TEST

/* Name bytes: every text copied counts, NULs included; a removed entry
 * gives its bytes back.  Small caps stand for the 256 MiB ones. */
START_TEST(cap_name_bytes)
{
	struct lookup *lk = lookup_new();
	/* "C", "m", "()V" and an 11-byte name: 1 + 1 + 3 + 11 + 4 = 20 bytes */
	struct lookup_sym s = {
		.kind = LOOKUP_LOAD, .size = 8, .class_name = txt("C"), .method = txt("m"),
		.signature = txt("()V"), .name = txt("void C.m()x"),
	};

	lk_set_caps(lk, 0, 100, 0);
	for (uint64_t i = 0; i < 5; i++) {     /* 100 bytes: just under */
		s.id = i + 1;
		s.start = 16 * i;
		ck_assert_int_eq(lookup_add(lk, &s), 0);
	}
	ck_assert_uint_eq(lk->name_bytes, 100);
	s.id = 6;
	s.start = 0x1000;
	s.name = txt("");                       /* 9 bytes more: over */
	ck_assert_int_eq(lookup_add(lk, &s), -E2BIG);
	ck_assert_str_eq(lk->capped, "name bytes");
	ck_assert_int_eq(lookup_remove(lk, 1), 0);
	ck_assert_uint_eq(lk->name_bytes, 80);
	lk->capped = NULL;
	ck_assert_int_eq(lookup_add(lk, &s), 0);
	/* what follows a NUL is not copied, nor counted */
	s.id = 7;
	s.start = 0x2000;
	s.name = (struct lookup_text){ "ab\0cdefghij", 12 };
	ck_assert_int_eq(lookup_add(lk, &s), 0);
	ck_assert_uint_eq(lk->name_bytes, 80 + 9 + 11);
	ck_assert_str_eq(at(lk, 0x2000), "ab");
	lookup_free(lk);
}
END_TEST

/* Stack bytes: the inline ranges' tables count as allocated (16 ranges at
 * first, then doubling), and their names count too. */
START_TEST(cap_stack_bytes)
{
	struct lookup *lk = lookup_new();
	struct lookup_sym in = {
		.kind = LOOKUP_INLINE, .id = 1, .start = 0x1000, .size = 4,
		.name = txt("i"),
	};

	lk_set_caps(lk, 0, 0, 16 * sizeof(struct lk_inl));
	add(lk, LOOKUP_LOAD, 1, 0x1000, 0x100, "outer");
	for (int k = 0; k < 16; k++)            /* just under */
		ck_assert_int_eq(lookup_add_inline(lk, &in), 0);
	ck_assert_int_eq(lookup_add_inline(lk, &in), -E2BIG);  /* grows to 32 */
	ck_assert_str_eq(lk->capped, "stack bytes");
	ck_assert_uint_eq(lk->stack_bytes, 16 * sizeof(struct lk_inl));
	ck_assert_int_eq(lookup_remove(lk, 1), 0);
	ck_assert_uint_eq(lk->stack_bytes, 0);
	ck_assert_uint_eq(lk->name_bytes, 0);
	lookup_free(lk);
}
END_TEST

/* A followed file past a cap: -E2BIG with the cap named, nothing of it
 * answers (no partial index), and so on each refresh until the file is
 * started over. */
START_TEST(cap_refuses_the_file)
{
	struct lookup *lk = lookup_new();
	struct err_text e = { "" };
	static const char m[] = "1000 10 a\n2000 10 b\n3000 10 c\n";
	int fd = memfd_create("jsym-check", MFD_CLOEXEC);

	ck_assert_int_eq(pwrite(fd, m, strlen(m), 0), (ssize_t)strlen(m));
	lk_set_caps(lk, 3, 0, 0);               /* just under: read */
	ck_assert_int_eq(lookup_follow_map(lk, dup(fd)), 0);
	ck_assert_int_eq(lookup_refresh(lk, &e), 3);
	ck_assert_str_eq(at(lk, 0x3000), "c");
	lookup_free(lk);
	lk = lookup_new();
	lk_set_caps(lk, 2, 0, 0);               /* just over: refused */
	ck_assert_int_eq(lookup_follow_map(lk, fd), 0);
	ck_assert_int_eq(lookup_refresh(lk, &e), -E2BIG);
	ck_assert_str_eq(e.msg, "more than 2 live code ranges, jsym's cap on entries "
			 "(docs/lookup.md, \"Limits\"): refused, nothing of it is used");
	ck_assert_str_eq(at(lk, 0x1000), "??");
	e.msg[0] = '\0';
	ck_assert_int_eq(lookup_refresh(lk, &e), -E2BIG);
	ck_assert_ptr_nonnull(strstr(e.msg, "cap on entries"));
	ck_assert_str_eq(at(lk, 0x1000), "??");
	/* rewritten in place within the cap: read again */
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(pwrite(fd, "5000 10 only\n", 13, 0), 13);
	ck_assert_int_eq(lookup_refresh(lk, &e), 1);
	ck_assert_str_eq(at(lk, 0x5000), "only");
	lookup_free(lk);
}
END_TEST

Suite *lookup_suite(void)
{
	Suite *s = suite_create("lookup");
	TCase *tc = tcase_create("core");
	TCase *to = tcase_create("oracle");

	tcase_add_test(tc, boundaries);
	tcase_add_test(tc, reused_address);
	tcase_add_test(tc, highest_id_wins);
	tcase_add_test(tc, inline_chain);
	tcase_add_test(tc, churn_compacts);
	tcase_add_test(tc, key_zero);
	tcase_add_test(tc, follow_journal);
	tcase_add_test(tc, follow_journal_started_over);
	tcase_add_test(tc, until_time);
	tcase_add_test(tc, follow_map);
	tcase_add_test(tc, cap_entries);
	tcase_add_test(tc, cap_name_bytes);
	tcase_add_test(tc, cap_stack_bytes);
	tcase_add_test(tc, cap_refuses_the_file);
	tcase_set_timeout(to, 120);
	tcase_add_test(to, oracle_small_space);
	tcase_add_test(to, oracle_sparse_space);
	tcase_add_test(to, oracle_far_clusters);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, to);
	return s;
}
