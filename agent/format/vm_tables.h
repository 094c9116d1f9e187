/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vm_tables.h - HotSpot's serviceability tables, read from a live JVM.
 *
 * libjvm.so exports four tables that describe its own data structures for
 * the serviceability agent (hotspot/share/runtime/vmStructs.cpp):
 * gHotSpotVMStructs (type, field, field type, static?, offset, address),
 * gHotSpotVMTypes (name, superclass, size), gHotSpotVMIntConstants and
 * gHotSpotVMLongConstants, plus globals giving each table's entry stride
 * and the offset of every column.  jsym takes every layout it needs from
 * here, never from per-build constants: `jsym map` from another process,
 * the agent (agent/jvm/codeheap.c) from its own JVM, with this one reader.
 * The tables live in the target and are read as untrusted: counts,
 * strides, offsets and strings are bounded.
 */
#ifndef JSYM_VM_TABLES_H
#define JSYM_VM_TABLES_H

#include <stdbool.h>
#include <stdint.h>

#include "errtext.h"
#include "vm_mem.h"

/* The exported symbols, in the order of vm_table_symbol_names. */
enum vm_sym {
	VS_STRUCTS, VS_S_TYPE, VS_S_FIELD, VS_S_TYPESTR, VS_S_STATIC, VS_S_OFFSET,
	VS_S_ADDRESS, VS_S_STRIDE,
	VS_TYPES, VS_T_TYPE, VS_T_SUPER, VS_T_SIZE, VS_T_STRIDE,
	VS_INTS, VS_I_NAME, VS_I_VALUE, VS_I_STRIDE,
	VS_LONGS, VS_L_NAME, VS_L_VALUE, VS_L_STRIDE,
	VS_COUNT
};

extern const char *const vm_table_symbol_names[VS_COUNT];

#define VM_TABLE_MAX_ENTRIES 20000
#define VM_TABLE_MAX_NAME 256
#define VM_TABLE_MAX_STRIDE 512

struct vm_field {
	const char *type, *name, *type_string;  /* type_string may be "" */
	bool is_static;
	uint64_t offset;        /* non-static: offset in the type */
	uint64_t address;       /* static: address of the field */
};

struct vm_type {
	const char *name, *super;   /* super may be "" */
	uint64_t size;
};

struct vm_const {
	const char *name;
	int64_t value;
};

struct vm_tables {
	struct vm_field *fields;
	struct vm_type *types;
	struct vm_const *ints, *longs;
	int nfields, ntypes, nints, nlongs;
	char *arena;            /* every string above */
	size_t arena_len, arena_cap;
};

/*
 * Read all four tables through m; sym[] holds the absolute address of each
 * exported symbol in the target (0: missing).  Returns 0, or -errno with e
 * set (-ENOENT: a symbol missing, -EPROTO: a table or column out of bounds,
 * -E2BIG: more than VM_TABLE_MAX_ENTRIES, -EFAULT: unreadable).  Free with
 * vm_tables_free() (also after a failure).
 */
int vm_tables_read(struct vm_mem *m, const uint64_t sym[VS_COUNT], struct vm_tables *t,
		   struct err_text *e);
void vm_tables_free(struct vm_tables *t);

/* Lookups (NULL / false when absent). */
const struct vm_field *vm_field_find(const struct vm_tables *t, const char *type,
				     const char *name);
const struct vm_type *vm_type_find(const struct vm_tables *t, const char *name);
bool vm_int_const(const struct vm_tables *t, const char *name, int64_t *value);

#endif
