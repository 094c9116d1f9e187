/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_lookup_api.c - the public API (attach/lookup/include/jsym/lookup.h):
 * old journals (INLINE records) still read, FRAMES stacks innermost first
 * with lines, resolving at a time (forward and back), hostile FRAMES
 * records, the API against lookup_find on random journals, and a perf map
 * just under and just over the cap on entries.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frames.h"
#include "journal.h"
#include "jsym/lookup.h"
#include "lookup_lib.h"
#include "lookup_int.h"

extern Suite *lookup_api_suite(void); /* listed in the runner by tests/tests.mk */

static char path[64];

static void jopen(struct journal_writer *w)
{
	int fd;

	strcpy(path, "/tmp/jsym-check-api-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(journal_open(w, fd, 7, 0), 0);
}

static uint64_t load(struct journal_writer *w, uint64_t ts, uint64_t start, uint64_t size,
		     const char *cls, const char *name)
{
	struct journal_method m = { start, size, cls, "m", "()V", name };
	uint64_t id;

	ck_assert_int_eq(journal_append_load(w, ts, &m, &id), 0);
	return id;
}

/* A journal as agents before FRAMES wrote it: LOAD + INLINE ranges (no
 * writer makes INLINE any more: the records are put by hand). */
START_TEST(old_journal_inline)
{
	struct journal_writer w;
	struct journal_method in = { 0x1010, 0x20, "Inner", "step", "(I)I", "int Inner.step(int)" };
	struct journal_method in2 = { 0x1000, 0x40, "Mid", "call", "()V", "void Mid.call()" };
	struct jsym_frame f[4];
	jsym_lookup *lk;
	uint64_t id;

	jopen(&w);
	id = load(&w, 1, 0x1000, 0x100, "Outer", "void Outer.run()");
	ck_assert_int_eq(journal_put_method(&w.buf, JF_INLINE, 2, id, &in2), 0);
	ck_assert_int_eq(journal_put_method(&w.buf, JF_INLINE, 2, id, &in), 0);
	ck_assert_int_eq(journal_close(&w), 0);
	ck_assert_int_eq(jsym_lookup_open_files(&lk, path, NULL), 0);
	unlink(path);
	ck_assert_int_eq(jsym_lookup_resolve(lk, 0x1018, f, 4), 3);
	ck_assert_str_eq(f[0].name, "int Inner.step(int)");
	ck_assert_uint_eq(f[0].kind, JSYM_FRAME_INLINED);
	ck_assert_str_eq(f[1].name, "void Mid.call()");
	ck_assert_str_eq(f[2].name, "void Outer.run()");
	ck_assert_uint_eq(f[2].kind, JSYM_FRAME_METHOD);
	ck_assert_str_eq(f[2].class_name, "Outer");
	ck_assert_int_eq(f[2].line, 0);
	ck_assert_int_eq(f[2].bci, -1);
	ck_assert_int_eq(jsym_lookup_resolve(lk, 0x1080, f, 4), 1);
	ck_assert_int_eq(jsym_lookup_resolve(lk, 0x1018, f, 1), 3); /* count, one filled */
	ck_assert_str_eq(f[0].name, "int Inner.step(int)");
	ck_assert_int_eq(jsym_lookup_resolve(lk, 0x2000, f, 4), 0);
	jsym_lookup_close(lk);
}
END_TEST

/* Outer.run at 0x1000+0x100 with Inner.step inlined at [0x1010, 0x1030). */
static void put_frames(struct journal_writer *w, uint64_t ts, uint64_t id, int with_lines)
{
	static jmethodID ids[2];
	struct unfold_range r[3] = { { 0, 0x10, 0, 1 }, { 0x10, 0x20, 1, 2 }, { 0x30, 0x10, 3, 1 } };
	struct unfold_frame fr[4] = { { 0, 3 }, { 0, 7 }, { 1, 2 }, { 0, 9 } };
	struct unfold_info u = { .ranges = r, .frames = fr, .methods = ids,
				 .n_ranges = 3, .n_frames = 4, .n_methods = 2 };
	static const struct frames_line lo[] = { { 0, 30 }, { 5, 31 }, { 9, 32 } };
	static const struct frames_line li[] = { { 0, 12 } };
	struct frames_method m[2] = {
		{ "Outer", "run", "()V", "void Outer.run()", "Outer.java", lo, 3 },
		{ "Inner", "step", "(I)I", "int Inner.step(int)", "Inner.java", li, 1 },
	};

	ck_assert_int_eq(frames_encode(&w->buf, ts, id, 0x1000, &u, m, with_lines), 1);
}

START_TEST(frames_stack_and_time)
{
	struct journal_writer w;
	struct jsym_frame f[4];
	jsym_lookup *lk;
	uint64_t id;

	jopen(&w);
	id = load(&w, 100, 0x1000, 0x100, "Outer", "void Outer.run()");
	put_frames(&w, 100, id, 1);
	ck_assert_int_eq(journal_append_unload(&w, 300, id, 0x1000), 0);
	load(&w, 400, 0x1000, 0x80, "Other", "void Other.x()");
	ck_assert_int_eq(journal_close(&w), 0);
	ck_assert_int_eq(jsym_lookup_open_files(&lk, path, NULL), 0);
	unlink(path);
	/* now: the newer method, no chains */
	ck_assert_int_eq(jsym_lookup_resolve(lk, 0x1018, f, 4), 1);
	ck_assert_str_eq(f[0].name, "void Other.x()");
	/* at 200: the stack, innermost first, with lines */
	ck_assert_int_eq(jsym_lookup_resolve_at(lk, 0x1018, 200, f, 4), 2);
	ck_assert_str_eq(f[0].class_name, "Inner");
	ck_assert_str_eq(f[0].method, "step");
	ck_assert_str_eq(f[0].file, "Inner.java");
	ck_assert_int_eq(f[0].line, 12);
	ck_assert_int_eq(f[0].bci, 2);
	ck_assert_uint_eq(f[0].kind, JSYM_FRAME_INLINED);
	ck_assert_uint_eq(f[0].start, 0x1010);
	ck_assert_str_eq(f[1].name, "void Outer.run()");
	ck_assert_int_eq(f[1].line, 31);
	ck_assert_uint_eq(f[1].kind, JSYM_FRAME_METHOD);
	ck_assert_uint_eq(f[1].start, 0x1000);
	ck_assert_uint_eq(f[1].size, 0x100);
	ck_assert_int_eq(jsym_lookup_resolve(lk, 0x1031, f, 4), 1);
	ck_assert_int_eq(f[0].line, 32);
	ck_assert_int_eq(jsym_lookup_resolve(lk, 0x1050, f, 4), 1); /* after the last range */
	ck_assert_int_eq(f[0].line, 0);
	/* forward to 350: unloaded; back to 150: there again; 0: everything */
	ck_assert_int_eq(jsym_lookup_resolve_at(lk, 0x1018, 350, f, 4), 0);
	ck_assert_int_eq(jsym_lookup_resolve_at(lk, 0x1018, 150, f, 4), 2);
	ck_assert_int_eq(jsym_lookup_resolve_at(lk, 0x1018, 50, f, 4), 0);
	ck_assert_int_eq(jsym_lookup_resolve_at(lk, 0x1018, 0, f, 4), 1);
	jsym_lookup_close(lk);
}
END_TEST

/* A method's first INLINE or FRAMES record read after the index was built:
 * the segments' copy of the method (struct lk_seg) must not hide it. */
START_TEST(inlines_after_index)
{
	struct journal_writer w;
	struct journal_method in = { 0x5010, 0x20, "Inner", "step", "(I)I", "int Inner.step(int)" };
	struct jsym_frame f[4];
	jsym_lookup *lk;
	uint64_t a, b;

	jopen(&w);
	a = load(&w, 100, 0x1000, 0x100, "Outer", "void Outer.run()");
	b = load(&w, 100, 0x5000, 0x100, "Plain", "void Plain.go()");
	ck_assert_int_eq(journal_put_method(&w.buf, JF_INLINE, 200, b, &in), 0);
	put_frames(&w, 300, a, 1);
	ck_assert_int_eq(journal_close(&w), 0);
	ck_assert_int_eq(jsym_lookup_open_files(&lk, path, NULL), 0);
	unlink(path);
	/* at 150 both methods are alone; the index is built by these lookups */
	ck_assert_int_eq(jsym_lookup_resolve_at(lk, 0x5018, 150, f, 4), 1);
	ck_assert_int_eq(jsym_lookup_resolve_at(lk, 0x1018, 150, f, 4), 1);
	/* forward in time: the records are applied to the index already built */
	ck_assert_int_eq(jsym_lookup_resolve_at(lk, 0x5018, 250, f, 4), 2);
	ck_assert_str_eq(f[0].name, "int Inner.step(int)");
	ck_assert_str_eq(f[1].name, "void Plain.go()");
	ck_assert_int_eq(jsym_lookup_resolve_at(lk, 0x1018, 350, f, 4), 2);
	ck_assert_str_eq(f[0].name, "int Inner.step(int)");
	ck_assert_int_eq(f[0].line, 12);
	jsym_lookup_close(lk);
}
END_TEST

/* A range of 4 GiB and more: the segment's 32-bit copy of the size cannot
 * hold it, so the answer must come from the entry, whole. */
START_TEST(huge_range_keeps_its_size)
{
	struct journal_writer w;
	struct jsym_frame f[2];
	struct lookup_hit hit;
	struct lookup *lk;
	jsym_lookup *h;
	uint64_t big = 0x100000010ULL, start = 0x10000000000ULL;

	jopen(&w);
	load(&w, 1, start, big, "Huge", "void Huge.run()");
	load(&w, 1, start + big, 0x100, "Small", "void Small.run()");
	ck_assert_int_eq(journal_close(&w), 0);
	ck_assert_int_eq(jsym_lookup_open_files(&h, path, NULL), 0);
	ck_assert_ptr_nonnull(lk = lookup_new());
	lookup_follow_journal(lk, open(path, O_RDONLY | O_CLOEXEC));
	ck_assert_int_eq(lookup_refresh(lk, NULL), 2);
	unlink(path);
	ck_assert_int_eq(jsym_lookup_resolve(h, start + big - 1, f, 2), 1);
	ck_assert_str_eq(f[0].name, "void Huge.run()");
	ck_assert_uint_eq(f[0].size, big);
	ck_assert_int_eq(lookup_find(lk, start + big - 1, &hit), 1);
	ck_assert_uint_eq(hit.sym.size, big);
	ck_assert_uint_eq(hit.offset, big - 1);
	ck_assert_int_eq(jsym_lookup_resolve(h, start + big, f, 2), 1);
	ck_assert_str_eq(f[0].name, "void Small.run()");
	ck_assert_uint_eq(f[0].size, 0x100);
	ck_assert_int_eq(lookup_find(lk, start + big + 1, &hit), 1);
	ck_assert_uint_eq(hit.sym.size, 0x100);
	ck_assert_uint_eq(hit.sym.id, 2);
	lookup_free(lk);
	jsym_lookup_close(h);
}
END_TEST

/* Hostile FRAMES: every byte of the tables flipped must never crash, and the
 * method itself always resolves. */
START_TEST(frames_hostile)
{
	struct journal_writer w;
	struct jsym_frame f[300];
	size_t at, len;
	uint64_t id;

	jopen(&w);
	id = load(&w, 1, 0x1000, 0x100, "Outer", "void Outer.run()");
	at = w.buf.len;
	put_frames(&w, 1, id, 1);
	len = w.buf.len - at;
	for (size_t i = 16; i < len; i++) {
		jsym_lookup *lk;
		unsigned char save = w.buf.data[at + i];
		FILE *fp;
		int n;

		w.buf.data[at + i] ^= (unsigned char)(i % 7 == 0 ? 0x80 : 0xff);
		fp = fopen(path, "w");
		ck_assert_ptr_nonnull(fp);
		ck_assert_uint_eq(fwrite(w.buf.data, 1, w.buf.len, fp), w.buf.len);
		fclose(fp);
		ck_assert_int_eq(jsym_lookup_open_files(&lk, path, NULL), 0);
		for (uint64_t a = 0x1000; a < 0x1100; a += 4) {
			n = jsym_lookup_resolve(lk, a, f, 300);
			ck_assert_int_ge(n, 1);
			ck_assert_uint_eq(f[n < 300 ? n - 1 : 299].start, 0x1000);
		}
		jsym_lookup_close(lk);
		w.buf.data[at + i] = save;
	}
	unlink(path);
	bbuf_free(&w.buf);
	close(w.fd);
}
END_TEST

/* The API and lookup_find agree on random journals. */
START_TEST(api_oracle)
{
	uint64_t r = 88172645463325252ULL;

	for (int run = 0; run < 20; run++) {
		struct journal_writer w;
		struct lookup *ref = lookup_new();
		struct jsym_frame f[4];
		struct lookup_hit h;
		jsym_lookup *lk;
		struct err_text err;
		int n;

		jopen(&w);
		for (int i = 0; i < 2000; i++) {
			char name[32];

			r ^= r << 13, r ^= r >> 7, r ^= r << 17;
			snprintf(name, sizeof(name), "m%d", i);
			if (r % 5 == 0 && i > 0)
				journal_append_unload(&w, 1, r % i + 1, 0);
			else
				load(&w, 1, 0x7f0000000000ULL + (r >> 8) % (1u << 24), 1 + r % 3000,
				     "C", name);
		}
		ck_assert_int_eq(journal_close(&w), 0);
		ck_assert_int_eq(jsym_lookup_open_files(&lk, path, NULL), 0);
		lookup_follow_journal(ref, open(path, O_RDONLY | O_CLOEXEC));
		ck_assert_int_gt(lookup_refresh(ref, &err), 0);
		unlink(path);
		for (int q = 0; q < 20000; q++) {
			uint64_t a;

			r ^= r << 13, r ^= r >> 7, r ^= r << 17;
			a = 0x7f0000000000ULL + r % ((1u << 24) + 4096);
			n = jsym_lookup_resolve(lk, a, f, 4);
			if (n != lookup_find(ref, a, &h) ||
			    (n == 1 && (strcmp(f[0].name, h.sym.name) || f[0].start != h.sym.start)))
				ck_abort_msg("%llx: api %d, lookup_find disagrees",
					     (unsigned long long)a, n);
		}
		jsym_lookup_close(lk);
		lookup_free(ref);
	}
}
END_TEST

START_TEST(open_errors)
{
	jsym_lookup *lk = (jsym_lookup *)1;

	ck_assert_int_eq(jsym_lookup_open_files(&lk, "/nonexistent/j", NULL), -ENOENT);
	ck_assert_ptr_null(lk);
	ck_assert_int_eq(jsym_lookup_open_files(&lk, NULL, NULL), -EINVAL);
	ck_assert_int_eq(jsym_lookup_open_pid(&lk, 0, NULL), -EINVAL);
	ck_assert_int_eq(jsym_lookup_open_pid(&lk, getpid(), "/nonexistent-dir"), -ENOENT);
	ck_assert_str_eq(jsym_lookup_error(NULL), "");
	ck_assert_str_eq(jsym_lookup_version(), "1.0");
	jsym_lookup_close(NULL);
}
END_TEST

/* Follow the journal at path with caps (lk_set_caps): what refresh gives. */
static long follow_capped(size_t names, size_t stack, struct lookup **out)
{
	struct lookup *lk = lookup_new();
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	lk_set_caps(lk, 0, names, stack);
	lookup_follow_journal(lk, fd);
	*out = lk;
	return lookup_refresh(lk, NULL);
}

/* The caps on name bytes and stack bytes count a FRAMES record's method
 * table and its tables: just under reads, just over is -E2BIG; an UNLOAD
 * gives it all back. */
START_TEST(cap_frames_bytes)
{
	const size_t stack = sizeof(struct lk_frames) + 3 * sizeof(struct lk_chain) +
			     4 * sizeof(struct lk_fr) + 2 * sizeof(struct lk_meth);
	/* LOAD: Outer m ()V "void Outer.run()"; FRAMES: two methods' five strings */
	const size_t names = (5 + 1 + 3 + 16 + 4) + (5 + 3 + 3 + 16 + 10 + 5) +
			     (5 + 4 + 4 + 19 + 10 + 5);
	struct journal_writer w;
	struct lookup *lk;
	uint64_t id;

	jopen(&w);
	id = load(&w, 100, 0x1000, 0x100, "Outer", "void Outer.run()");
	put_frames(&w, 100, id, 1);
	ck_assert_int_eq(journal_close(&w), 0);
	ck_assert_int_eq(follow_capped(names, stack, &lk), 2);
	ck_assert_uint_eq(lk->name_bytes, names);
	ck_assert_uint_eq(lk->stack_bytes, stack);
	ck_assert_int_eq(lookup_remove(lk, id), 0);
	ck_assert_uint_eq(lk->name_bytes, 0);
	ck_assert_uint_eq(lk->stack_bytes, 0);
	lookup_free(lk);
	ck_assert_int_eq(follow_capped(names - 1, stack, &lk), -E2BIG);
	ck_assert_str_eq(lk->capped, "name bytes");
	lookup_free(lk);
	ck_assert_int_eq(follow_capped(names, stack - 1, &lk), -E2BIG);
	ck_assert_str_eq(lk->capped, "stack bytes");
	ck_assert_uint_eq(lk->stack_bytes, 0);  /* forgotten */
	lookup_free(lk);
	unlink(path);
}
END_TEST

/* Issue 33 row 5, through the library: a perf map of LOOKUP_MAX_ENTRIES
 * lines opens; one line more is -E2BIG (open fails, and a handle that
 * follows the file fails its refresh, says why and answers nothing). */
START_TEST(cap_entries_map)
{
	struct jsym_frame f[1];
	jsym_lookup *lk, *lk2 = (jsym_lookup *)1;
	FILE *fp;
	int fd;

	strcpy(path, "/tmp/jsym-check-api-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	fp = fdopen(fd, "w");
	ck_assert_ptr_nonnull(fp);
	for (unsigned i = 0; i < LOOKUP_MAX_ENTRIES; i++)
		fprintf(fp, "%x 10 m%u\n", 0x10000 + 16 * i, i);
	ck_assert_int_eq(fflush(fp), 0);
	ck_assert_int_eq(jsym_lookup_open_files(&lk, NULL, path), 0);
	ck_assert_int_eq(jsym_lookup_resolve(lk, 0x10000 + 16ull * (LOOKUP_MAX_ENTRIES - 1), f, 1),
			 1);
	ck_assert_str_eq(f[0].name, "m1048575");
	fprintf(fp, "%x 10 one-more\n", 0x10000 + 16 * LOOKUP_MAX_ENTRIES);
	ck_assert_int_eq(fclose(fp), 0);
	ck_assert_int_eq(jsym_lookup_open_files(&lk2, NULL, path), -E2BIG);
	ck_assert_ptr_null(lk2);
	ck_assert_int_eq(jsym_lookup_refresh(lk), -E2BIG);
	ck_assert_ptr_nonnull(strstr(jsym_lookup_error(lk), "more than 1048576 live code ranges"));
	ck_assert_int_eq(jsym_lookup_resolve(lk, 0x10000, f, 1), 0);
	jsym_lookup_close(lk);
	unlink(path);
}
END_TEST

Suite *lookup_api_suite(void)
{
	Suite *s = suite_create("lookup_api");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, old_journal_inline);
	tcase_add_test(tc, frames_stack_and_time);
	tcase_add_test(tc, inlines_after_index);
	tcase_add_test(tc, huge_range_keeps_its_size);
	tcase_add_test(tc, frames_hostile);
	tcase_add_test(tc, api_oracle);
	tcase_add_test(tc, open_errors);
	tcase_add_test(tc, cap_frames_bytes);
	tcase_add_test(tc, cap_entries_map);
	suite_add_tcase(s, tc);
	return s;
}
