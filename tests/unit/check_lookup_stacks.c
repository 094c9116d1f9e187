/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_lookup_stacks.c - folding `perf script` samples with a journal
 * (attach/lookup/lookup_stacks.c, `jsym stacks`): the counts add up to the
 * samples; a compiled method's inlined callee is a frame of its own under
 * it, marked _[i], with :FILE:LINE on request; jitted-*.so frames are found
 * by their journal id, perf-map and [unknown] ones by address, stubs get
 * the journal's name and native frames perf's; a name with ';' or a
 * newline, in the journal or in perf's text, stays one frame.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frames.h"
#include "journal.h"
#include "lookup_lib.h"

extern Suite *lookup_stacks_suite(void); /* listed in the runner by tests/tests.mk */

static char path[64];
static uint64_t run_id, stub_id, evil_id;

/* Outer.run at 0x1000+0x100: Inner.step inlined at [0x1010, 0x1030) (as
 * check_lookup_api.c builds it); a stub at 0x2000; a method whose class
 * and method names hold ';' and '\n' at 0x3000. */
static struct lookup *journal_lookup(void)
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
	struct journal_method run = { 0x1000, 0x100, "Outer", "run", "()V", "void Outer.run()" };
	struct journal_method evil = { 0x3000, 0x40, "E;vil\nX", "a;b", "()V", "void E;vil\nX.a;b()" };
	struct journal_writer w;
	struct lookup *lk = lookup_new();
	int fd;

	strcpy(path, "/tmp/jsym-check-stacks-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(journal_open(&w, fd, 7, 0), 0);
	ck_assert_int_eq(journal_append_load(&w, 10, &run, &run_id), 0);
	ck_assert_int_eq(frames_encode(&w.buf, 10, run_id, 0x1000, &u, m, 1), 1);
	ck_assert_int_eq(journal_append_stub(&w, 11, 0x2000, 0x80, "Interpreter", &stub_id), 0);
	ck_assert_int_eq(journal_append_load(&w, 12, &evil, &evil_id), 0);
	ck_assert_int_eq(journal_close(&w), 0);
	fd = open(path, O_RDONLY);
	unlink(path);
	ck_assert_ptr_nonnull(lk);
	ck_assert_int_eq(lookup_follow_journal(lk, fd), 0);
	ck_assert_int_gt(lookup_refresh(lk, NULL), 0);
	return lk;
}

/* Feed text (lines), fold, and return "stack count\n"... in first-seen order. */
static int collect(void *arg, const char *stack, size_t len, uint64_t count)
{
	char *out = arg;
	size_t n = strlen(out);

	ck_assert_uint_lt(n + len + 32, 4096);
	memcpy(out + n, stack, len);
	snprintf(out + n + len, 32, " %llu\n", (unsigned long long)count);
	return 0;
}

static void fold(struct lookup *lk, unsigned flags, const char *text, char *out,
		 struct lookup_stacks_stats *st)
{
	struct lookup_stacks *s = lookup_stacks_new(lk, flags);
	const char *p = text;

	ck_assert_ptr_nonnull(s);
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p + 1) : strlen(p);

		ck_assert_int_eq(lookup_stacks_line(s, p, n), 0);
		p += n;
	}
	ck_assert_int_eq(lookup_stacks_end(s), 0);
	out[0] = '\0';
	ck_assert_int_eq(lookup_stacks_each(s, collect, out), 0);
	lookup_stacks_get_stats(s, st);
	lookup_stacks_free(s);
}

/* One sample: a JIT frame (FRAME) over the interpreter stub, a native frame. */
static void sample(char *buf, size_t cap, const char *frame)
{
	char stub[128];

	snprintf(stub, sizeof(stub), "\t             10 Interpreter+0x10 "
		 "(/tmp/jsym-jit-7/jitted-7-%llu.so)\n", (unsigned long long)stub_id);
	snprintf(buf + strlen(buf), cap - strlen(buf),
		 "java 100/101  4716.282245:    2004008 cpu-clock:pppH: \n%s%s"
		 "\t          891f4 start_thread+0x304 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\n",
		 frame, stub);
}

START_TEST(counts_and_inlined_frames)
{
	struct lookup *lk = journal_lookup();
	struct lookup_stacks_stats st;
	char text[4096] = "", fr[160], out[4096];

	/* jitted DSO: ELF-relative address, offset 0x18 in Outer.run (the
	 * chain range [0x10, 0x30): Inner.step inlined) */
	snprintf(fr, sizeof(fr), "\t             98 void Outer.run()+0x18 "
		 "(/tmp/jsym-jit-7/jitted-7-%llu.so)\n", (unsigned long long)run_id);
	sample(text, sizeof(text), fr);
	sample(text, sizeof(text), fr);
	/* the perf map and [unknown]: absolute addresses */
	sample(text, sizeof(text), "\t           1020 [unknown] (/tmp/perf-7.map)\n");
	sample(text, sizeof(text), "\t           1004 [unknown] ([unknown])\n");
	/* not in the journal: perf's name */
	sample(text, sizeof(text), "\t           9000 [unknown] ([unknown])\n");
	fold(lk, 0, text, out, &st);
	ck_assert_str_eq(out,
		"java;start_thread;Interpreter;Outer.run;Inner.step_[i] 3\n"
		"java;start_thread;Interpreter;Outer.run 1\n"
		"java;start_thread;Interpreter;[unknown] 1\n");
	ck_assert_uint_eq(st.samples, 5);
	ck_assert_uint_eq(st.stacks, 3);
	ck_assert_uint_eq(st.jit_frames, 10);
	ck_assert_uint_eq(st.unresolved, 1);
	ck_assert_uint_eq(st.expanded, 3);
	/* --lines: each frame's line at the address */
	fold(lk, LOOKUP_STACKS_LINES, text, out, &st);
	ck_assert_str_eq(out,
		"java;start_thread;Interpreter;Outer.run:Outer.java:31;Inner.step:Inner.java:12_[i] 3\n"
		"java;start_thread;Interpreter;Outer.run:Outer.java:30 1\n"
		"java;start_thread;Interpreter;[unknown] 1\n");
	lookup_free(lk);
}
END_TEST

START_TEST(hostile_names_stay_one_frame)
{
	struct lookup *lk = journal_lookup();
	struct lookup_stacks_stats st;
	char text[4096] = "", out[4096];
	int lines = 0;

	sample(text, sizeof(text), "\t           3008 [unknown] ([unknown])\n");
	/* perf's own text: a native symbol with ';' and a backslash */
	sample(text, sizeof(text), "\t           77 evil;frame\\x+0x1 (/lib/libevil.so)\n");
	fold(lk, 0, text, out, &st);
	ck_assert_str_eq(out,
		"java;start_thread;Interpreter;E\\x3bvil\\x0aX.a\\x3bb 1\n"
		"java;start_thread;Interpreter;evil\\x3bframe\\x5cx 1\n");
	for (const char *p = out; *p; p++)
		lines += *p == '\n';
	ck_assert_int_eq(lines, 2);
	ck_assert_uint_eq(st.samples, 2);
	lookup_free(lk);
}
END_TEST

/* What is no part of a sample is skipped, a sample without frames counts. */
START_TEST(odd_input)
{
	struct lookup *lk = journal_lookup();
	struct lookup_stacks_stats st;
	char out[4096];

	fold(lk, 0, "\t 10 stray+0x1 (x)\n"
		 "C2 CompilerThre 100/102 1.0: 1 cpu-clock:\n\n"
		 "java 100/101 1.0: 1 cpu-clock:\n\t 10 last+0x1 (/lib/x.so)", out, &st);
	ck_assert_str_eq(out, "C2 CompilerThre 1\njava;last 1\n");
	ck_assert_uint_eq(st.samples, 2);
	ck_assert_uint_eq(st.bad_lines, 1);
	lookup_free(lk);
}
END_TEST

Suite *lookup_stacks_suite(void)
{
	Suite *s = suite_create("lookup_stacks");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, counts_and_inlined_frames);
	tcase_add_test(tc, hostile_names_stay_one_frame);
	tcase_add_test(tc, odd_input);
	suite_add_tcase(s, tc);
	return s;
}
