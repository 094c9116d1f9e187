/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_vmstructs.c - attach/vmstructs: Java names (equal to the agent's),
 * the code-cache walk over a fake JVM memory (an nmethod named through its
 * Method chain, a stub by its _name, a blob that changes between the walk
 * and the re-read left out), the maps parser, the map writer's refusals,
 * and --follow: a rescan that keeps what did not change, the journal it
 * writes in the agent's format; a libjvm.so of another architecture named
 * as such, with the jsym to run.
 */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_codecache.h"
#include "names.h"
#include "journal_format.h"
#include "jsym_arch.h"
#include "vm_elf.h"
#include "vm_follow.h"
#include "vm_jvm.h"
#include "vm_blob.h"
#include "vm_names.h"
#include "vm_scan.h"
#include "vm_tables_text.h"
#include "vm_write.h"

extern Suite *vmstructs_suite(void); /* listed in the runner by tests/tests.mk */

static int display(const char *k, const char *n, const char *s, char *out, size_t cap)
{
	return vm_names_display(k, strlen(k), n, strlen(n), s, strlen(s), out, cap);
}

START_TEST(names_like_compiler_perfmap)
{
	char out[256];

	ck_assert_int_gt(display("Workload", "loop", "(IJ)V", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "void Workload.loop(int, long)");
	display("java/util/HashMap", "put", "(Ljava/lang/Object;[[I)Ljava/lang/Object;", out,
		sizeof(out));
	ck_assert_str_eq(out, "java.lang.Object java.util.HashMap.put(java.lang.Object, int[][])");
	display("java/util/regex/Pattern$$Lambda+0x0000000800c0a000", "is", "(I)Z", out,
		sizeof(out));
	ck_assert_str_eq(out, "boolean java.util.regex.Pattern$$Lambda/0x0000000800c0a000.is(int)");
	display("a/B+C", "<init>", "()V", out, sizeof(out));
	ck_assert_str_eq(out, "void a.B+C.<init>()");
	ck_assert_int_eq(display("A", "m", "(V)V", out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(display("A", "m", "(I)", out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(display("A", "m", "(L;)V", out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(display("A", "m", "(I)VV", out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(display("", "m", "()V", out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(display("A", "m", "()V", out, 5), -ENOSPC);
}
END_TEST

/* The agent names from JVMTI's forms; jsym map from HotSpot's: the same. */
START_TEST(names_equal_the_agents)
{
	static const char *const c[][4] = {
		{ "java/lang/String", "Ljava/lang/String;", "indexOf", "(II)I" },
		{ "java/util/HashMap$Node", "Ljava/util/HashMap$Node;", "<init>",
		  "(ILjava/lang/Object;Ljava/lang/Object;Ljava/util/HashMap$Node;)V" },
		{ "Foo$$Lambda+0x0000000800c0a000", "LFoo$$Lambda.0x0000000800c0a000;", "apply",
		  "([[Ljava/lang/Object;D)[J" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char ext[256], a[512], b[512];

		ck_assert_int_gt(names_class_external(c[i][1], 17, ext, sizeof(ext)), 0);
		ck_assert_int_gt(names_method_display(ext, c[i][2], c[i][3], a, sizeof(a)), 0);
		ck_assert_int_gt(display(c[i][0], c[i][2], c[i][3], b, sizeof(b)), 0);
		ck_assert_str_eq(a, b);
	}
}
END_TEST

/* JDK 8 to 14: a lambda's class is VM-anonymous; its Symbol is the plain
 * name and JVMTI adds "/<identity hash>", which the agent leaves out there
 * (JVMTI major 1 is JDK 8).  Since 15 a hidden class keeps its suffix. */
START_TEST(names_equal_the_agents_before_hidden_classes)
{
	static const struct {
		int major;
		const char *symbol, *sig, *want;
	} c[] = {
		{ 1, "Busy$$Lambda$3", "LBusy$$Lambda$3/1831932724;", "int Busy$$Lambda$3.run(int)" },
		{ 11, "java/lang/invoke/LambdaForm$MH", "Ljava/lang/invoke/LambdaForm$MH/295530567;",
		  "int java.lang.invoke.LambdaForm$MH.run(int)" },
		{ 11, "p/Busy", "Lp/Busy;", "int p.Busy.run(int)" },
		{ 17, "Busy$$Lambda+0x0000000800c0a000", "LBusy$$Lambda.0x0000000800c0a000;",
		  "int Busy$$Lambda/0x0000000800c0a000.run(int)" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char ext[256], a[512], b[512];

		ck_assert_int_gt(names_class_external(c[i].sig, c[i].major, ext, sizeof(ext)), 0);
		ck_assert_int_gt(names_method_display(ext, "run", "(I)I", a, sizeof(a)), 0);
		ck_assert_int_gt(display(c[i].symbol, "run", "(I)I", b, sizeof(b)), 0);
		ck_assert_str_eq(a, c[i].want);
		ck_assert_str_eq(b, c[i].want);
	}
}
END_TEST

/* Bounds: a truncated, terminated prefix and -ENOSPC; nothing at cap 0. */
START_TEST(names_bounds)
{
	char out[8] = "XXXXXXX";

	ck_assert_int_eq(vm_names_class("java/lang/String", 16, out, 0), -ENOSPC);
	ck_assert_str_eq(out, "XXXXXXX");
	ck_assert_int_eq(vm_names_class("java/lang/String", 16, out, sizeof(out)), -ENOSPC);
	ck_assert_str_eq(out, "java.la");
	ck_assert_int_eq(vm_names_class("a\0b", 3, out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(vm_names_class("", 0, out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(display("A", "m", "()V", out, sizeof(out)), -ENOSPC);
	ck_assert_str_eq(out, "void A.");
}
END_TEST

/* nmethod states: JDK 8 (one CodeCache::_heap) has zombie at 2, later
 * JDKs at 3; a zombie is no live code in either. */
static bool alive_at_state(bool jdk8, int state)
{
	struct vm_layout l = { 0 };
	unsigned char hdr[64] = { 0 };
	struct vm_blob b;
	uint64_t method = 0x7f0000001000ull;
	uint32_t size = 64, code_off = 32, data_off = 48;

	l.heap_addr = jdk8 ? 0x1000 : 0;
	l.code_offsets = true;
	l.cb_size = (struct vm_fld){ 0, 4 };
	l.cb_code_begin = (struct vm_fld){ 4, 4 };
	l.cb_code_end = (struct vm_fld){ 8, 4 };
	l.nm_method = (struct vm_fld){ 16, 8 };
	l.nm_state = (struct vm_fld){ 24, 1 };
	l.has_state = true;
	l.blob_span = 12;
	l.nm_span = 25;
	memcpy(hdr, &size, 4);
	memcpy(hdr + 4, &code_off, 4);
	memcpy(hdr + 8, &data_off, 4);
	memcpy(hdr + 16, &method, 8);
	hdr[24] = (unsigned char)state;
	ck_assert_int_eq(vm_blob_decode(&l, 0x7f0000100000ull, hdr, sizeof(hdr), 64, "nmethod", &b), 0);
	ck_assert(b.nmethod);
	return b.alive;
}

START_TEST(nmethod_states_of_jdk8_and_later)
{
	ck_assert(alive_at_state(true, 0));     /* in_use */
	ck_assert(alive_at_state(true, 1));     /* JDK 8: not_entrant */
	ck_assert(!alive_at_state(true, 2));    /* JDK 8: zombie */
	ck_assert(alive_at_state(false, 2));    /* not_entrant */
	ck_assert(!alive_at_state(false, 3));   /* zombie */
	ck_assert(!alive_at_state(false, 4));   /* unloaded */
}
END_TEST

/* ---- a fake JVM: JDK 25's shapes, one code heap, two blobs ---- */
#define HEAPS_SYM 0x10000ull
#define HEAP 0x40000ull
#define META 0x80000ull

/* whole pages, as a process maps them (the reader caches pages) */
static unsigned char fixed[4096], segmap[4096], heap[4096], meta[4096];
#define HEAP_LEN (8 * 64)
static int stub_reads, free_stub_at;    /* free the stub's block at that read */
static int segmap_reads;                /* reads of the segment map's page */

static void put(unsigned char *p, uint64_t v, int w)
{
	memcpy(p, &v, (size_t)w);
}

static int fake_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	static const struct { uint64_t base; unsigned char *p; size_t n; } r[] = {
		{ HEAPS_SYM, fixed, sizeof(fixed) }, { 0x20000, segmap, sizeof(segmap) },
		{ HEAP, heap, sizeof(heap) }, { META, meta, sizeof(meta) },
	};

	(void)ctx;
	if (addr >= 0x20000 && addr < 0x20000 + sizeof(segmap))
		segmap_reads++;
	if (addr == HEAP + 4 * 64 && ++stub_reads == free_stub_at)
		heap[4 * 64 + 4] = 0;   /* the stub's block: now free */
	for (size_t i = 0; i < 4; i++) {
		if (addr >= r[i].base && addr - r[i].base <= r[i].n &&
		    n <= r[i].n - (addr - r[i].base)) {
			memcpy(buf, r[i].p + (addr - r[i].base), n);
			return 0;
		}
	}
	return -EFAULT;
}

static void fake_jvm(struct vm_layout *l)
{
	codecache_layout(l, HEAPS_SYM);
	stub_reads = free_stub_at = segmap_reads = 0;
	memset(fixed, 0, sizeof(fixed));
	memset(heap, 0, sizeof(heap));
	memset(meta, 0, sizeof(meta));
	put(fixed, 0x10100, 8);                 /* _heaps -> GrowableArray */
	put(fixed + 0x100, 1, 4);               /* _len */
	put(fixed + 0x108, 0x10200, 8);         /* _data */
	put(fixed + 0x200, 0x10300, 8);         /* the CodeHeap */
	put(fixed + 0x300, HEAP, 8);
	put(fixed + 0x308, HEAP + HEAP_LEN, 8);
	put(fixed + 0x318, HEAP + HEAP_LEN, 8);
	put(fixed + 0x300 + 112, 0x20000, 8);
	put(fixed + 0x300 + 248, 6, 4);
	/* block 0: 4 segments, an nmethod; block 4: 2 segments, a stub; 6-7 unused */
	memcpy(segmap, (unsigned char[]){ 0, 1, 2, 3, 0, 1, 0xff, 0xff }, 8);
	put(heap, 4, 4);
	heap[4] = 1;
	put(heap + 8 + 8, META, 8);
	put(heap + 8 + 24, 200, 4);
	put(heap + 8 + 36, 96, 4);
	put(heap + 8 + 40, 160, 4);
	heap[8 + 56] = 1;
	put(heap + 8 + 80, META + 0x40, 8);
	put(heap + 256, 2, 4);
	heap[256 + 4] = 1;
	put(heap + 264 + 8, META + 0x3c0, 8);
	put(heap + 264 + 24, 100, 4);
	put(heap + 264 + 36, 64, 4);
	put(heap + 264 + 40, 96, 4);
	heap[264 + 56] = 6;
	memcpy(meta, "nmethod", 8);
	memcpy(meta + 0x3c0, "StubRoutines (1)", 17);
	put(meta + 0x48, META + 0x80, 8);
	put(meta + 0x88, META + 0x100, 8);
	put(meta + 0x80 + 36, 1, 2);
	put(meta + 0x80 + 38, 2, 2);
	put(meta + 0x100 + 24, META + 0x200, 8);
	put(meta + 0x100 + 60, 3, 4);
	put(meta + 0x100 + 80, META + 0x300, 8);
	put(meta + 0x100 + 88, META + 0x340, 8);
	put(meta + 0x200 + 24, META + 0x380, 8);
	put(meta + 0x304, 4, 2);
	memcpy(meta + 0x306, "loop", 4);
	put(meta + 0x344, 5, 2);
	memcpy(meta + 0x346, "(IJ)V", 5);
	put(meta + 0x384, 8, 2);
	memcpy(meta + 0x386, "Workload", 8);
}

/* Walk the fake JVM's memory (fake_jvm and any change made to it since). */
static void take_fake(struct vm_jvm *j, const struct vm_layout *l, struct vm_snapshot *s,
		      struct vm_name_cache *nc)
{
	struct err_text e = { "" };

	memset(j, 0, sizeof(*j));
	ck_assert_int_eq(vm_mem_init(&j->mem, fake_read, NULL, true), 0);
	ck_assert_int_eq(vm_snapshot_take(j, l, nc, s, &e), 0);
}

START_TEST(walk_names_nmethods_and_stubs)
{
	struct vm_layout l;
	struct vm_jvm j;
	struct vm_snapshot s = { 0 };
	struct vm_name_cache nc = { 0 };
	struct err_text e = { "" };
	char *text;

	fake_jvm(&l);
	take_fake(&j, &l, &s, &nc);
	ck_assert_int_eq((int)s.n, 2);
	ck_assert(!s.partial);
	ck_assert_str_eq(vm_entry_name(&s, &s.e[0]), "void Workload.loop(int, long)");
	ck_assert_str_eq(vm_entry_name(&s, &s.e[1]), "StubRoutines (1)");
	ck_assert_int_gt(vm_map_render(&s, &text), 0);
	ck_assert_str_eq(text, "40068 40 void Workload.loop(int, long)\n"
			 "40148 20 StubRoutines (1)\n");
	free(text);
	/* again: the name comes from the cache */
	ck_assert_int_eq(vm_snapshot_take(&j, &l, &nc, &s, &e), 0);
	ck_assert_int_eq((int)s.n, 2);
	ck_assert_int_eq((int)nc.hits, 1);
	vm_snapshot_free(&s);
	vm_name_cache_free(&nc);
	vm_mem_free(&j.mem);
}
END_TEST

/* b holds what a does: the same entries, in order, with the same names. */
static void same_snapshot(const struct vm_snapshot *a, const struct vm_snapshot *b)
{
	ck_assert_int_eq((int)a->n, (int)b->n);
	for (size_t k = 0; k < a->n; k++) {
		ck_assert_uint_eq(a->e[k].start, b->e[k].start);
		ck_assert_uint_eq(a->e[k].size, b->e[k].size);
		ck_assert_int_eq(a->e[k].java, b->e[k].java);
		ck_assert_str_eq(vm_entry_name(a, &a->e[k]), vm_entry_name(b, &b->e[k]));
	}
}

/* The namer thread (a live process's snapshot) names as the walk alone
 * does: the same entries, names and counts.  A map's snapshot keeps the
 * display names alone: the parts are "" there, and the arena smaller. */
START_TEST(walk_names_in_a_second_thread)
{
	struct vm_layout l;
	struct vm_jvm one, two;
	struct vm_snapshot a = { 0 }, b = { .display_only = true };
	struct err_text e = { "" };
	const char *klass, *method, *sig;

	fake_jvm(&l);
	take_fake(&one, &l, &a, NULL);
	memset(&two, 0, sizeof(two));
	ck_assert_int_eq(vm_mem_init(&two.mem, fake_read, NULL, true), 0);
	two.name_thread = true;
	ck_assert_int_eq(vm_snapshot_take(&two, &l, NULL, &b, &e), 0);
	ck_assert_int_eq((int)b.n, 2);
	ck_assert(!b.partial);
	same_snapshot(&a, &b);
	ck_assert_str_eq(vm_entry_name(&b, &b.e[0]), "void Workload.loop(int, long)");
	vm_entry_parts(&a, &a.e[0], &klass, &method, &sig);
	ck_assert_str_eq(klass, "Workload");
	ck_assert_str_eq(method, "loop");
	ck_assert_str_eq(sig, "(IJ)V");
	vm_entry_parts(&b, &b.e[0], &klass, &method, &sig);
	ck_assert_str_eq(klass, "");
	ck_assert_str_eq(method, "");
	ck_assert_str_eq(sig, "");
	ck_assert_uint_eq(b.e[0].name_len, strlen("void Workload.loop(int, long)") + 1);
	ck_assert_uint_lt(b.names_len, a.names_len);
	vm_snapshot_free(&a);
	vm_snapshot_free(&b);
	vm_mem_free(&one.mem);
	vm_mem_free(&two.mem);
}
END_TEST

/* Many batches over several heaps, named by the namer thread while the
 * walk reads on, as the walk alone names them; a lost wake-up between two
 * heaps hangs here (the case's timeout).  The heaps are walked in address
 * order, not in the order CodeCache::_heaps lists them: every entry is
 * settled as it is checked, and the map rendered while the walk waits for
 * names is the map rendered at the end. */
START_TEST(walk_many_batches_in_a_second_thread)
{
	struct vm_layout l;
	struct vm_jvm one, two;
	struct vm_snapshot a = { 0 }, b = { 0 };
	struct err_text e = { "" };
	char want[64];
	int idles;

	codecache_build(&l);
	ck_assert_int_eq(codecache_jvm(&one, false), 0);
	ck_assert_int_eq(codecache_jvm(&two, true), 0);
	ck_assert_int_eq(vm_snapshot_take(&one, &l, NULL, &a, &e), 0);
	ck_assert_int_eq(vm_snapshot_take(&two, &l, NULL, &b, &e), 0);
	ck_assert_int_eq((int)a.n, CODECACHE_HEAPS * CODECACHE_BLOCKS);
	ck_assert(!a.partial && !b.partial);
	ck_assert_int_eq((int)a.settled, (int)a.n);
	ck_assert_int_eq((int)b.settled, (int)b.n);
	for (size_t k = 0; k < a.n; k++) {
		codecache_name((int)k / CODECACHE_BLOCKS, (int)k % CODECACHE_BLOCKS, want,
			       sizeof(want));
		ck_assert_str_eq(vm_entry_name(&a, &a.e[k]), want);
	}
	same_snapshot(&a, &b);
	/* a second snapshot of the same session: the namer starts again,
	 * slower than the walk (each of its reads of the methods takes 3
	 * ms: the first batches read some, a real JVM's every one), so the
	 * walk waits and renders the map meanwhile (2 or 3 times here, on
	 * x86 and under qemu alike) */
	vm_snapshot_free(&b);
	codecache_names_delay_us = 3000;
	ck_assert_int_eq(codecache_take_rendering(&two, &l, &b, &idles), 0);
	codecache_names_delay_us = 0;
	ck_assert_int_ge(idles, 1);
	ck_assert_int_eq((int)b.settled, (int)b.n);
	same_snapshot(&a, &b);
	vm_snapshot_free(&a);
	vm_snapshot_free(&b);
	vm_mem_free(&one.mem);
	vm_mem_free(&two.mem);
}
END_TEST

/* Issue 17 row 6: a method name holding ESC c (a terminal reset) and
 * U+009B (CSI) is the JVM's text: the map (file and --stdout) holds it
 * escaped, never raw. */
START_TEST(render_escapes_method_names)
{
	struct vm_layout l;
	struct vm_jvm j;
	struct vm_snapshot s = { 0 };
	struct vm_name_cache nc = { 0 };
	char *text;

	fake_jvm(&l);
	memcpy(meta + 0x306, "\033c\302\233", 4);   /* the 4 bytes of "loop" */
	take_fake(&j, &l, &s, &nc);
	ck_assert_int_gt(vm_map_render(&s, &text), 0);
	ck_assert_str_eq(text, "40068 40 void Workload.\\x1bc\\xc2\\x9b(int, long)\n"
			 "40148 20 StubRoutines (1)\n");
	free(text);
	vm_snapshot_free(&s);
	vm_name_cache_free(&nc);
	vm_mem_free(&j.mem);
}
END_TEST

/* `jsym map --tables` prints the names of the JVM's vmStructs tables, C
 * strings of its memory: escaped in every column, as a terminal takes them
 * (ESC, BEL, and U+009B, which some terminals take as CSI). */
START_TEST(tables_text_escaped)
{
	struct vm_field f[] = {
		{ "Code\033]0;t\007Blob", "_na\302\233me", "int\033[2J", false, 8, 0 },
		{ "Sta\033c", "_s", "", true, 0, 0x1000 },
	};
	struct vm_type ty[] = { { "Ty\033[31mpe", "Su\302\233per", 16 } };
	struct vm_const in[] = { { "In\033t", 1 } }, lo[] = { { "Lo\007ng", 2 } };
	struct vm_tables t = { .fields = f, .types = ty, .ints = in, .longs = lo,
			       .nfields = 2, .ntypes = 1, .nints = 1, .nlongs = 1 };
	char *text = NULL;

	ck_assert_int_gt(vm_tables_text(&t, &text), 0);
	ck_assert_str_eq(text,
			 "field Code\\x1b]0;t\\x07Blob::_na\\xc2\\x9bme int\\x1b[2J +8\n"
			 "field Sta\\x1bc::_s  static @0x1000\n"
			 "type Ty\\x1b[31mpe : Su\\xc2\\x9bper size 16\n"
			 "int In\\x1bt = 1\n"
			 "long Lo\\x07ng = 2\n");
	free(text);
}
END_TEST

/* Issue 17 row 3: a walk stops at each cap (entries, name bytes, code heap
 * bytes), keeps what it read before and says which cap; on main nothing
 * bounded a fake heap of tiny blobs but the 4 GiB of each of 16 heaps. */
START_TEST(walk_stops_at_caps)
{
	struct vm_layout l;
	struct vm_jvm j;
	struct vm_snapshot s = { .max_entries = 1 };
	struct vm_name_cache nc = { 0 };

	fake_jvm(&l);
	take_fake(&j, &l, &s, &nc);
	ck_assert_int_eq((int)s.n, 1);
	ck_assert_str_eq(s.capped, "entries");
	ck_assert(s.partial);
	vm_snapshot_free(&s);
	/* the first name (a Java method's four strings) is over 8 bytes */
	s = (struct vm_snapshot){ .max_name_bytes = 8 };
	take_fake(&j, &l, &s, &nc);
	ck_assert_int_eq((int)s.n, 0);
	ck_assert_str_eq(s.capped, "name bytes");
	vm_snapshot_free(&s);
	/* the fake heap is more than 16 bytes: not even read */
	s = (struct vm_snapshot){ .max_code_bytes = 16 };
	take_fake(&j, &l, &s, &nc);
	ck_assert_int_eq((int)s.n, 0);
	ck_assert_int_eq((int)s.heaps, 0);
	ck_assert_str_eq(s.capped, "code heap bytes");
	vm_snapshot_free(&s);
	/* the defaults take all of it and say nothing */
	s = (struct vm_snapshot){ 0 };
	take_fake(&j, &l, &s, &nc);
	ck_assert_int_eq((int)s.n, 2);
	ck_assert_ptr_null(s.capped);
	vm_snapshot_free(&s);
	vm_name_cache_free(&nc);
	vm_mem_free(&j.mem);
}
END_TEST

/* Issue 33 row 8: a heap that declares 4 GiB committed in 16-byte
 * segments (a 256 MiB segment map) is past the 2 GiB cap on code-heap
 * bytes: refused before its map is allocated or read.  Before, open_heap
 * allocated the 256 MiB and read the map first (here the read fails past
 * the fake's one page, so the walk failed instead of being capped). */
START_TEST(walk_refuses_a_huge_heap_before_its_map)
{
	struct vm_layout l;
	struct vm_jvm j;
	struct vm_snapshot s = { 0 };
	struct err_text e = { "" };

	fake_jvm(&l);
	put(fixed + 0x308, HEAP + (4ull << 30), 8);     /* high */
	put(fixed + 0x318, HEAP + (4ull << 30), 8);     /* high boundary */
	put(fixed + 0x300 + 248, 4, 4);                 /* 16-byte segments */
	memset(&j, 0, sizeof(j));
	ck_assert_int_eq(vm_mem_init(&j.mem, fake_read, NULL, true), 0);
	ck_assert_int_eq(vm_snapshot_take(&j, &l, NULL, &s, &e), 0);
	ck_assert_int_eq(segmap_reads, 0);
	ck_assert_int_eq((int)s.heaps, 0);
	ck_assert_int_eq((int)s.n, 0);
	ck_assert_str_eq(s.capped, "code heap bytes");
	vm_snapshot_free(&s);
	vm_mem_free(&j.mem);
}
END_TEST

/* The stub's block is freed after the walk read it: the re-read drops it. */
START_TEST(walk_drops_what_changed)
{
	struct vm_layout l;
	struct vm_jvm j;
	struct vm_snapshot s = { 0 };
	struct err_text e = { "" };

	fake_jvm(&l);
	free_stub_at = 2;       /* 1: the walk, 2: the re-read before writing */
	memset(&j, 0, sizeof(j));
	vm_mem_init(&j.mem, fake_read, NULL, false);
	ck_assert_int_eq(vm_snapshot_take(&j, &l, NULL, &s, &e), 0);
	ck_assert_int_eq((int)s.n, 1);
	ck_assert(s.partial);
	ck_assert_int_eq((int)s.dropped, 1);
	ck_assert_str_eq(vm_entry_name(&s, &s.e[0]), "void Workload.loop(int, long)");
	vm_snapshot_free(&s);
	vm_mem_free(&j.mem);
}
END_TEST

/* fake_read's batched twin: the ranges in order up to the first hole,
 * as process_vm_readv does. */
static ssize_t fake_readv(void *ctx, const struct vm_range *r, size_t n, void *buf)
{
	size_t got = 0;

	for (size_t i = 0; i < n; got += r[i++].len)
		if (fake_read(ctx, r[i].addr, (unsigned char *)buf + got, r[i].len))
			return got ? (ssize_t)got : -EFAULT;
	return (ssize_t)got;
}

/* Collecting (vm_lines_begin): reads the cache cannot answer ask for their
 * 64-byte lines and fail with -EAGAIN; one fill reads all of them in one
 * batch; a line that is not readable then fails with -EFAULT while
 * collecting, and is read page-wise (and fails) after.  A page asked for
 * more lines than a cache line keeps apart is read whole. */
START_TEST(lines_collect_then_fill)
{
	unsigned char b[64];
	uint64_t v;
	struct vm_mem m;

	fake_jvm(&(struct vm_layout){ 0 });
	ck_assert_int_eq(vm_mem_init(&m, fake_read, NULL, true), 0);
	m.readv = fake_readv;
	ck_assert_int_eq(vm_lines_begin(&m), 0);
	/* two lines: as many as a cache line keeps apart (VM_LINE_SLOTS) */
	ck_assert_int_eq(VM_LINE_SLOTS, 2);
	ck_assert_int_eq(vm_read(&m, META + 0x3f8, b, 16), -EAGAIN);
	ck_assert_int_eq(vm_read(&m, HEAP + 0x100000, b, 8), -EAGAIN);
	ck_assert_int_eq((int)m.syscalls, 0);
	ck_assert_int_eq((int)vm_lines_fill(&m), 2);    /* two pages asked */
	ck_assert_int_eq((int)m.syscalls, 1);   /* META's lines, then the hole */
	ck_assert_int_eq(vm_read(&m, META + 0x3f8, b, 16), 0);
	ck_assert(!memcmp(b, meta + 0x3f8, 16));
	ck_assert_int_eq(vm_read(&m, HEAP + 0x100000, b, 8), -EFAULT);
	ck_assert_int_eq((int)m.syscalls, 1);
	/* a third line of META's page: asked for whole */
	ck_assert_int_eq(vm_read_u64(&m, META + 0x300, &v), -EAGAIN);
	vm_lines_fill(&m);
	ck_assert_int_eq(vm_read_u64(&m, META + 0x300, &v), 0);
	ck_assert(!memcmp(&v, meta + 0x300, 8));
	ck_assert_int_eq(vm_read(&m, META + 0xf00, b, 64), 0);
	ck_assert(!memcmp(b, meta + 0xf00, 64));
	ck_assert_int_eq((int)m.syscalls, 2);
	vm_lines_end(&m);
	/* outside collecting: a line not held reads its page */
	ck_assert_int_eq(vm_read(&m, HEAP + 0x100000, b, 8), -EFAULT);
	ck_assert_int_eq((int)m.syscalls, 3);
	vm_mem_refresh(&m);
	ck_assert_int_eq(vm_read_u64(&m, META + 0x300, &v), 0);
	ck_assert_int_eq((int)m.syscalls, 4);   /* a new generation: read again */
	vm_mem_free(&m);
}
END_TEST

/* Ranges read ahead in batches answer later reads until the next refresh;
 * an invalid or unreadable range is left out and fails when it is read. */
START_TEST(prefetch_batches_and_leaves_out_holes)
{
	const struct vm_range r[] = {
		{ HEAP, 16 }, { 0x10, 8 }, { HEAP + 0x100000, 16 }, { META, 32 },
	};
	unsigned char b[32];
	struct vm_mem m;

	fake_jvm(&(struct vm_layout){ 0 });
	ck_assert_int_eq(vm_mem_init(&m, fake_read, NULL, true), 0);
	m.readv = fake_readv;
	ck_assert_int_eq((int)vm_prefetch(&m, r, 4), 4);
	ck_assert_int_eq((int)m.syscalls, 3);   /* HEAP; the hole and META; META */
	ck_assert_int_eq(vm_read(&m, HEAP + 4, b, 12), 0);
	ck_assert(!memcmp(b, heap + 4, 12));
	ck_assert_int_eq(vm_read_fresh(&m, META, b, 32), 0);
	ck_assert(!memcmp(b, meta, 32));
	ck_assert_int_eq((int)m.syscalls, 3);
	ck_assert_int_eq(vm_read_fresh(&m, HEAP + 8, b, 16), 0);
	ck_assert_int_eq((int)m.syscalls, 4);   /* past the prefetched 16 bytes */
	ck_assert_int_eq(vm_read_fresh(&m, HEAP + 0x100000, b, 16), -EFAULT);
	vm_mem_refresh(&m);
	ck_assert_int_eq(vm_read(&m, HEAP, b, 16), 0);
	ck_assert_int_eq((int)m.syscalls, 6);   /* a whole page again */
	vm_mem_free(&m);
}
END_TEST

/* A corrupt heap: a block length that runs into the next block. */
START_TEST(walk_resyncs_on_a_lying_length)
{
	struct vm_layout l;
	struct vm_jvm j;
	struct vm_snapshot s = { 0 };
	struct err_text e = { "" };

	fake_jvm(&l);
	put(heap, 6, 4);        /* claims segments 0-5: block 4 starts inside */
	memset(&j, 0, sizeof(j));
	vm_mem_init(&j.mem, fake_read, NULL, true);
	ck_assert_int_eq(vm_snapshot_take(&j, &l, NULL, &s, &e), 0);
	ck_assert_int_eq((int)s.n, 1);
	ck_assert_str_eq(vm_entry_name(&s, &s.e[0]), "StubRoutines (1)");
	ck_assert(s.partial);
	ck_assert_int_eq((int)s.resyncs, 2);
	vm_snapshot_free(&s);
	vm_mem_free(&j.mem);
}
END_TEST

/* One heap listed twice, walked with the namer slower than the walk: the
 * map was rendered in part while the walk waited, then the second walk of
 * the heap overlapped the first, so nothing settled holds (settled 0);
 * the map finished equals the map rendered in one go, and the second
 * copies are dropped.  (Here the part rendered happens to survive; the
 * next case has one that does not.) */
START_TEST(walk_renders_again_when_a_heap_is_listed_twice)
{
	static const int twice[] = { 2, 1, 0, 1 };
	static const int down[] = { 2, 1, 0 };
	struct vm_layout l;
	struct vm_jvm j;
	struct vm_snapshot s;
	int idles;

	codecache_build(&l);
	codecache_list_heaps(twice, 4);
	ck_assert_int_eq(codecache_jvm(&j, true), 0);
	codecache_names_delay_us = 3000;
	ck_assert_int_eq(codecache_take_rendering(&j, &l, &s, &idles), 0);
	codecache_names_delay_us = 0;
	codecache_list_heaps(down, 3);
	ck_assert_int_ge(idles, 1);
	ck_assert_int_eq((int)s.heaps, 4);
	ck_assert_int_eq((int)s.n, CODECACHE_HEAPS * CODECACHE_BLOCKS);
	ck_assert_int_eq((int)s.dropped, CODECACHE_BLOCKS);
	ck_assert(s.partial);
	ck_assert_int_eq((int)s.settled, 0);
	vm_snapshot_free(&s);
	vm_mem_free(&j.mem);
}
END_TEST

/* A map rendered in part while the walk waited is finished as is when
 * everything settled held; when it did not (settled 0: the entries were
 * put in order at the end, one rendered before may be gone), it is
 * rendered again from the start. */
START_TEST(render_finish_starts_again_when_unsettled)
{
	char names[] = "one\0two\0three";
	struct vm_entry e[3] = {
		{ .start = 0x1000, .size = 0x10, .name = 0, .name_len = 4 },
		{ .start = 0x2000, .size = 0x20, .name = 4, .name_len = 4 },
		{ .start = 0x3000, .size = 0x30, .name = 8, .name_len = 6 },
	};
	struct vm_snapshot s = { .e = e, .n = 3, .names = names };
	struct vm_map_text t = { 0 };

	/* rendered up to two, then all settled: the rest added */
	ck_assert_int_eq(vm_map_render_more(&s, 2, &t), 0);
	ck_assert_str_eq(t.buf, "1000 10 one\n2000 20 two\n");
	s.settled = 3;
	ck_assert_int_eq(vm_map_text_finish(&s, &t), 0);
	ck_assert_str_eq(t.buf, "1000 10 one\n2000 20 two\n3000 30 three\n");
	/* rendered up to two, then the second dropped at the end */
	t.len = t.done = 0;
	ck_assert_int_eq(vm_map_render_more(&s, 2, &t), 0);
	e[1] = e[2];
	s.n = 2;
	s.settled = 0;
	ck_assert_int_eq(vm_map_text_finish(&s, &t), 0);
	ck_assert_str_eq(t.buf, "1000 10 one\n3000 30 three\n");
	free(t.buf);
}
END_TEST

/* Two heaps over the same memory (a hostile _heaps): the second walk of
 * it overlaps the first, so nothing the walk had settled holds (settled
 * 0: `jsym map` renders the map again), and the later copies are
 * dropped. */
START_TEST(walk_unsettled_when_heaps_overlap)
{
	struct vm_layout l;
	struct vm_jvm j;
	struct vm_snapshot s = { 0 };

	fake_jvm(&l);
	put(fixed + 0x100, 2, 4);               /* _len: 2 */
	put(fixed + 0x208, 0x10300, 8);         /* the same CodeHeap again */
	take_fake(&j, &l, &s, NULL);
	ck_assert_int_eq((int)s.heaps, 2);
	ck_assert_int_eq((int)s.n, 2);
	ck_assert_int_eq((int)s.dropped, 2);
	ck_assert(s.partial);
	ck_assert_int_eq((int)s.settled, 0);
	vm_snapshot_free(&s);
	vm_mem_free(&j.mem);
	/* one heap: every entry settled */
	fake_jvm(&l);
	take_fake(&j, &l, &s, NULL);
	ck_assert_int_eq((int)s.n, 2);
	ck_assert_int_eq((int)s.settled, 2);
	vm_snapshot_free(&s);
	vm_mem_free(&j.mem);
}
END_TEST

START_TEST(maps_find_the_library)
{
	static const char maps[] =
		"55d0c0000000-55d0c0001000 r--p 00000000 fe:00 123 /usr/bin/java\n"
		"7f0000200000-7f0000400000 r-xp 00200000 fe:00 77 /opt/jdk/lib/server/libjvm.so\n"
		"garbage line\n"
		"7f0000000000-7f0000200000 r--p 00000000 fe:00 77 /opt/jdk/lib/server/libjvm.so\n"
		/* upper-case hex is not the kernel's %lx: the line is skipped */
		"7F0000500000-7F0000600000 r--p 00500000 fe:00 77 /opt/jdk/lib/server/libjvm.so\n"
		"7f0000400000-7f0000500000 rw-p 00400000 fe:00 77 /opt/jdk/lib/server/libjvm.so";
	struct vm_lib_span sp;

	ck_assert_int_eq(vm_maps_lib(maps, sizeof(maps) - 1, "/opt/jdk/lib/server/libjvm.so",
				     &sp), 0);
	ck_assert_uint_eq(sp.base, 0x7f0000000000ull);
	ck_assert_uint_eq(sp.lo, 0x7f0000000000ull);
	ck_assert_uint_eq(sp.hi, 0x7f0000500000ull);
	ck_assert_uint_eq(sp.inode, 77);
	ck_assert_int_eq(vm_maps_lib(maps, sizeof(maps) - 1, "/opt/jdk/lib/server/libjv", &sp),
			 -ENOENT);
	/* another file renamed over it since: still its span, its inode */
	static const char gone[] =
		"7f0000000000-7f0000200000 r--p 00000000 fe:00 78 /opt/jdk/lib/server/libjvm.so (deleted)\n";
	ck_assert_int_eq(vm_maps_lib(gone, sizeof(gone) - 1, "/opt/jdk/lib/server/libjvm.so",
				     &sp), 0);
	ck_assert_uint_eq(sp.inode, 78);
	ck_assert_uint_eq(sp.base, 0x7f0000000000ull);
}
END_TEST

/* Issue 24 row 11: a JVM chrooted at /srv/jail maps its libjvm.so under
 * /srv/jail as we read maps, and target_open re-roots the path to the
 * JVM's /opt/...: it is found with the root in front; a library mapped
 * before the chroot (outside it) under the path itself. */
START_TEST(maps_find_the_library_of_a_chroot)
{
	static const char maps[] =
		"7f0000000000-7f0000200000 r--p 00000000 fe:00 77 "
		"/srv/jail/opt/jdk/lib/server/libjvm.so\n"
		"7f0000200000-7f0000400000 r-xp 00200000 fe:00 77 "
		"/srv/jail/opt/jdk/lib/server/libjvm.so\n"
		"7f1000000000-7f1000001000 r--p 00000000 fe:00 90 /usr/lib/libold.so\n";
	struct vm_lib_span sp;

	ck_assert_int_eq(vm_maps_lib_in_root(maps, sizeof(maps) - 1, "/srv/jail/",
					     "/opt/jdk/lib/server/libjvm.so", &sp), 0);
	ck_assert_uint_eq(sp.base, 0x7f0000000000ull);
	ck_assert_uint_eq(sp.hi, 0x7f0000400000ull);
	ck_assert_uint_eq(sp.inode, 77);
	ck_assert_int_eq(vm_maps_lib_in_root(maps, sizeof(maps) - 1, "/srv/jail",
					     "/usr/lib/libold.so", &sp), 0);
	ck_assert_uint_eq(sp.inode, 90);
	ck_assert_int_eq(vm_maps_lib_in_root(maps, sizeof(maps) - 1, "/",
					     "/srv/jail/opt/jdk/lib/server/libjvm.so", &sp), 0);
	ck_assert_int_eq(vm_maps_lib_in_root(maps, sizeof(maps) - 1, "/srv/other",
					     "/opt/jdk/lib/server/libjvm.so", &sp), -ENOENT);
}
END_TEST

/* A planted symlink or FIFO at the map's name is refused and left alone;
 * a regular map is replaced by a new inode. */
START_TEST(writer_refuses_planted_files)
{
	char root[] = "/tmp/jsym-vmw.XXXXXX", path[128], where[128], buf[64];
	struct target t;
	struct err_text e = { "" };
	struct stat st1, st2;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/tmp", root);
	ck_assert_int_eq(mkdir(path, 01777), 0);
	chmod(path, 01777);
	memset(&t, 0, sizeof(t));
	t.root_fd = open(root, O_PATH | O_DIRECTORY);
	t.proc_fd = -1;          /* its mounts are ours (confine_open) */
	t.st.nspid = 1;
	t.st.uid[1] = getuid();
	t.st.gid[1] = getgid();
	snprintf(path, sizeof(path), "%s/tmp/perf-1.map", root);
	ck_assert_int_eq(symlink("/etc/passwd", path), 0);
	ck_assert_int_eq(vm_map_write(&t, "1 2 x\n", 6, where, sizeof(where), &e), -ELOOP);
	ck_assert_ptr_nonnull(strstr(e.msg, "a symlink"));
	ck_assert_int_eq(lstat(path, &st1), 0);
	ck_assert(S_ISLNK(st1.st_mode));
	unlink(path);
	ck_assert_int_eq(mkfifo(path, 0644), 0);
	ck_assert_int_eq(vm_map_write(&t, "1 2 x\n", 6, where, sizeof(where), &e), -ELOOP);
	unlink(path);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	close(fd);
	ck_assert_int_eq(stat(path, &st1), 0);
	ck_assert_int_eq(vm_map_write(&t, "1 2 x\n", 6, where, sizeof(where), &e), 0);
	ck_assert_str_eq(where, "/tmp/perf-1.map");
	ck_assert_int_eq(stat(path, &st2), 0);
	ck_assert(st1.st_ino != st2.st_ino);
	ck_assert_int_eq((int)(st2.st_mode & 0777), 0644);
	fd = open(path, O_RDONLY);
	ck_assert_int_eq((int)read(fd, buf, sizeof(buf)), 6);
	close(fd);
	unlink(path);
	snprintf(path, sizeof(path), "%s/tmp", root);
	rmdir(path);
	rmdir(root);
	close(t.root_fd);
}
END_TEST

/* Record types of a journal file in order, as letters (L U S E), into out. */
static void journal_types(const char *path, char *out, size_t cap, char *load_strs, size_t scap)
{
	static unsigned char buf[65536];
	size_t n = 0, k = 0;
	int fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	n = (size_t)read(fd, buf, sizeof(buf));
	close(fd);
	ck_assert_int_ge((int)n, JF_HEADER_SIZE);
	ck_assert(!memcmp(buf, JF_MAGIC, 8));
	ck_assert_str_eq((const char *)buf + JF_H_AGENT_VERSION, "jsym-map test");
	for (size_t off = JF_HEADER_SIZE; off + JF_PREFIX_SIZE <= n && k + 1 < cap;
	     off += jf_get32(buf + off + 4)) {
		uint16_t type = jf_get16(buf + off);
		const unsigned char *b = buf + off + JF_PREFIX_SIZE;

		out[k++] = type == JF_LOAD ? 'L' : type == JF_UNLOAD ? 'U' : type == JF_STUB ?
			   'S' : type == JF_EPOCH ? 'E' : '?';
		if (type == JF_LOAD)
			snprintf(load_strs, scap, "%.*s|%.*s|%.*s", jf_get16(b + 24), b + 32,
				 jf_get16(b + 26), b + 32 + jf_get16(b + 24), jf_get16(b + 28),
				 b + 32 + jf_get16(b + 24) + jf_get16(b + 26));
	}
	out[k] = '\0';
}

/* --follow: the first scan journaled (EPOCH 1, a LOAD with the agent's
 * fields, a STUB), a rescan of an unchanged JVM keeps both (no records, no
 * revalidation), the stop ends each by its id and writes EPOCH 3. */
START_TEST(follow_journals_in_the_agents_format)
{
	char root[] = "/tmp/jsym-vmf.XXXXXX", path[128], types[32], strs[256];
	struct vm_name_cache nc = { 0 };
	struct err_text e = { "" };
	struct vm_follow f;
	struct vm_layout l;
	struct target t;
	struct vm_jvm j;
	struct stat st;

	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/tmp", root);
	ck_assert_int_eq(mkdir(path, 01777), 0);
	chmod(path, 01777);
	memset(&t, 0, sizeof(t));
	t.root_fd = open(root, O_PATH | O_DIRECTORY);
	t.proc_fd = -1;          /* its mounts are ours (confine_open) */
	t.st.nspid = 1;
	t.st.uid[1] = getuid();
	t.st.gid[1] = getgid();
	fake_jvm(&l);
	memset(&j, 0, sizeof(j));
	ck_assert_int_eq(vm_mem_init(&j.mem, fake_read, NULL, true), 0);

	ck_assert_int_eq(vm_follow_start(&f, &t, &j, &l, &nc, "jsym-map test", &e), 0);
	ck_assert_str_eq(f.journal, "/tmp/jsym-1.journal");
	ck_assert_int_eq((int)f.cur.n, 2);
	ck_assert_int_eq((int)f.loads, 1);
	ck_assert_int_eq((int)f.stubs, 1);
	snprintf(path, sizeof(path), "%s/tmp/jsym-1.journal", root);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq((int)(st.st_mode & 0777), 0644);
	journal_types(path, types, sizeof(types), strs, sizeof(strs));
	ck_assert_str_eq(types, "ELS");
	ck_assert_str_eq(strs, "Workload|loop|(IJ)V");

	ck_assert_int_eq(vm_follow_step(&f, &j, &l, &nc, &e), 0);
	ck_assert_int_eq((int)f.added, 0);
	ck_assert_int_eq((int)f.removed, 0);
	ck_assert_int_eq((int)f.cur.known, 2);
	ck_assert_uint_eq(f.cur.e[0].id, 1);
	ck_assert_uint_eq(f.cur.e[1].id, 2);

	ck_assert_int_eq(vm_follow_stop(&f, &e), 0);
	journal_types(path, types, sizeof(types), strs, sizeof(strs));
	ck_assert_str_eq(types, "ELSUUE");
	vm_follow_free(&f);
	vm_name_cache_free(&nc);
	vm_mem_free(&j.mem);
	unlink(path);
	snprintf(path, sizeof(path), "%s/tmp", root);
	rmdir(path);
	rmdir(root);
	close(t.root_fd);
}
END_TEST

/* A libjvm.so whose ELF header names machine m: only the header matters. */
static int elf_of_machine(char *path, unsigned m)
{
	Elf64_Ehdr eh = { .e_type = ET_DYN, .e_machine = (Elf64_Half)m,
			  .e_version = EV_CURRENT, .e_ehsize = sizeof(Elf64_Ehdr),
			  .e_shentsize = sizeof(Elf64_Shdr) };
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	ck_assert_int_eq(write(fd, &eh, sizeof(eh)), (int)sizeof(eh));
	return fd;
}

START_TEST(elf_of_another_architecture)
{
	const unsigned other = JSYM_ELF_MACHINE == EM_X86_64 ? EM_AARCH64 : EM_X86_64;
	const char *const names[1] = { "gHotSpotVMStructs" };
	const char *oname = jsym_arch_of_machine(other);
	char path[] = "/tmp/jsym-check-elf.XXXXXX", want[256];
	struct err_text e = { 0 };
	uint64_t v[1], base;
	int fd = elf_of_machine(path, other);

	ck_assert_int_eq(vm_elf_lookup(fd, names, v, 1, &base, &e), -ENOEXEC);
	snprintf(want, sizeof(want), "the JVM is %s and this jsym (with its agent builds) "
		 "is %s: run the %s jsym (make ARCH=%s", oname, JSYM_ARCH_NAME, oname, oname);
	ck_assert_msg(strstr(e.msg, want), "%s", e.msg);
	close(fd);
	unlink(path);
	/* a machine jsym has no build for is named by its number */
	ck_assert_int_eq(jsym_arch_mismatch(&e, -ENOEXEC, EM_RISCV), -ENOEXEC);
	ck_assert_msg(strstr(e.msg, "ELF machine is 243, an architecture jsym has no build "
			  "for (this jsym is " JSYM_ARCH_NAME ")"), "%s", e.msg);
}
END_TEST

Suite *vmstructs_suite(void)
{
	Suite *s = suite_create("vmstructs");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, names_like_compiler_perfmap);
	tcase_add_test(tc, names_equal_the_agents);
	tcase_add_test(tc, names_equal_the_agents_before_hidden_classes);
	tcase_add_test(tc, names_bounds);
	tcase_add_test(tc, nmethod_states_of_jdk8_and_later);
	tcase_add_test(tc, walk_names_nmethods_and_stubs);
	tcase_add_test(tc, walk_names_in_a_second_thread);
	tcase_add_test(tc, walk_many_batches_in_a_second_thread);
	tcase_add_test(tc, render_escapes_method_names);
	tcase_add_test(tc, tables_text_escaped);
	tcase_add_test(tc, walk_stops_at_caps);
	tcase_add_test(tc, walk_refuses_a_huge_heap_before_its_map);
	tcase_add_test(tc, walk_drops_what_changed);
	tcase_add_test(tc, walk_resyncs_on_a_lying_length);
	tcase_add_test(tc, prefetch_batches_and_leaves_out_holes);
	tcase_add_test(tc, lines_collect_then_fill);
	tcase_add_test(tc, walk_unsettled_when_heaps_overlap);
	tcase_add_test(tc, render_finish_starts_again_when_unsettled);
	tcase_add_test(tc, walk_renders_again_when_a_heap_is_listed_twice);
	tcase_add_test(tc, maps_find_the_library);
	tcase_add_test(tc, maps_find_the_library_of_a_chroot);
	tcase_add_test(tc, writer_refuses_planted_files);
	tcase_add_test(tc, follow_journals_in_the_agents_format);
	tcase_add_test(tc, elf_of_another_architecture);
	suite_add_tcase(s, tc);
	return s;
}
