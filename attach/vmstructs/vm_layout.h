/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vm_layout.h - the offsets, sizes and widths `jsym map` needs, taken from
 * a JVM's serviceability tables (vm_tables.h).  Nothing here is a constant
 * of one JDK build: each field names the vmStructs entry it comes from
 * (docs/map.md lists them), and where HotSpot changed shape (CodeBlob kept
 * code_begin/code_end pointers up to JDK 22 and keeps offsets since JDK 23;
 * JDK 8 has one CodeCache::_heap, JDK 9-15 name the array's base class
 * GenericGrowableArray) both shapes are recognised.
 */
#ifndef JSYM_VM_LAYOUT_H
#define JSYM_VM_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "base.h"
#include "vm_tables.h"

/* One non-static field: where and how wide (1, 2, 4 or 8 bytes). */
struct vm_fld {
	uint32_t off;
	uint8_t width;
};

struct vm_layout {
	/* where the code heaps are */
	uint64_t heaps_addr;            /* CodeCache::_heaps (GrowableArray<CodeHeap*>*) */
	uint64_t heap_addr;             /* CodeCache::_heap (CodeHeap*), JDK 8; 0 if absent */
	struct vm_fld ga_len, ga_data;  /* GrowableArrayBase::_len (GenericGrowableArray::_len
					 * up to JDK 15), GrowableArray<int>::_data */
	uint32_t heap_memory, heap_segmap;      /* CodeHeap::_memory, ::_segmap (VirtualSpace) */
	struct vm_fld heap_log2seg;     /* CodeHeap::_log2_segment_size */
	struct vm_fld vs_low_boundary, vs_high_boundary, vs_high;       /* VirtualSpace */
	/* heap blocks */
	uint32_t hb_size;               /* sizeof(HeapBlock): the blob follows it */
	struct vm_fld hb_length, hb_used;       /* HeapBlock::_header + Header::_length/_used */
	/* code blobs */
	struct vm_fld cb_name, cb_size;
	bool code_offsets;              /* _code_offset/_data_offset (JDK 23+) */
	struct vm_fld cb_code_begin, cb_code_end;       /* pointers, or the offsets */
	bool has_kind;
	struct vm_fld cb_kind;          /* CodeBlob::_kind (JDK 23+) */
	int64_t kind_nmethod;           /* CodeBlobKind::Nmethod */
	struct vm_fld nm_method;        /* nmethod::_method or CompiledMethod::_method */
	bool has_state;
	struct vm_fld nm_state;         /* nmethod::_state */
	uint32_t blob_span;             /* bytes of any blob's header jsym reads */
	uint32_t nm_span;               /* ... and of an nmethod's (>= blob_span) */
	/* metadata: Method -> ConstMethod -> ConstantPool -> Symbols */
	struct vm_fld m_const_method, cm_constants, cm_name_index, cm_sig_index;
	struct vm_fld cp_holder, cp_length, k_name, sym_length;
	uint32_t cp_size;               /* sizeof(ConstantPool): its slots follow */
	uint32_t sym_body;              /* Symbol::_body */
};

/*
 * Fill l from t.  Returns 0 or -ENOENT/-EPROTO with e naming the first
 * entry that is missing or out of bounds (every offset must be below
 * 64 KiB, every width 1, 2, 4 or 8).
 */
int vm_layout_from_tables(const struct vm_tables *t, struct vm_layout *l, struct err_text *e);

/* A field's value from a copy of the structure: buf[len] holds it at 0. */
uint64_t vm_fld_get(const unsigned char *buf, size_t len, struct vm_fld f);

/* nmethod states below this are alive: what Compiler.perfmap's only_alive
 * iterator keeps.  Since JDK 9: in_use 0, not_used 1, not_entrant 2, zombie
 * 3 and unloaded 4 (up to JDK 19).  JDK 8, the one JDK with a single
 * CodeCache::_heap, has no not_used: in_use 0, not_entrant 1, zombie 2,
 * unloaded 3 (a zombie there counted as alive kept 15 of 1306 Java
 * methods in the map that the agent had unloaded).  A state enum, not a
 * layout: vmStructs does not export it. */
#define VM_NMETHOD_ZOMBIE 3
#define VM_NMETHOD_ZOMBIE_JDK8 2

#endif
