/* SPDX-License-Identifier: Apache-2.0 */
/* codeheap.c - a compiled method's code_end from HotSpot's own code heap
 * (codeheap.h). */
#include "codeheap.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_ENTRIES 100000      /* vmStructs has about 3000 */
#define MAX_HEAPS 16            /* HotSpot has at most 3 (4 with AOT code) */
#define MAX_CODE (64u << 20)    /* no method's code is that large */
#define SEG_FREE 0xff           /* segment map: no block uses this segment */

/* The layout, set once by codeheap_setup (offsets; 0 where absent). */
static struct {
	uintptr_t heaps;        /* &CodeCache::_heaps: GrowableArray<CodeHeap*>* */
	uintptr_t heap;         /* &CodeCache::_heap: CodeHeap*, JDK 8 */
	uint64_t ga_len, ga_data;
	uint64_t memory, segmap, log2seg;       /* in CodeHeap */
	uint64_t vs_low, vs_high;               /* in VirtualSpace */
	uint64_t hb_size, hb_used;              /* HeapBlock: its size, _header._used */
	bool offsets;           /* int _code_offset/_data_offset (JDK 8, 23+) */
	uint64_t code_begin, code_end;          /* in CodeBlob */
	/* the frame (codeheap_blob_at); width 0 = the field is absent */
	uint64_t frame_size, frame_complete, blob_size, hb_length;
	uint8_t w_frame_size, w_frame_complete, w_blob_size, w_hb_length;
	uint64_t blob_header;   /* sizeof(CodeBlob): no code starts closer */
} L;

static uintptr_t rd_ptr(uintptr_t a)
{
	uintptr_t v;

	memcpy(&v, (const void *)a, sizeof(v));
	return v;
}

static uint64_t rd_u64(uintptr_t a)
{
	uint64_t v;

	memcpy(&v, (const void *)a, sizeof(v));
	return v;
}

static int32_t rd_i32(uintptr_t a)
{
	int32_t v;

	memcpy(&v, (const void *)a, sizeof(v));
	return v;
}

/* The field type::name, static or not, of the tables, or NULL. */
static const struct vm_field *entry(const struct vm_tables *t, const char *type,
				    const char *name, bool is_static)
{
	for (int i = 0; i < t->nfields; i++) {
		const struct vm_field *f = &t->fields[i];

		if (f->is_static == is_static && !strcmp(f->type, type) && !strcmp(f->name, name))
			return f;
	}
	return NULL;
}

static bool field(const struct vm_tables *t, const char *type, const char *name, uint64_t *off)
{
	const struct vm_field *f = entry(t, type, name, false);

	if (!f)
		return false;
	*off = f->offset;
	return *off < 65536;
}

/* A field and the width of its integer type (2, 4 or 8; else false). */
static bool field_w(const struct vm_tables *t, const char *type, const char *name,
		    uint64_t *off, uint8_t *width)
{
	const struct vm_field *f = entry(t, type, name, false);
	const char *ts = f ? f->type_string : "";

	*width = 0;
	if (!f)
		return false;
	*off = f->offset;
	if (!strcmp(ts, "int16_t") || !strcmp(ts, "uint16_t"))
		*width = 2;
	else if (!strcmp(ts, "int") || !strcmp(ts, "int32_t") || !strcmp(ts, "uint32_t"))
		*width = 4;
	else if (!strcmp(ts, "size_t") || !strcmp(ts, "uint64_t") || !strcmp(ts, "intptr_t"))
		*width = 8;
	return *width && *off < 65536;
}

static bool type_size(const struct vm_tables *t, const char *type, uint64_t *size)
{
	const struct vm_type *ty = vm_type_find(t, type);

	if (!ty)
		return false;
	*size = ty->size;
	return *size > 0 && *size < 65536;
}

/* The layout from the tables read (codeheap_setup); 0 or -ENOENT. */
static int layout(const struct vm_tables *t)
{
	const struct vm_field *e;
	uint64_t header, used;
	bool ok;

	memset(&L, 0, sizeof(L));
	if ((e = entry(t, "CodeCache", "_heaps", true)) != NULL) {
		L.heaps = (uintptr_t)e->address;
		ok = (field(t, "GrowableArrayBase", "_len", &L.ga_len) ||
		      field(t, "GenericGrowableArray", "_len", &L.ga_len)) &&
		     field(t, "GrowableArray<int>", "_data", &L.ga_data);
	} else if ((e = entry(t, "CodeCache", "_heap", true)) != NULL) {
		L.heap = (uintptr_t)e->address;
		ok = true;
	} else {
		ok = false;
	}
	ok = ok && (L.heaps || L.heap) &&
	     field(t, "CodeHeap", "_memory", &L.memory) &&
	     field(t, "CodeHeap", "_segmap", &L.segmap) &&
	     field(t, "CodeHeap", "_log2_segment_size", &L.log2seg) &&
	     field(t, "VirtualSpace", "_low_boundary", &L.vs_low) &&
	     field(t, "VirtualSpace", "_high", &L.vs_high) &&
	     type_size(t, "HeapBlock", &L.hb_size) &&
	     field(t, "HeapBlock", "_header", &header) &&
	     field(t, "HeapBlock::Header", "_used", &used);
	if (ok && field(t, "CodeBlob", "_code_offset", &L.code_begin)) {
		L.offsets = true;
		ok = field(t, "CodeBlob", "_data_offset", &L.code_end);
	} else if (ok) {
		ok = field(t, "CodeBlob", "_code_begin", &L.code_begin) &&
		     field(t, "CodeBlob", "_code_end", &L.code_end);
	}
	L.hb_used = header + used;
	/* The frame's fields are optional: without them codeheap_blob_at
	 * says nothing, codeheap_lookup still works. */
	if (ok && field_w(t, "CodeBlob", "_frame_size", &L.frame_size, &L.w_frame_size) &&
	    field_w(t, "CodeBlob", "_frame_complete_offset", &L.frame_complete,
		    &L.w_frame_complete) &&
	    field_w(t, "CodeBlob", "_size", &L.blob_size, &L.w_blob_size) &&
	    field_w(t, "HeapBlock::Header", "_length", &L.hb_length, &L.w_hb_length) &&
	    type_size(t, "CodeBlob", &L.blob_header)) {
		L.hb_length += header;
	} else {
		L.w_frame_size = 0;
	}
	if (!ok || L.hb_used >= L.hb_size) {
		memset(&L, 0, sizeof(L));
		return -ENOENT;
	}
	return 0;
}

int codeheap_setup(struct vm_mem *m, const uint64_t sym[VS_COUNT])
{
	struct vm_tables t;
	int rc = vm_tables_read(m, sym, &t, NULL);

	if (rc == 0)
		rc = layout(&t);
	else
		memset(&L, 0, sizeof(L));
	vm_tables_free(&t);
	return rc;
}

/* A blob of the heap h: where it is and where its code is. */
struct found {
	uintptr_t block, blob, begin, end, high;
	int32_t log2;           /* the heap's segment size */
};

/* The used block of heap h that holds addr, its blob and code range: 0, or
 * -ENOENT (addr is not in h, the block is free, or anything read is off). */
static int find_in(uintptr_t h, uint64_t addr, struct found *f)
{
	uintptr_t low = rd_ptr(h + L.memory + L.vs_low), high = rd_ptr(h + L.memory + L.vs_high);
	const unsigned char *map = (const unsigned char *)rd_ptr(h + L.segmap + L.vs_low);
	int32_t log2 = rd_i32(h + L.log2seg);
	uint64_t i, span = (L.code_begin > L.code_end ? L.code_begin : L.code_end) + 8;

	if (!low || !map || high <= low || addr < low || addr >= high || log2 < 4 || log2 > 20)
		return -ENOENT;
	/* Back through the segment map to the start of the block: every
	 * byte is the distance to go back (0 at the start), never past it. */
	i = (addr - low) >> log2;
	for (uint64_t hops = 0; map[i] != 0; hops++) {
		if (map[i] == SEG_FREE || map[i] > i || hops > ((high - low) >> log2))
			return -ENOENT;
		i -= map[i];
	}
	f->block = low + (i << log2);
	f->log2 = log2;
	f->blob = f->block + L.hb_size;
	f->high = high;
	if (f->blob + span > high || *(const unsigned char *)(f->block + L.hb_used) == 0)
		return -ENOENT;
	if (L.offsets) {
		f->begin = f->blob + (uintptr_t)(int64_t)rd_i32(f->blob + L.code_begin);
		f->end = f->blob + (uintptr_t)(int64_t)rd_i32(f->blob + L.code_end);
	} else {
		f->begin = rd_ptr(f->blob + L.code_begin);
		f->end = rd_ptr(f->blob + L.code_end);
	}
	if (f->end <= f->begin || f->begin < f->blob || f->end > high ||
	    f->end - f->begin > MAX_CODE)
		return -ENOENT;
	return 0;
}

/* find_in over every code heap; 0 or -ENOENT. */
static int find(uint64_t addr, struct found *f)
{
	uintptr_t arr, data;
	int32_t n;

	if (L.heap)
		return find_in(rd_ptr(L.heap), addr, f);
	if (!L.heaps || !(arr = rd_ptr(L.heaps)))
		return -ENOENT;
	n = rd_i32(arr + L.ga_len);
	data = rd_ptr(arr + L.ga_data);
	for (int32_t k = 0; data && k < n && k < MAX_HEAPS; k++) {
		uintptr_t h = rd_ptr(data + (uintptr_t)k * sizeof(void *));

		if (h && find_in(h, addr, f) == 0)
			return 0;
	}
	return -ENOENT;
}

uint64_t codeheap_lookup(uint64_t code_begin, uint64_t min_size)
{
	struct found f;

	if (find(code_begin, &f) < 0 || f.begin != code_begin || f.end - f.begin < min_size)
		return 0;
	return f.end - f.begin;
}

static uint64_t rd_width(uintptr_t a, uint8_t w)
{
	uint16_t v2;
	uint32_t v4;

	if (w == 2) {
		memcpy(&v2, (const void *)a, 2);
		return v2;
	}
	if (w == 4) {
		memcpy(&v4, (const void *)a, 4);
		return v4;
	}
	return rd_u64(a);
}

/* The lowest address where code of another blob than f's may start, now
 * or after the next block is freed and used again: after the next block's
 * header and a CodeBlob's.  0 when the block's length is off. */
static uint64_t next_code(const struct found *f, uint64_t len)
{
	uintptr_t next = f->block + (len << f->log2);
	uint64_t span = (L.code_begin > L.code_end ? L.code_begin : L.code_end) + 8;
	uintptr_t blob = next + L.hb_size;

	if (!len || len > ((f->high - f->block) >> f->log2) || next < f->end)
		return 0;
	if (blob + span > f->high)
		return f->high;     /* the last block of the heap */
	/* Not the code of the blob there now: it may be freed and the block
	 * given to a blob with a smaller header, whose code starts lower. */
	return blob + L.blob_header;
}

int codeheap_blob_lookup(uint64_t addr, struct codeheap_blob *b)
{
	struct found f;
	uint64_t words, len, fc;

	if (!L.w_frame_size || find(addr, &f) < 0 || addr < f.begin || addr >= f.end)
		return -ENOENT;
	words = rd_width(f.blob + L.frame_size, L.w_frame_size);
	fc = rd_width(f.blob + L.frame_complete, L.w_frame_complete);
	len = rd_width(f.block + L.hb_length, L.w_hb_length);
	b->code_begin = f.begin;
	b->code_end = f.end;
	/* an int read as unsigned: a negative one is huge, so it fails too */
	b->frame_words = words >= 2 && words < (1u << 17) ? (uint32_t)words : 0;
	if (L.w_frame_complete == 2)
		fc = (uint64_t)(int64_t)(int16_t)fc;
	else if (L.w_frame_complete == 4)
		fc = (uint64_t)(int64_t)(int32_t)fc;
	b->frame_complete = (int64_t)fc >= 0 && fc < f.end - f.begin ? (int64_t)fc : -1;
	b->limit = next_code(&f, len);
	return 0;
}

/* ---- libjvm.so's exported tables, without libdl ---- */

struct dyn {
	uintptr_t base;
	const ElfW(Sym) *symtab;
	const char *strtab;
	const uint32_t *gnu_hash, *sysv_hash;
};

/* glibc relocates the dynamic section's pointers in place, musl does not. */
static uintptr_t dyn_ptr(uintptr_t base, ElfW(Addr) p)
{
	return p < base ? base + p : p;
}

static const ElfW(Sym) *gnu_lookup(const struct dyn *d, const char *name)
{
	const uint32_t *h = d->gnu_hash;
	uint32_t nb = h[0], symoff = h[1], nbloom = h[2], hash = 5381;
	const uint32_t *buckets = h + 4 + nbloom * (sizeof(ElfW(Addr)) / 4);
	const uint32_t *chain = buckets + nb;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		hash = hash * 33 + *p;
	if (nb == 0)
		return NULL;
	for (uint32_t i = buckets[hash % nb]; i >= symoff && i != 0; i++) {
		uint32_t c = chain[i - symoff];

		if ((c | 1) == (hash | 1) && !strcmp(d->strtab + d->symtab[i].st_name, name))
			return &d->symtab[i];
		if (c & 1)
			break;
	}
	return NULL;
}

static const ElfW(Sym) *sysv_lookup(const struct dyn *d, const char *name)
{
	uint32_t nchain = d->sysv_hash[1];

	for (uint32_t i = 0; i < nchain && i < MAX_ENTRIES * 10; i++)
		if (d->symtab[i].st_name && !strcmp(d->strtab + d->symtab[i].st_name, name))
			return &d->symtab[i];
	return NULL;
}

/* The address of libjvm.so's defined symbol name, or 0. */
static uintptr_t jvm_sym(const struct dyn *d, const char *name)
{
	const ElfW(Sym) *s = d->gnu_hash ? gnu_lookup(d, name) :
			     d->sysv_hash ? sysv_lookup(d, name) : NULL;

	return s && s->st_shndx != SHN_UNDEF && s->st_value ? d->base + s->st_value : 0;
}

static int find_jvm(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct dyn *d = arg;
	const char *n = info->dlpi_name;
	size_t len = n ? strlen(n) : 0;

	if (len < 10 || strcmp(n + len - 10, "/libjvm.so") != 0)
		return 0;
	d->base = info->dlpi_addr;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Dyn) *dy;

		if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
			continue;
		dy = (const ElfW(Dyn) *)(d->base + info->dlpi_phdr[i].p_vaddr);
		for (; dy->d_tag != DT_NULL; dy++) {
			uintptr_t p = dyn_ptr(d->base, dy->d_un.d_ptr);

			if (dy->d_tag == DT_SYMTAB)
				d->symtab = (const ElfW(Sym) *)p;
			else if (dy->d_tag == DT_STRTAB)
				d->strtab = (const char *)p;
			else if (dy->d_tag == DT_GNU_HASH)
				d->gnu_hash = (const uint32_t *)p;
			else if (dy->d_tag == DT_HASH)
				d->sysv_hash = (const uint32_t *)p;
		}
	}
	return 1;
}

/* sym[] from libjvm.so's gHotSpotVM* symbols (vm_tables.h); 0 or -ENOENT. */
static int jvm_symbols(uint64_t sym[VS_COUNT])
{
	struct dyn d = { 0 };

	if (!dl_iterate_phdr(find_jvm, &d) || !d.symtab || !d.strtab ||
	    (!d.gnu_hash && !d.sysv_hash))
		return -ENOENT;
	for (int i = 0; i < VS_COUNT; i++)
		if (!(sym[i] = jvm_sym(&d, vm_table_symbol_names[i])))
			return -ENOENT;
	return 0;
}

/* vm_read_fn over the agent's own memory: process_vm_readv on itself
 * fails with EFAULT where memcpy would crash.  Where a seccomp profile
 * refuses the call, a copy: the addresses are libjvm.so's own tables. */
static int self_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	static int refused;
	struct iovec local = { buf, n }, remote = { (void *)(uintptr_t)addr, n };
	ssize_t k;

	(void)ctx;
	if (!__atomic_load_n(&refused, __ATOMIC_RELAXED)) {
		k = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
		if (k == (ssize_t)n)
			return 0;
		if (k >= 0 || errno == EFAULT)
			return -EFAULT;
		if (errno != ENOSYS && errno != EPERM)
			return -errno;
		__atomic_store_n(&refused, 1, __ATOMIC_RELAXED);
	}
	memcpy(buf, (const void *)(uintptr_t)addr, n);
	return 0;
}

/* The layout from libjvm.so's own tables, read through vm_tables_read. */
static int jvm_setup(void)
{
	uint64_t sym[VS_COUNT];
	struct vm_mem m;
	int rc = jvm_symbols(sym);

	if (rc == 0)
		rc = vm_mem_init(&m, self_read, NULL, false);
	if (rc)
		return rc;
	rc = codeheap_setup(&m, sym);
	vm_mem_free(&m);
	return rc;
}

enum { UNTRIED, SETTING_UP, READY, UNAVAILABLE };
static int state = UNTRIED;

/* Set the layout up from libjvm.so's tables at the first call; is it there? */
static bool ready(void)
{
	int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE), want = UNTRIED;

	if (s == UNTRIED && __atomic_compare_exchange_n(&state, &want, SETTING_UP, false,
							 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		s = jvm_setup() == 0 ? READY : UNAVAILABLE;
		__atomic_store_n(&state, s, __ATOMIC_RELEASE);
	}
	while (s == SETTING_UP || s == UNTRIED) {
		/* another thread: the tables read, 10 to 25 ms (8,000 to
		 * 12,000 process_vm_readv of their rows and names) */
		sched_yield();
		s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
	}
	return s == READY;
}

uint64_t codeheap_code_size(uint64_t code_begin, uint64_t jvmti_size, int jdk_major)
{
	uint64_t size;

	/* JVMTI reports the whole range itself since JDK 17 (codeheap.h). */
	if (jdk_major >= 17 || !ready())
		return jvmti_size;
	size = codeheap_lookup(code_begin, jvmti_size);
	return size ? size : jvmti_size;
}

int codeheap_blob_at(uint64_t addr, struct codeheap_blob *b)
{
	return ready() ? codeheap_blob_lookup(addr, b) : -ENOENT;
}
