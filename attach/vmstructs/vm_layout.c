/* SPDX-License-Identifier: Apache-2.0 */
/* vm_layout.c - the layouts `jsym map` needs, from the JVM's tables. */
#include <errno.h>
#include <string.h>

#include "vm_layout.h"

#define MAX_OFFSET 65536u

struct ctx {
	const struct vm_tables *t;
	struct err_text *e;
	int rc;
};

/* The width of a field's C type: its size in gHotSpotVMTypes, a pointer,
 * or "volatile T" as T. */
static int type_width(const struct vm_tables *t, const char *ts)
{
	const struct vm_type *ty;
	size_t n = strlen(ts);

	if (!strncmp(ts, "volatile ", 9))
		ts += 9;
	if (n && ts[strlen(ts) - 1] == '*')
		ts = "address";
	ty = vm_type_find(t, ts);
	if (!ty && !strcmp(ts, "signed char"))
		ty = vm_type_find(t, "jbyte");
	/* JDK 8's nmethod::_state is a "volatile unsigned char", a type its
	 * vmTypes do not list; a char is one byte in every C ABI */
	if (!ty && (!strcmp(ts, "unsigned char") || !strcmp(ts, "signed char")))
		return 1;
	if (!ty)
		return -1;
	return ty->size == 1 || ty->size == 2 || ty->size == 4 || ty->size == 8 ?
	       (int)ty->size : -1;
}

static const struct vm_field *find(struct ctx *c, const char *type, const char *name,
				   bool want_static, bool optional)
{
	const struct vm_field *f = vm_field_find(c->t, type, name);

	if (c->rc)
		return NULL;
	if (f && f->is_static == want_static && (want_static || f->offset < MAX_OFFSET))
		return f;
	if (!optional)
		c->rc = err_set(c->e, f ? -EPROTO : -ENOENT, "the JVM's vmStructs %s "
				"%s::%s: jsym cannot read this JDK's code cache",
				f ? "has an unexpected" : "lack", type, name);
	return NULL;
}

/* A non-static field; with width_type NULL the width comes from its own
 * type string.  false (and c->rc set unless optional) when missing. */
static bool fld(struct ctx *c, const char *type, const char *name, struct vm_fld *out,
		bool optional)
{
	const struct vm_field *f = find(c, type, name, false, optional);
	int w;

	if (!f)
		return false;
	w = type_width(c->t, f->type_string);
	if (w < 0) {
		if (!optional)
			c->rc = err_set(c->e, -EPROTO, "the JVM's vmStructs give %s::%s "
					"the type '%s' of unknown size", type, name,
					f->type_string);
		return false;
	}
	out->off = (uint32_t)f->offset;
	out->width = (uint8_t)w;
	return true;
}

static uint32_t type_size(struct ctx *c, const char *name)
{
	const struct vm_type *ty = vm_type_find(c->t, name);

	if (c->rc)
		return 0;
	if (!ty || ty->size == 0 || ty->size >= MAX_OFFSET) {
		c->rc = err_set(c->e, ty ? -EPROTO : -ENOENT, "the JVM's vmTypes %s %s",
				ty ? "give an unexpected size for" : "lack", name);
		return 0;
	}
	return (uint32_t)ty->size;
}

/* The offset of an embedded structure (no width). */
static uint32_t embedded(struct ctx *c, const char *type, const char *name)
{
	const struct vm_field *f = find(c, type, name, false, false);

	return f ? (uint32_t)f->offset : 0;
}

static void span(uint32_t *span, struct vm_fld f)
{
	if (f.width && f.off + f.width > *span)
		*span = f.off + f.width;
}

static void code_cache(struct ctx *c, struct vm_layout *l)
{
	const struct vm_field *h = find(c, "CodeCache", "_heaps", true, true);

	if (h) {
		l->heaps_addr = h->address;
		/* GenericGrowableArray up to JDK 15, GrowableArrayBase since */
		if (!fld(c, "GrowableArrayBase", "_len", &l->ga_len, true))
			fld(c, "GenericGrowableArray", "_len", &l->ga_len, false);
		fld(c, "GrowableArray<int>", "_data", &l->ga_data, false);
	} else {
		h = find(c, "CodeCache", "_heap", true, false);
		if (h)
			l->heap_addr = h->address;
	}
	/* VirtualSpace fields are embedded structures: their offsets only */
	l->heap_memory = embedded(c, "CodeHeap", "_memory");
	l->heap_segmap = embedded(c, "CodeHeap", "_segmap");
	fld(c, "CodeHeap", "_log2_segment_size", &l->heap_log2seg, false);
	fld(c, "VirtualSpace", "_low_boundary", &l->vs_low_boundary, false);
	fld(c, "VirtualSpace", "_high_boundary", &l->vs_high_boundary, false);
	fld(c, "VirtualSpace", "_high", &l->vs_high, false);
	l->hb_size = type_size(c, "HeapBlock");
	if (fld(c, "HeapBlock::Header", "_length", &l->hb_length, false) &&
	    fld(c, "HeapBlock::Header", "_used", &l->hb_used, false)) {
		const struct vm_field *hdr = find(c, "HeapBlock", "_header", false, false);

		if (hdr) {
			l->hb_length.off += (uint32_t)hdr->offset;
			l->hb_used.off += (uint32_t)hdr->offset;
		}
	}
	if (!c->rc && (l->hb_length.off + l->hb_length.width > l->hb_size ||
		       l->hb_used.off + l->hb_used.width > l->hb_size))
		c->rc = err_set(c->e, -EPROTO, "HeapBlock's header lies outside HeapBlock");
}

static void blobs(struct ctx *c, struct vm_layout *l)
{
	fld(c, "CodeBlob", "_name", &l->cb_name, false);
	fld(c, "CodeBlob", "_size", &l->cb_size, false);
	if (fld(c, "CodeBlob", "_code_offset", &l->cb_code_begin, true)) {
		l->code_offsets = true;
		fld(c, "CodeBlob", "_data_offset", &l->cb_code_end, false);
	} else {
		fld(c, "CodeBlob", "_code_begin", &l->cb_code_begin, false);
		fld(c, "CodeBlob", "_code_end", &l->cb_code_end, false);
	}
	if (fld(c, "CodeBlob", "_kind", &l->cb_kind, true)) {
		l->has_kind = vm_int_const(c->t, "CodeBlobKind::Nmethod", &l->kind_nmethod);
		if (!l->has_kind && !c->rc)
			c->rc = err_set(c->e, -ENOENT, "the JVM exports CodeBlob::_kind but "
					"not CodeBlobKind::Nmethod");
	}
	if (!fld(c, "nmethod", "_method", &l->nm_method, true))
		fld(c, "CompiledMethod", "_method", &l->nm_method, false);
	l->has_state = fld(c, "nmethod", "_state", &l->nm_state, true);
	span(&l->blob_span, l->cb_name);
	span(&l->blob_span, l->cb_size);
	span(&l->blob_span, l->cb_code_begin);
	span(&l->blob_span, l->cb_code_end);
	span(&l->blob_span, l->cb_kind);
	l->nm_span = l->blob_span;
	span(&l->nm_span, l->nm_method);
	span(&l->nm_span, l->nm_state);
}

static void metadata(struct ctx *c, struct vm_layout *l)
{
	const struct vm_field *body;

	fld(c, "Method", "_constMethod", &l->m_const_method, false);
	fld(c, "ConstMethod", "_constants", &l->cm_constants, false);
	fld(c, "ConstMethod", "_name_index", &l->cm_name_index, false);
	fld(c, "ConstMethod", "_signature_index", &l->cm_sig_index, false);
	fld(c, "ConstantPool", "_pool_holder", &l->cp_holder, false);
	fld(c, "ConstantPool", "_length", &l->cp_length, false);
	fld(c, "Klass", "_name", &l->k_name, false);
	fld(c, "Symbol", "_length", &l->sym_length, false);
	l->cp_size = type_size(c, "ConstantPool");
	body = find(c, "Symbol", "_body", false, false);
	if (body)
		l->sym_body = (uint32_t)body->offset;
}

int vm_layout_from_tables(const struct vm_tables *t, struct vm_layout *l, struct err_text *e)
{
	struct ctx c = { .t = t, .e = e };

	memset(l, 0, sizeof(*l));
	code_cache(&c, l);
	blobs(&c, l);
	metadata(&c, l);
	return c.rc;
}

uint64_t vm_fld_get(const unsigned char *buf, size_t len, struct vm_fld f)
{
	unsigned char tmp[8] = { 0 };

	if (f.width == 0 || f.width > 8 || (size_t)f.off + f.width > len)
		return 0;
	memcpy(tmp, buf + f.off, f.width);
	return vm_get_uint(tmp, f.width);
}
