/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_vm_blob.c - libFuzzer harness: a hostile or half-updated code cache.
 *
 * A fixed layout (JDK 25's shape: CodeBlob offsets, CodeBlob::_kind) and a
 * fake JVM memory with one code heap whose segment map, blocks and blobs
 * come from the input, followed by a metadata region (Methods, ConstMethods,
 * ConstantPools, Klasses, Symbols, blob names) also from the input.  The
 * snapshot must fail cleanly or hold only entries inside the heap, sorted
 * and without overlaps.  The same input also goes straight through the
 * blob decoder and the Java name formatter.
 *
 * Input: u8 nsegs (segments of 64 bytes), nsegs segment-map bytes,
 * nsegs * 64 heap bytes, then the metadata region.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vm_blob.h"
#include "vm_names.h"
#include "vm_scan.h"

#define HEAPS_SYM 0x10000ull    /* CodeCache::_heaps */
#define GA 0x10100ull           /* the GrowableArray, its data, the CodeHeap */
#define GA_DATA 0x10200ull
#define CODEHEAP 0x10300ull
#define SEGMAP 0x20000ull
#define HEAP 0x40000ull
#define META 0x80000ull
#define LOG2SEG 6

struct region {
	uint64_t base;
	const uint8_t *p;
	size_t n;
};

struct image {
	struct region r[5];
	uint8_t fixed[0x400];   /* HEAPS_SYM .. CODEHEAP + 0x100 */
};

static int fake_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	const struct image *im = ctx;

	for (int i = 0; i < 5; i++) {
		const struct region *r = &im->r[i];

		if (addr >= r->base && addr - r->base <= r->n && n <= r->n - (addr - r->base)) {
			memcpy(buf, r->p + (addr - r->base), n);
			return 0;
		}
	}
	return -EFAULT;
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static struct vm_fld F(uint32_t off, uint8_t width)
{
	return (struct vm_fld){ off, width };
}

static void layout(struct vm_layout *l)
{
	memset(l, 0, sizeof(*l));
	l->heaps_addr = HEAPS_SYM;
	l->ga_len = F(0, 4);
	l->ga_data = F(8, 8);
	l->heap_memory = 0;
	l->heap_segmap = 112;
	l->heap_log2seg = F(248, 4);
	l->vs_low_boundary = F(0, 8);
	l->vs_high_boundary = F(8, 8);
	l->vs_high = F(24, 8);
	l->hb_size = 8;
	l->hb_length = F(0, 4);
	l->hb_used = F(4, 1);
	l->cb_name = F(8, 8);
	l->cb_size = F(24, 4);
	l->code_offsets = true;
	l->cb_code_begin = F(36, 4);
	l->cb_code_end = F(40, 4);
	l->has_kind = true;
	l->cb_kind = F(56, 1);
	l->kind_nmethod = 1;
	l->nm_method = F(80, 8);
	l->blob_span = 57;
	l->nm_span = 88;
	l->m_const_method = F(8, 8);
	l->cm_constants = F(8, 8);
	l->cm_name_index = F(36, 2);
	l->cm_sig_index = F(38, 2);
	l->cp_holder = F(24, 8);
	l->cp_length = F(60, 4);
	l->cp_size = 72;
	l->k_name = F(24, 8);
	l->sym_length = F(4, 2);
	l->sym_body = 6;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct image im;
	struct vm_jvm j;
	struct vm_layout l;
	struct vm_snapshot s = { 0 };
	struct err_text e = { "" };
	struct vm_blob b;
	uint8_t *copy;
	size_t nsegs, heap_len;
	char out[512];

	if (size < 1)
		return 0;
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	layout(&l);
	nsegs = copy[0];
	heap_len = nsegs << LOG2SEG;
	if (1 + nsegs + heap_len > size) {
		/* too short for a heap: the decoder and the formatter alone */
		vm_blob_decode(&l, HEAP, copy, size, size, (const char *)"nmethod", &b);
		vm_names_display((const char *)copy, size / 3, (const char *)copy + size / 3,
				 size / 3, (const char *)copy + 2 * (size / 3), size - 2 * (size / 3),
				 out, sizeof(out));
		free(copy);
		return 0;
	}
	memset(im.fixed, 0, sizeof(im.fixed));
	put64(im.fixed, GA);                            /* _heaps -> GA */
	im.fixed[0x100] = 1;                            /* GA._len = 1 */
	put64(im.fixed + 0x108, GA_DATA);               /* GA._data */
	put64(im.fixed + 0x200, CODEHEAP);              /* data[0] */
	put64(im.fixed + 0x300 + 0, HEAP);              /* _memory._low_boundary */
	put64(im.fixed + 0x300 + 8, HEAP + heap_len);   /* _memory._high_boundary */
	put64(im.fixed + 0x300 + 24, HEAP + heap_len);  /* _memory._high */
	put64(im.fixed + 0x300 + 112, SEGMAP);          /* _segmap._low_boundary */
	im.fixed[0x300 + 248] = LOG2SEG;
	im.r[0] = (struct region){ HEAPS_SYM, im.fixed, sizeof(im.fixed) };
	im.r[1] = (struct region){ SEGMAP, copy + 1, nsegs };
	im.r[2] = (struct region){ HEAP, copy + 1 + nsegs, heap_len };
	im.r[3] = (struct region){ META, copy + 1 + nsegs + heap_len, size - 1 - nsegs - heap_len };
	im.r[4] = (struct region){ 0, NULL, 0 };
	memset(&j, 0, sizeof(j));
	if (vm_mem_init(&j.mem, fake_read, &im, nsegs & 1) == 0) {
		struct vm_name_cache nc = { 0 };

		if (vm_snapshot_take(&j, &l, (nsegs & 2) ? &nc : NULL, &s, &e) == 0) {
			for (size_t k = 0; k < s.n; k++) {
				if (s.e[k].start < HEAP || s.e[k].start + s.e[k].size > HEAP + heap_len)
					abort();
				if (k && s.e[k].start < s.e[k - 1].start + s.e[k - 1].size)
					abort();
				if (strlen(vm_entry_name(&s, &s.e[k])) >= VM_MAX_NAME)
					abort();
			}
		}
		vm_snapshot_free(&s);
		vm_name_cache_free(&nc);
		vm_mem_free(&j.mem);
	}
	free(copy);
	return 0;
}
