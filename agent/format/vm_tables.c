/* SPDX-License-Identifier: Apache-2.0 */
/* vm_tables.c - HotSpot's serviceability tables, read from a live JVM. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "errtext.h"
#include "vm_tables.h"

const char *const vm_table_symbol_names[VS_COUNT] = {
	[VS_STRUCTS] = "gHotSpotVMStructs",
	[VS_S_TYPE] = "gHotSpotVMStructEntryTypeNameOffset",
	[VS_S_FIELD] = "gHotSpotVMStructEntryFieldNameOffset",
	[VS_S_TYPESTR] = "gHotSpotVMStructEntryTypeStringOffset",
	[VS_S_STATIC] = "gHotSpotVMStructEntryIsStaticOffset",
	[VS_S_OFFSET] = "gHotSpotVMStructEntryOffsetOffset",
	[VS_S_ADDRESS] = "gHotSpotVMStructEntryAddressOffset",
	[VS_S_STRIDE] = "gHotSpotVMStructEntryArrayStride",
	[VS_TYPES] = "gHotSpotVMTypes",
	[VS_T_TYPE] = "gHotSpotVMTypeEntryTypeNameOffset",
	[VS_T_SUPER] = "gHotSpotVMTypeEntrySuperclassNameOffset",
	[VS_T_SIZE] = "gHotSpotVMTypeEntrySizeOffset",
	[VS_T_STRIDE] = "gHotSpotVMTypeEntryArrayStride",
	[VS_INTS] = "gHotSpotVMIntConstants",
	[VS_I_NAME] = "gHotSpotVMIntConstantEntryNameOffset",
	[VS_I_VALUE] = "gHotSpotVMIntConstantEntryValueOffset",
	[VS_I_STRIDE] = "gHotSpotVMIntConstantEntryArrayStride",
	[VS_LONGS] = "gHotSpotVMLongConstants",
	[VS_L_NAME] = "gHotSpotVMLongConstantEntryNameOffset",
	[VS_L_VALUE] = "gHotSpotVMLongConstantEntryValueOffset",
	[VS_L_STRIDE] = "gHotSpotVMLongConstantEntryArrayStride",
};

/* Copy s into the arena; returns its offset (+1; 0 = failure). */
static size_t keep(struct vm_tables *t, const char *s, size_t len)
{
	size_t at;

	if (t->arena_len + len + 1 > t->arena_cap) {
		size_t cap = t->arena_cap ? t->arena_cap * 2 : 64 * 1024;
		char *p;

		while (cap < t->arena_len + len + 1)
			cap *= 2;
		if (cap > (8u << 20) || !(p = realloc(t->arena, cap)))
			return 0;
		t->arena = p;
		t->arena_cap = cap;
	}
	at = t->arena_len;
	memcpy(t->arena + at, s, len + 1);
	t->arena_len += len + 1;
	return at + 1;
}

/* Read a pointer column and the string it points to; 0 when the pointer
 * is NULL (*off = 0), 1 with *off set, -errno. */
static int str_col(struct vm_mem *m, struct vm_tables *t, uint64_t row, uint64_t col,
		   size_t *off)
{
	char buf[VM_TABLE_MAX_NAME];
	uint64_t p;
	int rc = vm_read_u64(m, row + col, &p);

	*off = 0;
	if (rc)
		return rc;
	if (p == 0)
		return 0;
	rc = vm_read_cstr(m, p, buf, sizeof(buf));
	if (rc < 0)
		return rc;
	*off = keep(t, buf, (size_t)rc);
	return *off ? 1 : -ENOMEM;
}

static int read_globals(struct vm_mem *m, const uint64_t sym[VS_COUNT], uint64_t val[VS_COUNT],
			struct err_text *e)
{
	for (int i = 0; i < VS_COUNT; i++) {
		int rc;

		if (!sym[i])
			return err_set(e, -ENOENT, "libjvm.so does not export %s: not a "
				       "HotSpot JVM with serviceability tables",
				       vm_table_symbol_names[i]);
		rc = vm_read_u64(m, sym[i], &val[i]);
		if (rc)
			return err_set(e, rc, "cannot read %s in the JVM: %s",
				       vm_table_symbol_names[i], strerror(-rc));
	}
	return 0;
}

/* Columns must lie inside a row of sane size: the globals are the JVM's. */
static int check_geo(const uint64_t val[VS_COUNT], int stride, const int *cols, int ncols,
		     const unsigned *widths, struct err_text *e)
{
	uint64_t s = val[stride];

	if (s < 8 || s > VM_TABLE_MAX_STRIDE || s % 4)
		return err_set(e, -EPROTO, "%s is %llu: not a table stride",
			       vm_table_symbol_names[stride], (unsigned long long)s);
	for (int i = 0; i < ncols; i++)
		if (val[cols[i]] > s - widths[i])
			return err_set(e, -EPROTO, "%s is %llu, past the stride %llu",
				       vm_table_symbol_names[cols[i]],
				       (unsigned long long)val[cols[i]],
				       (unsigned long long)s);
	return 0;
}

static int grow(void **arr, int n, size_t elem)
{
	void *p;

	if (n % 256)
		return 0;
	p = realloc(*arr, (size_t)(n + 256) * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	return 0;
}

/*
 * While a table is read the arena may move, so string columns hold arena
 * offsets + 1 cast to pointers (0: no string); fix_strings() turns them
 * into pointers once every table is in.
 */
#define ARENA_REF(off) ((const char *)(uintptr_t)(off))

static const char *fix(const struct vm_tables *t, const char *ref)
{
	uintptr_t off = (uintptr_t)ref;

	return off ? t->arena + off - 1 : "";
}

static void fix_strings(struct vm_tables *t)
{
	for (int i = 0; i < t->nfields; i++) {
		t->fields[i].type = fix(t, t->fields[i].type);
		t->fields[i].name = fix(t, t->fields[i].name);
		t->fields[i].type_string = fix(t, t->fields[i].type_string);
	}
	for (int i = 0; i < t->ntypes; i++) {
		t->types[i].name = fix(t, t->types[i].name);
		t->types[i].super = fix(t, t->types[i].super);
	}
	for (int i = 0; i < t->nints; i++)
		t->ints[i].name = fix(t, t->ints[i].name);
	for (int i = 0; i < t->nlongs; i++)
		t->longs[i].name = fix(t, t->longs[i].name);
}

static int read_fields(struct vm_mem *m, const uint64_t v[VS_COUNT], struct vm_tables *t)
{
	for (int i = 0;; i++) {
		uint64_t row = v[VS_STRUCTS] + (uint64_t)i * v[VS_S_STRIDE], st;
		size_t ty, name, ts;
		struct vm_field *f;
		int rc;

		if (i >= VM_TABLE_MAX_ENTRIES)
			return -E2BIG;
		if ((rc = grow((void **)&t->fields, i, sizeof(*t->fields))))
			return rc;
		rc = str_col(m, t, row, v[VS_S_TYPE], &ty);
		if (rc == 0)    /* the NULL type name ends the table */
			return 0;
		if (rc < 0 || (rc = str_col(m, t, row, v[VS_S_FIELD], &name)) < 0 ||
		    (rc = str_col(m, t, row, v[VS_S_TYPESTR], &ts)) < 0)
			return rc;
		f = &t->fields[i];
		f->type = ARENA_REF(ty);
		f->name = ARENA_REF(name);
		f->type_string = ARENA_REF(ts);
		if ((rc = vm_read_uint(m, row + v[VS_S_STATIC], 4, &st)) ||
		    (rc = vm_read_u64(m, row + v[VS_S_OFFSET], &f->offset)) ||
		    (rc = vm_read_u64(m, row + v[VS_S_ADDRESS], &f->address)))
			return rc;
		f->is_static = st != 0;
		t->nfields = i + 1;
	}
}

static int read_types(struct vm_mem *m, const uint64_t v[VS_COUNT], struct vm_tables *t)
{
	for (int i = 0;; i++) {
		uint64_t row = v[VS_TYPES] + (uint64_t)i * v[VS_T_STRIDE];
		size_t name, super;
		int rc;

		if (i >= VM_TABLE_MAX_ENTRIES)
			return -E2BIG;
		if ((rc = grow((void **)&t->types, i, sizeof(*t->types))))
			return rc;
		rc = str_col(m, t, row, v[VS_T_TYPE], &name);
		if (rc == 0)
			return 0;
		if (rc < 0 || (rc = str_col(m, t, row, v[VS_T_SUPER], &super)) < 0)
			return rc;
		t->types[i].name = ARENA_REF(name);
		t->types[i].super = ARENA_REF(super);
		if ((rc = vm_read_u64(m, row + v[VS_T_SIZE], &t->types[i].size)))
			return rc;
		t->ntypes = i + 1;
	}
}

/* The int (width 4, signed) or long (width 8) constants. */
static int read_consts(struct vm_mem *m, struct vm_tables *t, const uint64_t v[VS_COUNT],
		       bool longs)
{
	uint64_t base = v[longs ? VS_LONGS : VS_INTS];
	uint64_t stride = v[longs ? VS_L_STRIDE : VS_I_STRIDE];
	uint64_t name_col = v[longs ? VS_L_NAME : VS_I_NAME];
	uint64_t value_col = v[longs ? VS_L_VALUE : VS_I_VALUE];
	struct vm_const **arr = longs ? &t->longs : &t->ints;
	int *n = longs ? &t->nlongs : &t->nints;

	for (int i = 0;; i++) {
		uint64_t row = base + (uint64_t)i * stride, val;
		size_t name;
		int rc;

		if (i >= VM_TABLE_MAX_ENTRIES)
			return -E2BIG;
		if ((rc = grow((void **)arr, i, sizeof(**arr))))
			return rc;
		rc = str_col(m, t, row, name_col, &name);
		if (rc == 0)
			return 0;
		if (rc < 0 || (rc = vm_read_uint(m, row + value_col, longs ? 8 : 4, &val)))
			return rc;
		(*arr)[i].name = ARENA_REF(name);
		(*arr)[i].value = longs ? (int64_t)val : (int64_t)(int32_t)(uint32_t)val;
		*n = i + 1;
	}
}

int vm_tables_read(struct vm_mem *m, const uint64_t sym[VS_COUNT], struct vm_tables *t,
		   struct err_text *e)
{
	static const int s_cols[] = { VS_S_TYPE, VS_S_FIELD, VS_S_TYPESTR, VS_S_STATIC,
				      VS_S_OFFSET, VS_S_ADDRESS };
	static const unsigned s_w[] = { 8, 8, 8, 4, 8, 8 };
	static const int t_cols[] = { VS_T_TYPE, VS_T_SUPER, VS_T_SIZE };
	static const unsigned t_w[] = { 8, 8, 8 };
	static const int i_cols[] = { VS_I_NAME, VS_I_VALUE }, l_cols[] = { VS_L_NAME, VS_L_VALUE };
	static const unsigned i_w[] = { 8, 4 }, l_w[] = { 8, 8 };
	uint64_t v[VS_COUNT];
	const char *what = "gHotSpotVMStructs";
	int rc;

	memset(t, 0, sizeof(*t));
	rc = read_globals(m, sym, v, e);
	if (rc == 0)
		rc = check_geo(v, VS_S_STRIDE, s_cols, 6, s_w, e);
	if (rc == 0)
		rc = check_geo(v, VS_T_STRIDE, t_cols, 3, t_w, e);
	if (rc == 0)
		rc = check_geo(v, VS_I_STRIDE, i_cols, 2, i_w, e);
	if (rc == 0)
		rc = check_geo(v, VS_L_STRIDE, l_cols, 2, l_w, e);
	if (rc)
		return rc;
	rc = read_fields(m, v, t);
	if (rc == 0) {
		what = "gHotSpotVMTypes";
		rc = read_types(m, v, t);
	}
	if (rc == 0) {
		what = "gHotSpotVMIntConstants";
		rc = read_consts(m, t, v, false);
	}
	if (rc == 0) {
		what = "gHotSpotVMLongConstants";
		rc = read_consts(m, t, v, true);
	}
	if (rc == -E2BIG)
		return err_set(e, rc, "%s has more than %d entries: not a table jsym "
			       "trusts", what, VM_TABLE_MAX_ENTRIES);
	if (rc == -ENAMETOOLONG || rc == -EILSEQ)
		return err_set(e, -EPROTO, "%s holds a name that is not a short "
			       "printable string: not a table jsym trusts", what);
	if (rc)
		return err_set(e, rc, "cannot read %s in the JVM: %s", what, strerror(-rc));
	if (t->nfields == 0 || t->ntypes == 0)
		return err_set(e, -EPROTO, "the JVM's %s is empty", t->nfields ?
			       "gHotSpotVMTypes" : "gHotSpotVMStructs");
	fix_strings(t);
	return 0;
}

void vm_tables_free(struct vm_tables *t)
{
	free(t->fields);
	free(t->types);
	free(t->ints);
	free(t->longs);
	free(t->arena);
	memset(t, 0, sizeof(*t));
}

const struct vm_field *vm_field_find(const struct vm_tables *t, const char *type,
				     const char *name)
{
	for (int i = 0; i < t->nfields; i++)
		if (!strcmp(t->fields[i].type, type) && !strcmp(t->fields[i].name, name))
			return &t->fields[i];
	return NULL;
}

const struct vm_type *vm_type_find(const struct vm_tables *t, const char *name)
{
	for (int i = 0; i < t->ntypes; i++)
		if (!strcmp(t->types[i].name, name))
			return &t->types[i];
	return NULL;
}

static bool find_const(const struct vm_const *c, int n, const char *name, int64_t *value)
{
	for (int i = 0; i < n; i++) {
		if (!strcmp(c[i].name, name)) {
			*value = c[i].value;
			return true;
		}
	}
	return false;
}

bool vm_int_const(const struct vm_tables *t, const char *name, int64_t *value)
{
	return find_const(t->ints, t->nints, name, value);
}
