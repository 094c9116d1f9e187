/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vm_method.c - a Method* named as Compiler.perfmap names it, and the
 * cache of those names (vm_scan.h).
 *
 * Method::_constMethod -> ConstMethod {_constants, _name_index,
 * _signature_index} -> ConstantPool {_pool_holder, _length, slots after
 * sizeof(ConstantPool), one Symbol* per Utf8 entry} -> Klass::_name; a
 * Symbol is {_length (u2), _body}.  Every pointer is checked for
 * alignment, every index against the pool's length, every Symbol's
 * length against VM_MAX_NAME.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vm_names.h"
#include "vm_scan.h"

static bool plausible(uint64_t p)
{
	return p >= 4096 && p % 8 == 0 && p < (1ull << 56);
}

static int read_fld(struct vm_mem *m, uint64_t base, struct vm_fld f, uint64_t *v)
{
	return vm_read_uint(m, base + f.off, f.width, v);
}

/* The first of these results that is an error, else 0.  Reads that do not
 * depend on each other are all made before any is checked: while
 * collecting (vm_lines_begin) one round then asks for all of them. */
static int first_err(int a, int b, int c)
{
	return a ? a : b ? b : c;
}

/* A Symbol's length, bounded by cap - 1; -errno. */
static int symbol_len(struct vm_mem *m, const struct vm_layout *l, uint64_t sym, size_t cap,
		      size_t *len)
{
	uint64_t v;
	int rc;

	if (!plausible(sym))
		return -EINVAL;
	rc = read_fld(m, sym, l->sym_length, &v);
	if (rc)
		return rc;
	if (v == 0 || v >= cap)
		return -EINVAL;
	*len = (size_t)v;
	return 0;
}

/* Display, class, method, signature: four strings back to back into
 * out[cap]; the bytes used, NULs included, or -errno. */
static int names_of(const char *klass, size_t kl, const char *name, size_t nl, const char *sig,
		    size_t sl, char *out, size_t cap)
{
	size_t len;
	int rc;

	if (cap < VM_MAX_NAME)
		return -ENOSPC;
	rc = vm_names_display(klass, kl, name, nl, sig, sl, out, VM_MAX_NAME);
	if (rc < 0)
		return rc;
	len = (size_t)rc + 1;
	rc = vm_names_class(klass, kl, out + len, cap - len);
	if (rc < 0)
		return rc;
	len += (size_t)rc + 1;
	if (nl + 1 + sl + 1 > cap - len)
		return -ENOSPC;
	memcpy(out + len, name, nl);
	out[len + nl] = '\0';
	len += nl + 1;
	memcpy(out + len, sig, sl);
	out[len + sl] = '\0';
	return (int)(len + sl + 1);
}

int vm_method_name_from(struct vm_mem *m, const struct vm_layout *l, uint64_t method,
			struct vm_name_walk *w, char *out, size_t cap)
{
	char klass[VM_MAX_NAME], name[VM_MAX_NAME], sig[VM_MAX_NAME];
	size_t len, kl, nl, sl;
	int rc;

	/* each step reads what the one before found, and is not made again */
	switch (w->done) {
	case 0:
		if (!plausible(method))
			return -EINVAL;
		if ((rc = read_fld(m, method, l->m_const_method, &w->cm)))
			return rc;
		w->done++;
		/* fall through */
	case 1:
		if (!plausible(w->cm))
			return -EINVAL;
		if ((rc = first_err(read_fld(m, w->cm, l->cm_constants, &w->cp),
				    read_fld(m, w->cm, l->cm_name_index, &w->ni),
				    read_fld(m, w->cm, l->cm_sig_index, &w->si))))
			return rc;
		w->done++;
		/* fall through */
	case 2:
		if (!plausible(w->cp))
			return -EINVAL;
		if ((rc = first_err(read_fld(m, w->cp, l->cp_holder, &w->holder),
				    read_fld(m, w->cp, l->cp_length, &w->cplen), 0)))
			return rc;
		w->cplen = (uint32_t)w->cplen;
		w->done++;
		/* fall through */
	case 3:
		if (!plausible(w->holder) || w->ni == 0 || w->si == 0 || w->ni >= w->cplen ||
		    w->si >= w->cplen || w->cplen > 65536)
			return -EINVAL;
		if ((rc = first_err(read_fld(m, w->holder, l->k_name, &w->sym[0]),
				    vm_read_u64(m, w->cp + l->cp_size + w->ni * 8, &w->sym[1]),
				    vm_read_u64(m, w->cp + l->cp_size + w->si * 8, &w->sym[2]))))
			return rc;
		w->done++;
		/* fall through */
	case 4:
		if ((rc = first_err(symbol_len(m, l, w->sym[0], sizeof(klass), &w->len[0]),
				    symbol_len(m, l, w->sym[1], sizeof(name), &w->len[1]),
				    symbol_len(m, l, w->sym[2], sizeof(sig), &w->len[2]))))
			return rc;
		w->done++;
		/* fall through */
	default:
		break;
	}
	kl = w->len[0], nl = w->len[1], sl = w->len[2];
	if (w->raw) {
		/* the three lengths, then the bytes (vm_method_names_raw) */
		uint32_t lens[3] = { (uint32_t)kl, (uint32_t)nl, (uint32_t)sl };

		len = sizeof(lens) + kl + nl + sl;
		if (len > cap)
			return -ENOSPC;
		memcpy(out, lens, sizeof(lens));
		if ((rc = first_err(vm_read(m, w->sym[0] + l->sym_body, out + sizeof(lens), kl),
				    vm_read(m, w->sym[1] + l->sym_body, out + sizeof(lens) + kl, nl),
				    vm_read(m, w->sym[2] + l->sym_body, out + sizeof(lens) + kl + nl,
					    sl))))
			return rc;
		return (int)len;
	}
	if ((rc = first_err(vm_read(m, w->sym[0] + l->sym_body, klass, kl),
			    vm_read(m, w->sym[1] + l->sym_body, name, nl),
			    vm_read(m, w->sym[2] + l->sym_body, sig, sl))))
		return rc;
	return names_of(klass, kl, name, nl, sig, sl, out, cap);
}

int vm_name_next(const struct vm_layout *l, uint64_t method, const struct vm_name_walk *w,
		 uint64_t addr[3])
{
	switch (w->done) {
	case 0:
		addr[0] = method + l->m_const_method.off;
		return 1;
	case 1:
		addr[0] = w->cm + l->cm_constants.off;
		return 1;
	case 2:
		addr[0] = w->cp + l->cp_holder.off;
		return 1;
	case 3:
		addr[0] = w->holder + l->k_name.off;
		addr[1] = w->cp + l->cp_size + w->ni * 8;
		addr[2] = w->cp + l->cp_size + w->si * 8;
		return 3;
	default:
		for (int i = 0; i < 3; i++)
			addr[i] = w->sym[i] + (w->done == 4 ? l->sym_length.off : l->sym_body);
		return 3;
	}
}

int vm_method_names_raw(const char *raw, size_t len, char *out, size_t cap)
{
	uint32_t l[3];

	if (len < sizeof(l))
		return -EINVAL;
	memcpy(l, raw, sizeof(l));
	if ((uint64_t)l[0] + l[1] + l[2] != len - sizeof(l))
		return -EINVAL;
	raw += sizeof(l);
	return names_of(raw, l[0], raw + l[0], l[1], raw + l[0] + l[1], l[2], out, cap);
}

int vm_method_name(struct vm_mem *m, const struct vm_layout *l, uint64_t method,
		   uint64_t *const_method, char *out, size_t cap)
{
	struct vm_name_walk w = { 0 };
	int rc = vm_method_name_from(m, l, method, &w, out, cap);

	if (w.done)
		*const_method = w.cm;
	return rc;
}

static size_t slot_of(const struct vm_name_cache *nc, uint64_t method)
{
	uint64_t h = method * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (nc->cap - 1);
}

const char *vm_name_cache_get(struct vm_name_cache *nc, uint64_t method, uint64_t cm,
			      size_t *len)
{
	if (!nc || !nc->cap)
		return NULL;
	for (size_t i = slot_of(nc, method);; i = (i + 1) & (nc->cap - 1)) {
		struct vm_name_slot *s = &nc->slot[i];

		if (!s->method)
			return NULL;
		if (s->method == method) {
			*len = s->len;
			return s->const_method == cm ? s->name : NULL;
		}
	}
}

static int grow(struct vm_name_cache *nc)
{
	struct vm_name_cache big = { .cap = nc->cap ? nc->cap * 2 : 4096 };

	big.slot = calloc(big.cap, sizeof(*big.slot));
	if (!big.slot)
		return -ENOMEM;
	for (size_t i = 0; i < nc->cap; i++) {
		struct vm_name_slot *s = &nc->slot[i];
		size_t k;

		if (!s->method)
			continue;
		for (k = slot_of(&big, s->method); big.slot[k].method; k = (k + 1) & (big.cap - 1))
			;
		big.slot[k] = *s;
		big.used++;
	}
	free(nc->slot);
	big.hits = nc->hits;
	big.misses = nc->misses;
	*nc = big;
	return 0;
}

int vm_name_cache_put(struct vm_name_cache *nc, uint64_t method, uint64_t cm, const char *name,
		      size_t len)
{
	char *copy;

	if ((nc->used + 1) * 2 > nc->cap && grow(nc))
		return -ENOMEM;
	copy = malloc(len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, name, len);
	for (size_t i = slot_of(nc, method);; i = (i + 1) & (nc->cap - 1)) {
		struct vm_name_slot *s = &nc->slot[i];

		if (s->method == method) {
			free(s->name);
		} else if (s->method) {
			continue;
		} else {
			nc->used++;
		}
		s->method = method;
		s->const_method = cm;
		s->name = copy;
		s->len = len;
		return 0;
	}
}

void vm_name_cache_free(struct vm_name_cache *nc)
{
	for (size_t i = 0; i < nc->cap; i++)
		free(nc->slot[i].name);
	free(nc->slot);
	memset(nc, 0, sizeof(*nc));
}
