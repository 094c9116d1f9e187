/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_agent_codetable.c - the live-code table, the perf-map writer, the
 * inline-range computation and what is made of it (FRAMES, jitdump lines).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codetable.h"
#include "hashtab.h"
#include "outfile.h"
#include "perfmap.h"
#include "procinfo.h"
#include "frames.h"
#include "jitdump.h"
#include "jitlines.h"
#include "journal_format.h"
#include "unfold.h"
#include <jvmticmlr.h>

extern Suite *agent_codetable_suite(void); /* listed in the runner by tests/tests.mk */

static void put(struct code_table *t, uint64_t start, uint64_t size, uint64_t id, const char *n)
{
	struct code_entry e = { start, size, id, 0, (char *)n, CODE_METHOD, NULL, 0 };

	ck_assert_int_eq(codetable_put(t, &e), 0);
}

START_TEST(test_table_basic)
{
	struct code_table t;

	codetable_init(&t);
	ck_assert_ptr_null(codetable_find(&t, 0x1000));
	put(&t, 0x1000, 0x10, 1, "a");
	put(&t, 0x2000, 0x20, 2, "b");
	ck_assert_uint_eq(codetable_count(&t), 2);
	ck_assert_str_eq(codetable_find(&t, 0x2000)->name, "b");
	/* same address: replaced, not duplicated */
	put(&t, 0x2000, 0x30, 3, "c");
	ck_assert_uint_eq(codetable_count(&t), 2);
	ck_assert_uint_eq(codetable_find(&t, 0x2000)->id, 3);
	ck_assert_int_eq(codetable_remove(&t, 0x2000), 0);
	ck_assert_int_eq(codetable_remove(&t, 0x2000), -ENOENT);
	ck_assert_ptr_null(codetable_find(&t, 0x2000));
	ck_assert_uint_eq(codetable_count(&t), 1);
	{
		struct code_entry z = { 0, 1, 1, 0, "z", CODE_STUB, NULL, 0 };

		ck_assert_int_eq(codetable_put(&t, &z), -EINVAL);
	}
	codetable_free(&t);
}
END_TEST

/* Many inserts and removes in colliding patterns: the table stays exact. */
START_TEST(test_table_stress)
{
	struct code_table t;
	enum { N = 5000 };
	char name[32];

	codetable_init(&t);
	for (uint64_t i = 1; i <= N; i++) {
		snprintf(name, sizeof(name), "m%llu", (unsigned long long)i);
		put(&t, i * 0x40, 0x40, i, name);
	}
	for (uint64_t i = 1; i <= N; i += 2)
		ck_assert_int_eq(codetable_remove(&t, i * 0x40), 0);
	ck_assert_uint_eq(codetable_count(&t), N / 2);
	for (uint64_t i = 1; i <= N; i++) {
		struct code_entry *e = codetable_find(&t, i * 0x40);

		if (i % 2)
			ck_assert_ptr_null(e);
		else
			ck_assert(e && e->id == i);
	}
	{
		size_t n;
		const struct code_entry **v = codetable_sorted(&t, &n);

		ck_assert_uint_eq(n, N / 2);
		for (size_t i = 1; i < n; i++)
			ck_assert(v[i - 1]->start < v[i]->start);
		free(v);
	}
	codetable_clear(&t);
	ck_assert_uint_eq(codetable_count(&t), 0);
	ck_assert_ptr_null(codetable_find(&t, 0x80));
	codetable_free(&t);
}
END_TEST

START_TEST(test_perfmap_lines)
{
	struct bbuf b = { 0 };

	ck_assert_int_eq(perfmap_put_line(&b, 0x7f3618eca600ull, 0x78, "void java.lang.Object.<init>()"), 0);
	ck_assert_int_eq(perfmap_put_line(&b, 0xffffffffffffffffull, 0xffffffffffffffffull, "x\ny"), 0);
	ck_assert_int_eq(perfmap_put_line(&b, 0x10, 0, ""), 0);
	ck_assert_uint_eq(b.len, strlen("7f3618eca600 78 void java.lang.Object.<init>()\n"
					"ffffffffffffffff ffffffffffffffff x y\n10 0 \n"));
	ck_assert_int_eq(memcmp(b.data, "7f3618eca600 78 void java.lang.Object.<init>()\n"
				"ffffffffffffffff ffffffffffffffff x y\n10 0 \n", b.len), 0);
	bbuf_free(&b);
}
END_TEST

static char *slurp(const char *path)
{
	static char buf[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

START_TEST(test_perfmap_rewrite_removes_unloaded)
{
	char dir[] = "/tmp/jsym-check-map-XXXXXX", path[128];
	struct err_text why = { "" };
	struct code_table t;
	struct bbuf b = { 0 };
	struct stat st;
	int dfd, fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	dfd = outfile_open_dir(dir);
	ck_assert_int_ge(dfd, 0);
	codetable_init(&t);
	put(&t, 0x3000, 0x30, 3, "long B.c(int)");
	put(&t, 0x1000, 0x10, 1, "void A.a()");
	put(&t, 0x2000, 0x20, 2, "void A.b()");
	ck_assert_int_eq(perfmap_render(&t, &b), 0);
	fd = perfmap_replace(dfd, "perf-1.map", "perf-1.map.tmp", b.data, b.len, &why);
	ck_assert_int_ge(fd, 0);
	/* a load appended through the returned fd */
	ck_assert_int_eq(write(fd, "4000 40 void D.d()\n", 19), 19);
	close(fd);
	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	ck_assert_str_eq(slurp(path), "1000 10 void A.a()\n2000 20 void A.b()\n3000 30 long B.c(int)\n"
				      "4000 40 void D.d()\n");
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0644);
	/* unload of A.b: the rewrite drops it */
	ck_assert_int_eq(codetable_remove(&t, 0x2000), 0);
	put(&t, 0x4000, 0x40, 4, "void D.d()");
	bbuf_clear(&b);
	ck_assert_int_eq(perfmap_render(&t, &b), 0);
	fd = perfmap_replace(dfd, "perf-1.map", "perf-1.map.tmp", b.data, b.len, &why);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_str_eq(slurp(path), "1000 10 void A.a()\n3000 30 long B.c(int)\n4000 40 void D.d()\n");
	snprintf(path, sizeof(path), "%s/perf-1.map.tmp", dir);
	ck_assert_int_eq(access(path, F_OK), -1);
	/* a planted symlink is refused and left alone */
	snprintf(path, sizeof(path), "%s/perf-2.map", dir);
	ck_assert_int_eq(symlink("/etc/passwd", path), 0);
	ck_assert_int_eq(perfmap_replace(dfd, "perf-2.map", "perf-2.map.tmp", "x\n", 2,
					 &why), -ELOOP);
	ck_assert_ptr_nonnull(strstr(why.msg, "symlink"));
	ck_assert_int_eq(outfile_open(dfd, "perf-2.map", 0, &why), -ELOOP);
	unlink(path);
	/* a FIFO is refused without blocking */
	snprintf(path, sizeof(path), "%s/jsym-3.journal", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(outfile_open(dfd, "jsym-3.journal", O_APPEND, &why), -ENXIO);
	ck_assert_ptr_nonnull(strstr(why.msg, "FIFO"));
	unlink(path);
	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	unlink(path);
	rmdir(dir);
	close(dfd);
	bbuf_free(&b);
	codetable_free(&t);
}
END_TEST

START_TEST(test_procinfo_starttime)
{
	ck_assert_uint_eq(procinfo_parse_starttime("1 (a) b) S 0 1 1 0 -1 4194560 1 2 3 4 5 6 7 8 "
						    "20 0 1 0 424242 1000 10"), 424242);
	ck_assert_uint_eq(procinfo_parse_starttime("garbage"), 0);
	ck_assert_uint_gt(procinfo_starttime(), 0);
}
END_TEST

START_TEST(test_unfold_chains)
{
	static int m_root, m_a, m_b;
	jmethodID root = (jmethodID)&m_root, a = (jmethodID)&m_a, b = (jmethodID)&m_b;
	/* innermost first, as JVMTI gives them */
	jmethodID s_root[1] = { root }, s_a[2] = { a, root }, s_b[3] = { b, a, root };
	jint bci_r[1] = { 3 }, bci_a[2] = { 1, 7 }, bci_a2[2] = { 2, 7 }, bci_b[3] = { 0, 4, 7 };
	PCStackInfo pcs[] = {
		{ .pc = (void *)0x100f, .methods = s_root, .bcis = bci_r, .numstackframes = 1 },
		{ .pc = (void *)0x101f, .methods = s_a, .bcis = bci_a, .numstackframes = 2 },
		{ .pc = (void *)0x102f, .methods = s_a, .bcis = bci_a, .numstackframes = 2 }, /* merged */
		{ .pc = (void *)0x103f, .methods = s_a, .bcis = bci_a2, .numstackframes = 2 }, /* other bci */
		{ .pc = (void *)0x103f, .methods = s_b, .bcis = bci_b, .numstackframes = 3 }, /* repeat: skipped */
		{ .pc = (void *)0x104f, .methods = s_b, .bcis = bci_b, .numstackframes = 3 },
		{ .pc = (void *)0x2000, .methods = s_b, .bcis = bci_b, .numstackframes = 3 }, /* outside */
	};
	jvmtiCompiledMethodLoadInlineRecord rec = {
		{ JVMTI_CMLR_INLINE_INFO, JVMTI_CMLR_MAJOR_VERSION, JVMTI_CMLR_MINOR_VERSION, NULL },
		(jint)(sizeof(pcs) / sizeof(pcs[0])), pcs
	};
	struct unfold_info u = { 0 };
	int n = unfold_chains(root, 0x1000, 0x60, &rec, &u);

	ck_assert_int_eq(n, 4);
	ck_assert_uint_eq(u.n_methods, 3);
	ck_assert(u.methods[0] == root && u.methods[1] == a && u.methods[2] == b);
	/* (pc_{i-1}, pc_i] belongs to descriptor i */
	ck_assert(u.ranges[0].off == 0 && u.ranges[0].size == 0x10 && u.ranges[0].depth == 1);
	ck_assert(u.ranges[1].off == 0x10 && u.ranges[1].size == 0x20 && u.ranges[1].depth == 2);
	ck_assert(u.ranges[2].off == 0x30 && u.ranges[2].size == 0x10 && u.ranges[2].depth == 2);
	ck_assert(u.ranges[3].off == 0x40 && u.ranges[3].size == 0x10 && u.ranges[3].depth == 3);
	/* outermost first: root@7, a@4, b@0 */
	ck_assert_uint_eq(u.n_frames, 1 + 2 + 2 + 3);
	ck_assert(u.frames[u.ranges[3].first].method == 0 && u.frames[u.ranges[3].first].bci == 7);
	ck_assert(u.frames[u.ranges[3].first + 1].method == 1 &&
		  u.frames[u.ranges[3].first + 1].bci == 4);
	ck_assert(u.frames[u.ranges[3].first + 2].method == 2 &&
		  u.frames[u.ranges[3].first + 2].bci == 0);
	ck_assert_int_eq(unfold_chains(root, 0x1000, 0x60, NULL, &u), 0);
	unfold_free(&u);
}
END_TEST

struct kv {
	uint64_t key;
	uint64_t val;
};

/* Keys whose home slot is one of the last two of a 256-slot table: their
 * probe runs wrap around the end, and removals shift them back across it. */
START_TEST(test_hashtab_wrapping_runs)
{
	struct hashtab t = { 0 };
	enum { N = 60 };
	uint64_t keys[N];
	int n = 0;

	for (uint64_t k = 1; n < N; k++) {
		struct kv *s = hashtab_insert(&t, sizeof(*s), k);
		size_t home = (size_t)(s - (struct kv *)t.slots);

		hashtab_remove(&t, sizeof(*s), s);
		if (home >= 254)
			keys[n++] = k;
	}
	ck_assert_uint_eq(t.cap, 256);
	for (int i = 0; i < N; i++) {
		struct kv *s = hashtab_insert(&t, sizeof(*s), keys[i]);

		ck_assert_ptr_nonnull(s);
		ck_assert_uint_eq(s->val, 0);
		s->val = keys[i] * 3;
	}
	ck_assert_ptr_null(hashtab_insert(&t, sizeof(struct kv), 0));
	for (int i = 0; i < N; i += 3)
		hashtab_remove(&t, sizeof(struct kv), hashtab_find(&t, sizeof(struct kv), keys[i]));
	ck_assert_uint_eq(t.count, N - N / 3);
	for (int i = 0; i < N; i++) {
		struct kv *s = hashtab_find(&t, sizeof(*s), keys[i]);

		if (i % 3 == 0)
			ck_assert_ptr_null(s);
		else
			ck_assert(s && s->key == keys[i] && s->val == keys[i] * 3);
	}
	for (int i = 1; i < N; i++)
		if (i % 3)
			hashtab_remove(&t, sizeof(struct kv),
				       hashtab_find(&t, sizeof(struct kv), keys[i]));
	ck_assert_uint_eq(t.count, 0);
	for (size_t i = 0; i < t.cap; i++)
		ck_assert_ptr_null(hashtab_at(&t, sizeof(struct kv), i));
	hashtab_free(&t);
	ck_assert(t.slots == NULL && t.cap == 0);
}
END_TEST

/* After hashtab_reserve(n), n inserts in all never move the slots (so
 * never allocate), keys already there included; a smaller reserve is a
 * no-op. */
START_TEST(test_hashtab_reserve)
{
	struct hashtab t = { 0 };
	void *slots;

	ck_assert_ptr_nonnull(hashtab_insert(&t, sizeof(struct kv), 7));
	ck_assert_int_eq(hashtab_reserve(&t, sizeof(struct kv), 1000), 0);
	ck_assert_uint_eq(t.cap, 2048);
	ck_assert(hashtab_find(&t, sizeof(struct kv), 7) != NULL);
	slots = t.slots;
	ck_assert_int_eq(hashtab_reserve(&t, sizeof(struct kv), 10), 0);
	ck_assert_ptr_eq(t.slots, slots);
	for (uint64_t k = 100; k < 100 + 999; k++)
		ck_assert_ptr_nonnull(hashtab_insert(&t, sizeof(struct kv), k));
	ck_assert_ptr_eq(t.slots, slots);
	ck_assert_uint_eq(t.count, 1000);
	hashtab_free(&t);
}
END_TEST

/* More distinct methods than the first 256 slots hold at load 1/2, and a
 * NULL jmethodID (no key for it): each keeps one index, on reuse too. */
START_TEST(test_unfold_many_methods)
{
	enum { M = 300, P = 2 * M + 1 };
	static int ids[M + 1];
	static jmethodID stacks[P][2];
	static PCStackInfo pcs[P];
	static jint bcis[2] = { 1, 2 };
	jmethodID root = (jmethodID)&ids[M];
	jvmtiCompiledMethodLoadInlineRecord rec = {
		{ JVMTI_CMLR_INLINE_INFO, JVMTI_CMLR_MAJOR_VERSION, JVMTI_CMLR_MINOR_VERSION, NULL },
		P, pcs
	};
	struct unfold_info u = { 0 };

	for (int i = 0; i < P; i++) {
		stacks[i][0] = i % M == 0 && i ? NULL : (jmethodID)&ids[i % M];
		stacks[i][1] = root;
		pcs[i] = (PCStackInfo){ .pc = (void *)(uintptr_t)(0x1000 + 4 * i + 3),
					.methods = stacks[i], .bcis = bcis, .numstackframes = 2 };
	}
	for (int round = 0; round < 2; round++) {
		ck_assert_int_eq(unfold_chains(root, 0x1000, 4 * P, &rec, &u), P);
		ck_assert_uint_eq(u.n_methods, M + 2);
		ck_assert(u.methods[0] == root);
		for (int i = 0; i < P; i++) {
			const struct unfold_range *r = &u.ranges[i];

			ck_assert(u.methods[u.frames[r->first].method] == root);
			ck_assert(u.methods[u.frames[r->first + 1].method] == stacks[i][0]);
		}
		/* the second visit of a method finds the first one's index */
		ck_assert_uint_eq(u.frames[u.ranges[M + 1].first + 1].method,
				  u.frames[u.ranges[1].first + 1].method);
	}
	unfold_free(&u);
}
END_TEST

/* Encoded FRAMES records: bytes as docs/journal-format.md says, lines merged. */
START_TEST(test_frames_encode)
{
	static int m_root, m_a;
	jmethodID root = (jmethodID)&m_root, a = (jmethodID)&m_a;
	jmethodID s_root[1] = { root }, s_a[2] = { a, root };
	jint b0[1] = { 0 }, b1[2] = { 1, 5 }, b2[2] = { 4, 5 }, b3[2] = { 9, 5 };
	PCStackInfo pcs[] = {
		{ .pc = (void *)0x1007, .methods = s_root, .bcis = b0, .numstackframes = 1 },
		{ .pc = (void *)0x100f, .methods = s_a, .bcis = b1, .numstackframes = 2 },
		{ .pc = (void *)0x1017, .methods = s_a, .bcis = b2, .numstackframes = 2 }, /* same line */
		{ .pc = (void *)0x101f, .methods = s_a, .bcis = b3, .numstackframes = 2 },
	};
	jvmtiCompiledMethodLoadInlineRecord rec = {
		{ JVMTI_CMLR_INLINE_INFO, JVMTI_CMLR_MAJOR_VERSION, JVMTI_CMLR_MINOR_VERSION, NULL },
		4, pcs
	};
	static const struct frames_line l_root[] = { { 0, 7 } }, l_a[] = { { 0, 41 }, { 8, 42 } };
	struct frames_method m[2] = {
		{ "Outer", "run", "()V", "void Outer.run()", "Outer.java", l_root, 1 },
		{ "Inner", "method", "(I)I", "int Inner.method(int)", "Inner.java", l_a, 2 },
	};
	struct unfold_info u = { 0 };
	struct bbuf b = { 0 };
	const unsigned char *p, *r, *f;

	ck_assert_uint_eq(frames_line_of(l_a, 2, 7), 41);
	ck_assert_uint_eq(frames_line_of(l_a, 2, 8), 42);
	ck_assert_uint_eq(frames_line_of(l_a, 2, UNFOLD_NO_BCI), 0);
	ck_assert_int_eq(unfold_chains(root, 0x1000, 0x20, &rec, &u), 4);
	ck_assert_int_eq(frames_encode(&b, 99, 5, 0x1000, &u, m, 1), 1);
	p = b.data;
	ck_assert_uint_eq(jf_get16(p), JF_FRAMES);
	ck_assert_uint_eq(jf_get32(p + 4), b.len);
	ck_assert_uint_eq(b.len % 8, 0);
	ck_assert_uint_eq(jf_get64(p + 8), 99);
	p += JF_PREFIX_SIZE;
	ck_assert_uint_eq(jf_get64(p), 5);
	ck_assert_uint_eq(jf_get64(p + 8), 0x1000);
	ck_assert_uint_eq(jf_get32(p + 16), 3);         /* bci 1 and 4 are both line 41 */
	ck_assert_uint_eq(jf_get32(p + 20), 1 + 2 + 2);
	ck_assert_uint_eq(jf_get32(p + 24), 2);
	ck_assert_uint_eq(jf_get32(p + 28), JF_FRAMES_F_LINES);
	r = p + JF_FRAMES_FIXED;
	ck_assert(jf_get32(r + 12) == 8 && jf_get32(r + 16) == 16 && jf_get16(r + 20) == 2);
	f = r + 3 * JF_FRAMES_RANGE + JF_FRAMES_FRAME; /* range 1, frame 0: Outer.run @5 line 7 */
	ck_assert(jf_get16(f) == 0 && jf_get16(f + 2) == 5 && jf_get16(f + 4) == 7);
	f += JF_FRAMES_FRAME;                           /* Inner.method @1 line 41 */
	ck_assert(jf_get16(f) == 1 && jf_get16(f + 2) == 1 && jf_get16(f + 4) == 41);
	f += 3 * JF_FRAMES_FRAME;                       /* the method table */
	ck_assert_uint_eq(jf_get16(f), 5);
	ck_assert_uint_eq(jf_get16(f + 8), 10);
	ck_assert_int_eq(memcmp(f + JF_FRAMES_METHOD_FIXED, "Outerrun()Vvoid Outer.run()Outer.java",
				5 + 3 + 3 + 16 + 10), 0);
	/* without lines: one range of Inner, no bcis, no lines */
	bbuf_clear(&b);
	ck_assert_int_eq(frames_encode(&b, 99, 5, 0x1000, &u, m, 0), 1);
	p = b.data + JF_PREFIX_SIZE;
	ck_assert_uint_eq(jf_get32(p + 16), 2);
	ck_assert_uint_eq(jf_get32(p + 28), 0);
	f = p + JF_FRAMES_FIXED + 2 * JF_FRAMES_RANGE + JF_FRAMES_FRAME;
	ck_assert(jf_get16(f + 2) == JF_FRAMES_NO_BCI && jf_get16(f + 4) == 0);
	bbuf_free(&b);
	unfold_free(&u);
}
END_TEST

/* JIT_CODE_DEBUG_INFO: one entry per run of the innermost line, at the
 * start of its range; a frame without lines gives way to its caller; a last
 * entry closes the last range; files with their package directories. */
START_TEST(test_jitlines_encode)
{
	static int m_root, m_a, m_c;
	jmethodID root = (jmethodID)&m_root, a = (jmethodID)&m_a, c = (jmethodID)&m_c;
	jmethodID s_root[1] = { root }, s_a[2] = { a, root }, s_c[3] = { c, a, root };
	jint b0[1] = { 0 }, b1[2] = { 1, 5 }, b2[2] = { 4, 5 }, b3[2] = { 9, 5 };
	jint b4[3] = { 3, 0, 6 };
	PCStackInfo pcs[] = {
		{ .pc = (void *)0x1007, .methods = s_root, .bcis = b0, .numstackframes = 1 },
		{ .pc = (void *)0x100f, .methods = s_a, .bcis = b1, .numstackframes = 2 },
		{ .pc = (void *)0x1017, .methods = s_a, .bcis = b2, .numstackframes = 2 },
		{ .pc = (void *)0x101f, .methods = s_a, .bcis = b3, .numstackframes = 2 },
		{ .pc = (void *)0x1027, .methods = s_c, .bcis = b4, .numstackframes = 3 },
	};
	jvmtiCompiledMethodLoadInlineRecord rec = {
		{ JVMTI_CMLR_INLINE_INFO, JVMTI_CMLR_MAJOR_VERSION, JVMTI_CMLR_MINOR_VERSION, NULL },
		5, pcs
	};
	static const struct frames_line l_root[] = { { 0, 7 } }, l_a[] = { { 0, 41 }, { 8, 42 } };
	struct frames_method m[3] = {
		{ "Outer", "run", "()V", "void Outer.run()", "Outer.java", l_root, 1 },
		{ "pkg.sub.Inner$X", "method", "(I)I", "int pkg.sub.Inner$X.method(int)",
		  "Inner.java", l_a, 2 },
		{ "java.lang.Math", "abs", "(I)I", "int java.lang.Math.abs(int)", NULL, NULL, 0 },
	};
	static const struct { uint64_t addr; uint32_t line; const char *file; } want[] = {
		{ 0x1000, 7, "Outer.java" }, { 0x1008, 41, "pkg/sub/Inner.java" },
		{ 0x1018, 42, "pkg/sub/Inner.java" }, { 0x1020, 41, "pkg/sub/Inner.java" },
		{ 0x1028, 41, "pkg/sub/Inner.java" },
	};
	struct unfold_info u = { 0 };
	struct bbuf b = { 0 };
	const unsigned char *p;
	uint64_t v64;
	uint32_t v32;
	char path[64];

	jitlines_path("a.b.C$D", "C.java", path, sizeof(path));
	ck_assert_str_eq(path, "a/b/C.java");
	jitlines_path("a.b.C", "", path, sizeof(path));
	ck_assert_str_eq(path, "");
	jitlines_path("a.bbbbbbbbbb.C", "C.java", path, 8);
	ck_assert_str_eq(path, "a/bbbbb");
	ck_assert_int_eq(unfold_chains(root, 0x1000, 0x30, &rec, &u), 5);
	ck_assert_int_eq(jitlines_encode(&b, 77, 0x1000, &u, m), 5);
	p = b.data;
	memcpy(&v32, p, 4);
	ck_assert_uint_eq(v32, JITDUMP_CODE_DEBUG_INFO);
	memcpy(&v32, p + 4, 4);
	ck_assert_uint_eq(v32, b.len);
	memcpy(&v64, p + 8, 8);
	ck_assert_uint_eq(v64, 77);
	memcpy(&v64, p + 16, 8);
	ck_assert_uint_eq(v64, 0x1000);
	memcpy(&v64, p + 24, 8);
	ck_assert_uint_eq(v64, 5);
	p += JITDUMP_DEBUG_FIXED;
	for (int i = 0; i < 5; i++) {
		memcpy(&v64, p, 8);
		ck_assert_uint_eq(v64, want[i].addr);
		memcpy(&v32, p + 8, 4);
		ck_assert_uint_eq(v32, want[i].line);
		memcpy(&v32, p + 12, 4);
		ck_assert_uint_eq(v32, 0);
		ck_assert_str_eq((const char *)p + JITDUMP_DEBUG_ENTRY, want[i].file);
		p += JITDUMP_DEBUG_ENTRY + strlen(want[i].file) + 1;
	}
	ck_assert_ptr_eq(p, b.data + b.len);
	/* no line anywhere: nothing */
	bbuf_clear(&b);
	m[0].lines = m[1].lines = NULL;
	ck_assert_int_eq(jitlines_encode(&b, 77, 0x1000, &u, m), 0);
	ck_assert_uint_eq(b.len, 0);
	/* a full buffer: unchanged */
	m[0].lines = l_root;
	b.max = 40;
	ck_assert_int_eq(jitlines_encode(&b, 77, 0x1000, &u, m), -ENOBUFS);
	ck_assert_uint_eq(b.len, 0);
	bbuf_free(&b);
	unfold_free(&u);
}
END_TEST

Suite *agent_codetable_suite(void)
{
	Suite *s = suite_create("agent_codetable");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_table_basic);
	tcase_add_test(tc, test_table_stress);
	tcase_add_test(tc, test_perfmap_lines);
	tcase_add_test(tc, test_perfmap_rewrite_removes_unloaded);
	tcase_add_test(tc, test_procinfo_starttime);
	tcase_add_test(tc, test_unfold_chains);
	tcase_add_test(tc, test_hashtab_wrapping_runs);
	tcase_add_test(tc, test_hashtab_reserve);
	tcase_add_test(tc, test_unfold_many_methods);
	tcase_add_test(tc, test_frames_encode);
	tcase_add_test(tc, test_jitlines_encode);
	suite_add_tcase(s, tc);
	return s;
}
