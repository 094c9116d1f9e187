/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_agent_codeheap.c - the agent's in-process code heap lookup
 * (agent/jvm/codeheap.c) over fake vmStructs tables and a fake code heap
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
	const char *name;
	uint64_t size;
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

static void add(int *n, const char *type, const char *field, int is_static, uint64_t off,
		void *addr)
{
	structs[(*n)++] = (struct entry){ type, field, "", is_static, off, addr };
}

static struct codeheap_tables tables(bool jdk8)
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
	types[0] = (struct type){ "HeapBlock", sizeof(struct heapblock) };
	types[1] = (struct type){ NULL, 0 };
	return (struct codeheap_tables){
		.structs = (const char *)structs, .s_type = offsetof(struct entry, type),
		.s_field = offsetof(struct entry, field),
		.s_typestr = offsetof(struct entry, typestr),
		.s_static = offsetof(struct entry, is_static),
		.s_offset = offsetof(struct entry, offset),
		.s_address = offsetof(struct entry, address), .s_stride = sizeof(struct entry),
		.types = (const char *)types, .t_type = offsetof(struct type, name),
		.t_size = offsetof(struct type, size), .t_stride = sizeof(struct type),
	};
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
	struct codeheap_tables t = tables(false);
	uintptr_t b0, b1;
	struct blob11 *nm;

	reset();
	ck_assert_int_eq(codeheap_setup(&t), 0);
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
	struct codeheap_tables t = tables(true);
	uintptr_t b;
	struct blob8 *nm;

	reset();
	ck_assert_int_eq(codeheap_setup(&t), 0);
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

START_TEST(missing_entries_refused)
{
	struct codeheap_tables t = tables(false);

	reset();
	structs[1].field = "_length";   /* no _len under either name */
	ck_assert_int_eq(codeheap_setup(&t), -ENOENT);
	ck_assert_uint_eq(codeheap_lookup((uintptr_t)mem[0] + 0x100, 0x10), 0);
}
END_TEST

Suite *agent_codeheap_suite(void)
{
	Suite *s = suite_create("agent_codeheap");
	TCase *tc = tcase_create("lookup");

	tcase_add_test(tc, jdk11_pointers_two_heaps);
	tcase_add_test(tc, jdk8_offsets_one_heap);
	tcase_add_test(tc, missing_entries_refused);
	suite_add_tcase(s, tc);
	return s;
}
