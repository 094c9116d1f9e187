/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_agent_codeheap.c - the agent's in-process code heap lookup
 * (agent/jvm/codeheap.c) over fake vmStructs tables, read as the agent
 * reads its own JVM's (vm_tables_read through a vm_mem over this
 * process's memory), and a fake code heap
 * laid out as JDK 11 (two heaps in a GrowableArray, code_begin/code_end
 * pointers) and JDK 8 (one CodeCache::_heap, int offsets).
 */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "codeheap.h"

extern Suite *agent_codeheap_suite(void);

struct entry {
	const char *type, *field, *typestr;
	int32_t is_static;
	uint64_t offset;
	void *address;
};

struct type {
	const char *name, *super;
	uint64_t size;
};

struct constant {               /* gHotSpotVMIntConstants, ...Long...: empty */
	const char *name;
	int64_t value;
};

/* The fake JVM's objects. */
struct vspace {
	uintptr_t low_boundary, high;
};
struct codeheap {
	uint64_t pad;
	struct vspace memory, segmap;
	int32_t log2seg;
};
struct growable {
	int32_t len;
	struct codeheap **data;
};
struct heapblock {
	uint64_t length;
	unsigned char used;
	unsigned char pad[7];
};
struct blob11 {                 /* JDK 11: pointers */
	const char *name;
	uintptr_t code_begin, code_end;
	int32_t frame_size, frame_complete, size;
};
struct blob8 {                  /* JDK 8: offsets from the blob */
	const char *name;
	int32_t code_offset, data_offset;
};

#define LOG2 6                  /* 64-byte segments */
#define SEGS 64

static _Alignas(64) unsigned char mem[2][SEGS << LOG2];
static unsigned char segmap[2][SEGS];
static struct codeheap heaps[2];
static struct codeheap *heap_list[2] = { &heaps[0], &heaps[1] };
static struct growable array = { 2, heap_list };
static struct growable *array_ptr = &array;
static struct codeheap *one_heap = &heaps[0];

static struct entry structs[32];
static struct type types[4];
static struct constant no_consts[1];

/* The exported globals: each table's address, column offsets and stride. */
static uint64_t globals[VS_COUNT];
static const char *structs_ptr = (const char *)structs, *types_ptr = (const char *)types;
static const char *consts_ptr = (const char *)no_consts;

static void add(int *n, const char *type, const char *field, int is_static, uint64_t off,
		void *addr)
{
	structs[(*n)++] = (struct entry){ type, field, "", is_static, off, addr };
}

/* The frame's fields (codeheap_blob_at), each with its type string. */
static void frame_fields(void)
{
	int n = 0;

	while (structs[n].type)
		n++;
	structs[n++] = (struct entry){ "CodeBlob", "_frame_size", "int", 0,
				       offsetof(struct blob11, frame_size), NULL };
	structs[n++] = (struct entry){ "CodeBlob", "_frame_complete_offset", "int", 0,
				       offsetof(struct blob11, frame_complete), NULL };
	structs[n++] = (struct entry){ "CodeBlob", "_size", "int", 0,
				       offsetof(struct blob11, size), NULL };
	structs[n++] = (struct entry){ "HeapBlock::Header", "_length", "size_t", 0,
				       offsetof(struct heapblock, length), NULL };
	types[1] = (struct type){ "CodeBlob", NULL, sizeof(struct blob11) };
	types[2] = (struct type){ NULL, NULL, 0 };
}

/* vm_read_fn over the test's own memory (the fake JVM).  The reader asks
 * for a name's bytes up to the end of its page, past the string literal,
 * as it does of a JVM: a byte copy that AddressSanitizer does not watch
 * (a memcpy would be reported as an overflow of the literal). */
__attribute__((no_sanitize_address))
static int own_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	const volatile unsigned char *from = (const volatile unsigned char *)(uintptr_t)addr;
	unsigned char *to = buf;

	(void)ctx;
	for (size_t i = 0; i < n; i++)
		to[i] = from[i];
	return 0;
}

/* The symbols' addresses, as the agent finds them in libjvm.so. */
static void symbols(uint64_t sym[VS_COUNT])
{
	static const int cols[][2] = {
		{ VS_S_TYPE, offsetof(struct entry, type) },
		{ VS_S_FIELD, offsetof(struct entry, field) },
		{ VS_S_TYPESTR, offsetof(struct entry, typestr) },
		{ VS_S_STATIC, offsetof(struct entry, is_static) },
		{ VS_S_OFFSET, offsetof(struct entry, offset) },
		{ VS_S_ADDRESS, offsetof(struct entry, address) },
		{ VS_S_STRIDE, sizeof(struct entry) },
		{ VS_T_TYPE, offsetof(struct type, name) },
		{ VS_T_SUPER, offsetof(struct type, super) },
		{ VS_T_SIZE, offsetof(struct type, size) },
		{ VS_T_STRIDE, sizeof(struct type) },
		{ VS_I_NAME, offsetof(struct constant, name) },
		{ VS_I_VALUE, offsetof(struct constant, value) },
		{ VS_I_STRIDE, sizeof(struct constant) },
		{ VS_L_NAME, offsetof(struct constant, name) },
		{ VS_L_VALUE, offsetof(struct constant, value) },
		{ VS_L_STRIDE, sizeof(struct constant) },
	};

	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		globals[cols[i][0]] = (uint64_t)cols[i][1];
		sym[cols[i][0]] = (uintptr_t)&globals[cols[i][0]];
	}
	sym[VS_STRUCTS] = (uintptr_t)&structs_ptr;
	sym[VS_TYPES] = (uintptr_t)&types_ptr;
	sym[VS_INTS] = sym[VS_LONGS] = (uintptr_t)&consts_ptr;
}

/* codeheap_setup over the fake tables, read through a vm_mem over this
 * process's memory: the path the agent takes over its own JVM's. */
static int setup(void)
{
	uint64_t sym[VS_COUNT];
	struct vm_mem m;
	int rc;

	symbols(sym);
	ck_assert_int_eq(vm_mem_init(&m, own_read, NULL, false), 0);
	rc = codeheap_setup(&m, sym);
	vm_mem_free(&m);
	return rc;
}

/* Fill the fake tables as JDK 8 or JDK 11 lays them out. */
static void tables(bool jdk8)
{
	int n = 0;

	memset(structs, 0, sizeof(structs));
	if (jdk8) {
		add(&n, "CodeCache", "_heap", 1, 0, &one_heap);
		add(&n, "CodeBlob", "_code_offset", 0, offsetof(struct blob8, code_offset), NULL);
		add(&n, "CodeBlob", "_data_offset", 0, offsetof(struct blob8, data_offset), NULL);
	} else {
		add(&n, "CodeCache", "_heaps", 1, 0, &array_ptr);
		add(&n, "GenericGrowableArray", "_len", 0, offsetof(struct growable, len), NULL);
		add(&n, "GrowableArray<int>", "_data", 0, offsetof(struct growable, data), NULL);
		add(&n, "CodeBlob", "_code_begin", 0, offsetof(struct blob11, code_begin), NULL);
		add(&n, "CodeBlob", "_code_end", 0, offsetof(struct blob11, code_end), NULL);
	}
	add(&n, "CodeHeap", "_memory", 0, offsetof(struct codeheap, memory), NULL);
	add(&n, "CodeHeap", "_segmap", 0, offsetof(struct codeheap, segmap), NULL);
	add(&n, "CodeHeap", "_log2_segment_size", 0, offsetof(struct codeheap, log2seg), NULL);
	add(&n, "VirtualSpace", "_low_boundary", 0, offsetof(struct vspace, low_boundary), NULL);
	add(&n, "VirtualSpace", "_high", 0, offsetof(struct vspace, high), NULL);
	add(&n, "HeapBlock", "_header", 0, 0, NULL);
	add(&n, "HeapBlock::Header", "_used", 0, offsetof(struct heapblock, used), NULL);
	types[0] = (struct type){ "HeapBlock", NULL, sizeof(struct heapblock) };
	types[1] = (struct type){ NULL, NULL, 0 };
}

/* A used block of nseg segments at segment first of heap h, its segment
 * map filled as HotSpot does (0 at the start, then distances back). */
static uintptr_t block(int h, unsigned first, unsigned nseg)
{
	struct heapblock *b = (struct heapblock *)&mem[h][first << LOG2];

	for (unsigned i = 0; i < nseg; i++)
		segmap[h][first + i] = (unsigned char)(i < 0xfe ? i : 0xfe);
	b->length = nseg;
	b->used = 1;
	return (uintptr_t)(b + 1);
}

static void reset(void)
{
	memset(mem, 0, sizeof(mem));
	memset(segmap, 0xff, sizeof(segmap));
	for (int h = 0; h < 2; h++) {
		heaps[h].memory.low_boundary = (uintptr_t)mem[h];
		heaps[h].memory.high = (uintptr_t)mem[h] + sizeof(mem[h]);
		heaps[h].segmap.low_boundary = (uintptr_t)segmap[h];
		heaps[h].log2seg = LOG2;
	}
}

START_TEST(jdk11_pointers_two_heaps)
{
	uintptr_t b0, b1;
	struct blob11 *nm;

	tables(false);
	reset();
	ck_assert_int_eq(setup(), 0);
	b0 = block(0, 3, 5);
	nm = (struct blob11 *)b0;
	nm->code_begin = b0 + 0x40;
	nm->code_end = b0 + 0x40 + 0x98;
	b1 = block(1, 10, 4);
	nm = (struct blob11 *)b1;
	nm->code_begin = b1 + 0x50;
	nm->code_end = b1 + 0x50 + 0x60;
	/* JVMTI said 0x80 (instructions only): the heap says 0x98 */
	ck_assert_uint_eq(codeheap_lookup(b0 + 0x40, 0x80), 0x98);
	ck_assert_uint_eq(codeheap_lookup(b1 + 0x50, 0x48), 0x60);
	/* not where a code begins; a size larger than the range; free space */
	ck_assert_uint_eq(codeheap_lookup(b0 + 0x48, 0x10), 0);
	ck_assert_uint_eq(codeheap_lookup(b0 + 0x40, 0x99), 0);
	ck_assert_uint_eq(codeheap_lookup((uintptr_t)mem[0] + (40 << LOG2), 0x10), 0);
	/* outside every heap */
	ck_assert_uint_eq(codeheap_lookup((uintptr_t)&array, 0x10), 0);
	/* a block marked free */
	((struct heapblock *)b0 - 1)->used = 0;
	ck_assert_uint_eq(codeheap_lookup(b0 + 0x40, 0x80), 0);
}
END_TEST

START_TEST(jdk8_offsets_one_heap)
{
	uintptr_t b;
	struct blob8 *nm;

	tables(true);
	reset();
	ck_assert_int_eq(setup(), 0);
	b = block(0, 7, 20);
	nm = (struct blob8 *)b;
	nm->code_offset = 0x1a0;
	nm->data_offset = 0x1a0 + 0x2c8;
	ck_assert_uint_eq(codeheap_lookup(b + 0x1a0, 0x200), 0x2c8);
	/* a segment map that points past the heap's start is refused */
	segmap[0][7] = 9;
	ck_assert_uint_eq(codeheap_lookup(b + 0x1a0, 0x200), 0);
	segmap[0][7] = 0;
	/* code that would end past the committed end */
	nm->data_offset = (int32_t)sizeof(mem[0]);
	ck_assert_uint_eq(codeheap_lookup(b + 0x1a0, 0x200), 0);
}
END_TEST

START_TEST(jdk11_frame_of_a_blob)
{
	struct codeheap_blob cb;
	struct blob11 *nm, *next;
	uintptr_t b0, b1;

	tables(false);
	frame_fields();
	reset();
	ck_assert_int_eq(setup(), 0);
	b0 = block(0, 3, 5);
	nm = (struct blob11 *)b0;
	nm->code_begin = b0 + 0x40;
	nm->code_end = b0 + 0x40 + 0x98;
	nm->frame_size = 0x10006;       /* more than 16 bits: read as an int */
	nm->frame_complete = 0x10;
	b1 = block(0, 8, 4);    /* the block right after: its header and a
				   CodeBlob's bound b0's tables, whatever blob
				   is there now (it may be replaced by one
				   whose code starts lower) */
	next = (struct blob11 *)b1;
	next->code_begin = b1 + 0x50;
	next->code_end = b1 + 0x50 + 0x60;
	ck_assert_int_eq(codeheap_blob_lookup(b0 + 0x60, &cb), 0);
	ck_assert_uint_eq(cb.code_begin, b0 + 0x40);
	ck_assert_uint_eq(cb.code_end, b0 + 0x40 + 0x98);
	ck_assert_uint_eq(cb.frame_words, 0x10006);
	ck_assert_int_eq(cb.frame_complete, 0x10);
	ck_assert_uint_eq(cb.limit, b1 + sizeof(struct blob11));
	/* before the code (the blob's header) */
	ck_assert_int_eq(codeheap_blob_lookup(b0 + 0x20, &cb), -ENOENT);
	/* a frame size of 1 word and a frame-complete offset past the code */
	nm->frame_size = 1;
	nm->frame_complete = 0x98;
	ck_assert_int_eq(codeheap_blob_lookup(b0 + 0x60, &cb), 0);
	ck_assert_uint_eq(cb.frame_words, 0);
	ck_assert_int_eq(cb.frame_complete, -1);
	/* a field's type string no integer width: no frames, sizes still */
	tables(false);
	frame_fields();
	structs[12].typestr = "float";     /* CodeBlob::_frame_size */
	ck_assert_int_eq(setup(), 0);
	ck_assert_int_eq(codeheap_blob_lookup(b0 + 0x60, &cb), -ENOENT);
	ck_assert_uint_eq(codeheap_lookup(b0 + 0x40, 0x80), 0x98);
}
END_TEST

START_TEST(missing_entries_refused)
{
	tables(false);
	reset();
	structs[1].field = "_length";   /* no _len under either name */
	ck_assert_int_eq(setup(), -ENOENT);
	ck_assert_uint_eq(codeheap_lookup((uintptr_t)mem[0] + 0x100, 0x10), 0);
}
END_TEST

Suite *agent_codeheap_suite(void)
{
	Suite *s = suite_create("agent_codeheap");
	TCase *tc = tcase_create("lookup");

	tcase_add_test(tc, jdk11_pointers_two_heaps);
	tcase_add_test(tc, jdk8_offsets_one_heap);
	tcase_add_test(tc, jdk11_frame_of_a_blob);
	tcase_add_test(tc, missing_entries_refused);
	suite_add_tcase(s, tc);
	return s;
}
