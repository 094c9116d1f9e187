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

/* The vmStructs entry type::field (static or not), or 0. */
static uintptr_t entry(const struct codeheap_tables *t, const char *type, const char *field,
		       bool is_static)
{
	uintptr_t e = (uintptr_t)t->structs;

	for (int i = 0; i < MAX_ENTRIES; i++, e += t->s_stride) {
		const char *ty = (const char *)rd_ptr(e + t->s_type);
		const char *f = (const char *)rd_ptr(e + t->s_field);

		if (!ty)
			return 0;
		if (f && !strcmp(ty, type) && !strcmp(f, field) &&
		    (rd_i32(e + t->s_static) != 0) == is_static)
			return e;
	}
	return 0;
}

static bool field(const struct codeheap_tables *t, const char *type, const char *name,
		  uint64_t *off)
{
	uintptr_t e = entry(t, type, name, false);

	if (!e)
		return false;
	*off = rd_u64(e + t->s_offset);
	return *off < 65536;
}

static bool type_size(const struct codeheap_tables *t, const char *type, uint64_t *size)
{
	uintptr_t e = (uintptr_t)t->types;

	for (int i = 0; i < MAX_ENTRIES; i++, e += t->t_stride) {
		const char *ty = (const char *)rd_ptr(e + t->t_type);

		if (!ty)
			return false;
		if (!strcmp(ty, type)) {
			*size = rd_u64(e + t->t_size);
			return *size > 0 && *size < 65536;
		}
	}
	return false;
}

int codeheap_setup(const struct codeheap_tables *t)
{
	uintptr_t e;
	uint64_t header, used;
	bool ok;

	memset(&L, 0, sizeof(L));
	if ((e = entry(t, "CodeCache", "_heaps", true)) != 0) {
		L.heaps = rd_ptr(e + t->s_address);
		ok = (field(t, "GrowableArrayBase", "_len", &L.ga_len) ||
		      field(t, "GenericGrowableArray", "_len", &L.ga_len)) &&
		     field(t, "GrowableArray<int>", "_data", &L.ga_data);
	} else if ((e = entry(t, "CodeCache", "_heap", true)) != 0) {
		L.heap = rd_ptr(e + t->s_address);
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
	if (!ok || L.hb_used >= L.hb_size) {
		memset(&L, 0, sizeof(L));
		return -ENOENT;
	}
	return 0;
}

/* The code size of the blob at code_begin in the heap h, or 0. */
static uint64_t lookup_in(uintptr_t h, uint64_t code_begin, uint64_t min_size)
{
	uintptr_t low = rd_ptr(h + L.memory + L.vs_low), high = rd_ptr(h + L.memory + L.vs_high);
	const unsigned char *map = (const unsigned char *)rd_ptr(h + L.segmap + L.vs_low);
	int32_t log2 = rd_i32(h + L.log2seg);
	uintptr_t block, blob, begin, end;
	uint64_t i, span = (L.code_begin > L.code_end ? L.code_begin : L.code_end) + 8;

	if (!low || !map || high <= low || code_begin < low || code_begin >= high ||
	    log2 < 4 || log2 > 20)
		return 0;
	/* Back through the segment map to the start of the block: every
	 * byte is the distance to go back (0 at the start), never past it. */
	i = (code_begin - low) >> log2;
	for (uint64_t hops = 0; map[i] != 0; hops++) {
		if (map[i] == SEG_FREE || map[i] > i || hops > ((high - low) >> log2))
			return 0;
		i -= map[i];
	}
	block = low + (i << log2);
	blob = block + L.hb_size;
	if (blob + span > high || *(const unsigned char *)(block + L.hb_used) == 0)
		return 0;
	if (L.offsets) {
		begin = blob + (uintptr_t)(int64_t)rd_i32(blob + L.code_begin);
		end = blob + (uintptr_t)(int64_t)rd_i32(blob + L.code_end);
	} else {
		begin = rd_ptr(blob + L.code_begin);
		end = rd_ptr(blob + L.code_end);
	}
	if (begin != code_begin || end <= begin || end > high || end - begin < min_size ||
	    end - begin > MAX_CODE)
		return 0;
	return end - begin;
}

uint64_t codeheap_lookup(uint64_t code_begin, uint64_t min_size)
{
	uintptr_t arr, data;
	int32_t n;

	if (L.heap)
		return lookup_in(rd_ptr(L.heap), code_begin, min_size);
	if (!L.heaps || !(arr = rd_ptr(L.heaps)))
		return 0;
	n = rd_i32(arr + L.ga_len);
	data = rd_ptr(arr + L.ga_data);
	for (int32_t k = 0; data && k < n && k < MAX_HEAPS; k++) {
		uintptr_t h = rd_ptr(data + (uintptr_t)k * sizeof(void *));
		uint64_t size = h ? lookup_in(h, code_begin, min_size) : 0;

		if (size)
			return size;
	}
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

/* Fill t from libjvm.so's gHotSpotVM* symbols; 0 or -ENOENT. */
static int jvm_tables(struct codeheap_tables *t)
{
	static const char *const names[] = {
		"gHotSpotVMStructs", "gHotSpotVMStructEntryTypeNameOffset",
		"gHotSpotVMStructEntryFieldNameOffset", "gHotSpotVMStructEntryTypeStringOffset",
		"gHotSpotVMStructEntryIsStaticOffset", "gHotSpotVMStructEntryOffsetOffset",
		"gHotSpotVMStructEntryAddressOffset", "gHotSpotVMStructEntryArrayStride",
		"gHotSpotVMTypes", "gHotSpotVMTypeEntryTypeNameOffset",
		"gHotSpotVMTypeEntrySizeOffset", "gHotSpotVMTypeEntryArrayStride",
	};
	uint64_t *const dst[] = {
		NULL, &t->s_type, &t->s_field, &t->s_typestr, &t->s_static, &t->s_offset,
		&t->s_address, &t->s_stride, NULL, &t->t_type, &t->t_size, &t->t_stride,
	};
	struct dyn d = { 0 };

	if (!dl_iterate_phdr(find_jvm, &d) || !d.symtab || !d.strtab ||
	    (!d.gnu_hash && !d.sysv_hash))
		return -ENOENT;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uintptr_t a = jvm_sym(&d, names[i]);

		if (!a)
			return -ENOENT;
		if (dst[i])
			*dst[i] = rd_u64(a);
		else if (i == 0)
			t->structs = (const char *)rd_ptr(a);
		else
			t->types = (const char *)rd_ptr(a);
	}
	return t->structs && t->types && t->s_stride && t->t_stride ? 0 : -ENOENT;
}

enum { UNTRIED, SETTING_UP, READY, UNAVAILABLE };
static int state = UNTRIED;

uint64_t codeheap_code_size(uint64_t code_begin, uint64_t jvmti_size, int jdk_major)
{
	int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE), want = UNTRIED;
	uint64_t size;

	/* JVMTI reports the whole range itself since JDK 17 (codeheap.h). */
	if (jdk_major >= 17 || s == UNAVAILABLE)
		return jvmti_size;
	if (s == UNTRIED && __atomic_compare_exchange_n(&state, &want, SETTING_UP, false,
							 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		struct codeheap_tables t = { 0 };

		s = jvm_tables(&t) == 0 && codeheap_setup(&t) == 0 ? READY : UNAVAILABLE;
		__atomic_store_n(&state, s, __ATOMIC_RELEASE);
	}
	while (s == SETTING_UP) {       /* another thread: a table walk, well under 1 ms */
		sched_yield();
		s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
	}
	if (s != READY)
		return jvmti_size;
	size = codeheap_lookup(code_begin, jvmti_size);
	return size ? size : jvmti_size;
}
