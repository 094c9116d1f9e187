/* SPDX-License-Identifier: Apache-2.0 */
/* check_codecache.c - a fake code cache of many blocks (check_codecache.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "check_codecache.h"
#include "vm_write.h"

#define BLOCK 128u                      /* two 64-byte segments */
#define FIXED 0x10000ull                /* _heaps, its array, the CodeHeaps */
#define SEGMAP(h) (0x200000ull + (uint64_t)(h) * 0x10000)
#define CODE(h) (0x1000000ull * (uint64_t)((h) + 1))
#define META 0x40000000ull              /* a method's Method, ConstMethod,
                                           ConstantPool and name: 0x200 */
#define KLASS 0x50000000ull             /* a class's Klass and name: 0x100 */
#define STR 0x60000000ull               /* "nmethod", the descriptor */

/* whole pages, as a process maps them: the reader caches pages */
#define PAGES(n) (((n) + 4095) / 4096 * 4096)
static unsigned char fixed[0x1000], segmap[CODECACHE_HEAPS][0x10000];
static unsigned char code[CODECACHE_HEAPS][PAGES(CODECACHE_BLOCKS * BLOCK)];
static unsigned char meta[PAGES(CODECACHE_METHODS * 0x200)];
static unsigned char klass[PAGES(CODECACHE_CLASSES * 0x100)], str[0x1000];
static int built;
unsigned codecache_names_delay_us;

static void put(unsigned char *p, uint64_t v, int w)
{
	memcpy(p, &v, (size_t)w);
}

/* A Symbol at p: its length, then its bytes. */
static void symbol(unsigned char *p, const char *s)
{
	put(p + 4, strlen(s), 2);
	memcpy(p + 6, s, strlen(s));
}

static int method_of(int h, int b)
{
	return (7 * b + h) % CODECACHE_METHODS;
}

static void build_meta(void)
{
	char s[32];

	memcpy(str, "nmethod", 8);
	symbol(str + 0x40, "(I)V");
	for (int c = 0; c < CODECACHE_CLASSES; c++) {
		unsigned char *k = klass + c * 0x100;

		put(k + 24, KLASS + (uint64_t)c * 0x100 + 0x80, 8);
		snprintf(s, sizeof(s), "pkg/C%d", c);
		symbol(k + 0x80, s);
	}
	for (int m = 0; m < CODECACHE_METHODS; m++) {
		unsigned char *p = meta + m * 0x200;
		uint64_t at = META + (uint64_t)m * 0x200;

		put(p + 8, at + 0x40, 8);                       /* Method -> ConstMethod */
		put(p + 0x40 + 8, at + 0x80, 8);                /* -> ConstantPool */
		put(p + 0x40 + 36, 1, 2);                       /* name index */
		put(p + 0x40 + 38, 2, 2);                       /* descriptor index */
		put(p + 0x80 + 24, KLASS + (uint64_t)(m % CODECACHE_CLASSES) * 0x100, 8);
		put(p + 0x80 + 60, 3, 4);                       /* pool length */
		put(p + 0x80 + 72 + 8, at + 0x100, 8);          /* slot 1: the name */
		put(p + 0x80 + 72 + 16, STR + 0x40, 8);         /* slot 2: "(I)V" */
		snprintf(s, sizeof(s), "m%d", m);
		symbol(p + 0x100, s);
	}
}

void codecache_list_heaps(const int *heap, int n)
{
	put(fixed + 0x100, (uint64_t)n, 4);                     /* _len */
	for (int i = 0; i < n && i < 8; i++)                    /* _data[i] */
		put(fixed + 0x200 + i * 8, FIXED + 0x400 + (uint64_t)heap[i] * 0x200, 8);
}

static void build_heaps(void)
{
	int down[CODECACHE_HEAPS];

	put(fixed, FIXED + 0x100, 8);                           /* _heaps */
	put(fixed + 0x108, FIXED + 0x200, 8);                   /* _data */
	for (int h = 0; h < CODECACHE_HEAPS; h++)
		down[h] = CODECACHE_HEAPS - 1 - h;
	codecache_list_heaps(down, CODECACHE_HEAPS);
	for (int h = 0; h < CODECACHE_HEAPS; h++) {
		unsigned char *ch = fixed + 0x400 + h * 0x200;

		put(ch, CODE(h), 8);                            /* low boundary */
		put(ch + 8, CODE(h) + CODECACHE_BLOCKS * BLOCK, 8);    /* high boundary */
		put(ch + 24, CODE(h) + CODECACHE_BLOCKS * BLOCK, 8);   /* high */
		put(ch + 112, SEGMAP(h), 8);
		put(ch + 248, 6, 4);                            /* 64-byte segments */
		for (int b = 0; b < CODECACHE_BLOCKS; b++) {
			unsigned char *blk = code[h] + b * BLOCK;

			segmap[h][2 * b] = 0;
			segmap[h][2 * b + 1] = 1;
			put(blk, 2, 4);                         /* 2 segments */
			blk[4] = 1;                             /* used */
			put(blk + 8 + 8, STR, 8);               /* "nmethod" */
			put(blk + 8 + 24, BLOCK - 8, 4);        /* size */
			put(blk + 8 + 36, 64, 4);               /* code offsets */
			put(blk + 8 + 40, 112, 4);
			blk[8 + 56] = 1;                        /* kind: nmethod */
			put(blk + 8 + 80, META + (uint64_t)method_of(h, b) * 0x200, 8);
		}
	}
}

void codecache_layout(struct vm_layout *l, uint64_t heaps_addr)
{
	*l = (struct vm_layout){
		.heaps_addr = heaps_addr, .ga_len = { 0, 4 }, .ga_data = { 8, 8 },
		.heap_segmap = 112, .heap_log2seg = { 248, 4 },
		.vs_low_boundary = { 0, 8 }, .vs_high_boundary = { 8, 8 }, .vs_high = { 24, 8 },
		.hb_size = 8, .hb_length = { 0, 4 }, .hb_used = { 4, 1 },
		.cb_name = { 8, 8 }, .cb_size = { 24, 4 }, .code_offsets = true,
		.cb_code_begin = { 36, 4 }, .cb_code_end = { 40, 4 }, .has_kind = true,
		.cb_kind = { 56, 1 }, .kind_nmethod = 1, .nm_method = { 80, 8 },
		.blob_span = 57, .nm_span = 88, .m_const_method = { 8, 8 },
		.cm_constants = { 8, 8 }, .cm_name_index = { 36, 2 }, .cm_sig_index = { 38, 2 },
		.cp_holder = { 24, 8 }, .cp_length = { 60, 4 }, .cp_size = 72, .k_name = { 24, 8 },
		.sym_length = { 4, 2 }, .sym_body = 6,
	};
}

void codecache_build(struct vm_layout *l)
{
	codecache_layout(l, FIXED);
	if (built)
		return;
	build_meta();
	build_heaps();
	built = 1;
}

int codecache_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	struct {
		uint64_t base;
		const unsigned char *p;
		size_t n;
	} r[4 + 2 * CODECACHE_HEAPS] = {
		{ FIXED, fixed, sizeof(fixed) }, { META, meta, sizeof(meta) },
		{ KLASS, klass, sizeof(klass) }, { STR, str, sizeof(str) },
	};

	(void)ctx;
	for (int h = 0; h < CODECACHE_HEAPS; h++) {
		r[4 + 2 * h] = (typeof(r[0])){ SEGMAP(h), segmap[h], sizeof(segmap[h]) };
		r[5 + 2 * h] = (typeof(r[0])){ CODE(h), code[h], sizeof(code[h]) };
	}
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		if (addr >= r[i].base && addr - r[i].base <= r[i].n &&
		    n <= r[i].n - (addr - r[i].base)) {
			memcpy(buf, r[i].p + (addr - r[i].base), n);
			return 0;
		}
	return -EFAULT;
}

/* vm_readv_fn over the fake: the ranges back to back, up to the first one
 * not readable. */
static ssize_t codecache_readv(void *ctx, const struct vm_range *r, size_t n, void *buf)
{
	unsigned char *out = buf;
	size_t got = 0;

	for (size_t i = 0; codecache_names_delay_us && i < n; i++)
		if (r[i].addr >= META && r[i].addr < META + sizeof(meta)) {
			usleep(codecache_names_delay_us);
			break;
		}
	for (size_t i = 0; i < n; i++) {
		if (codecache_read(ctx, r[i].addr, out + got, r[i].len))
			return got ? (ssize_t)got : -EFAULT;
		got += r[i].len;
	}
	return (ssize_t)got;
}

void codecache_name(int h, int b, char *out, size_t cap)
{
	int m = method_of(h, b);

	snprintf(out, cap, "void pkg.C%d.m%d(int)", m % CODECACHE_CLASSES, m);
}

int codecache_jvm(struct vm_jvm *j, bool threaded)
{
	int rc;

	memset(j, 0, sizeof(*j));
	rc = vm_mem_init(&j->mem, codecache_read, NULL, true);
	j->mem.readv = codecache_readv;
	j->name_thread = threaded;
	return rc;
}

struct rendering {
	struct vm_map_text tx;
	int calls;
};

static void render_settled(void *ctx, const struct vm_snapshot *s)
{
	struct rendering *r = ctx;

	r->calls++;
	vm_map_render_more(s, s->settled, &r->tx);
}

int codecache_take_rendering(struct vm_jvm *j, const struct vm_layout *l,
			     struct vm_snapshot *s, int *idles)
{
	struct rendering r = { { 0 }, 0 };
	struct err_text e = { "" };
	char *full = NULL;
	int rc = -1;

	*s = (struct vm_snapshot){ .idle = render_settled, .idle_ctx = &r };
	if (vm_snapshot_take(j, l, NULL, s, &e))
		fprintf(stderr, "codecache: the snapshot failed: %s\n", e.msg);
	else if (vm_map_text_finish(s, &r.tx) || vm_map_render(s, &full) < 0)
		fprintf(stderr, "codecache: out of memory\n");
	else if (strcmp(r.tx.buf, full))
		fprintf(stderr, "codecache: the map rendered while the walk waited (%d calls) "
			"is not the map rendered at its end\n", r.calls);
	else
		rc = 0;
	*idles = r.calls;
	free(r.tx.buf);
	free(full);
	return rc;
}
