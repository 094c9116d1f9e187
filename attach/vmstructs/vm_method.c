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

/* A Symbol's bytes into buf[cap] (not NUL-terminated); length or -errno. */
static int read_symbol(struct vm_mem *m, const struct vm_layout *l, uint64_t sym,
		       char *buf, size_t cap)
{
	uint64_t len;
	int rc;

	if (!plausible(sym))
		return -EINVAL;
	rc = read_fld(m, sym, l->sym_length, &len);
	if (rc)
		return rc;
	if (len == 0 || len >= cap)
		return -EINVAL;
	rc = vm_read(m, sym + l->sym_body, buf, (size_t)len);
	return rc ? rc : (int)len;
}

int vm_method_name(struct vm_mem *m, const struct vm_layout *l, uint64_t method,
		   uint64_t *const_method, char *out, size_t cap)
{
	char klass[VM_MAX_NAME], name[VM_MAX_NAME], sig[VM_MAX_NAME];
	uint64_t cm, cp, holder, ksym, ni, si, cplen, nsym, ssym;
	int rc, kl, nl, sl;
	size_t len;

	if (!plausible(method))
		return -EINVAL;
	if ((rc = read_fld(m, method, l->m_const_method, &cm)))
		return rc;
	*const_method = cm;
	if (!plausible(cm))
		return -EINVAL;
	if ((rc = read_fld(m, cm, l->cm_constants, &cp)) ||
	    (rc = read_fld(m, cm, l->cm_name_index, &ni)) ||
	    (rc = read_fld(m, cm, l->cm_sig_index, &si)))
		return rc;
	if (!plausible(cp))
		return -EINVAL;
	if ((rc = read_fld(m, cp, l->cp_holder, &holder)) ||
	    (rc = read_fld(m, cp, l->cp_length, &cplen)))
		return rc;
	cplen = (uint32_t)cplen;
	if (!plausible(holder) || ni == 0 || si == 0 || ni >= cplen || si >= cplen ||
	    cplen > 65536)
		return -EINVAL;
	if ((rc = read_fld(m, holder, l->k_name, &ksym)) ||
	    (rc = vm_read_u64(m, cp + l->cp_size + ni * 8, &nsym)) ||
	    (rc = vm_read_u64(m, cp + l->cp_size + si * 8, &ssym)))
		return rc;
	if ((kl = read_symbol(m, l, ksym, klass, sizeof(klass))) < 0)
		return kl;
	if ((nl = read_symbol(m, l, nsym, name, sizeof(name))) < 0)
		return nl;
	if ((sl = read_symbol(m, l, ssym, sig, sizeof(sig))) < 0)
		return sl;
	/* display, class, method, signature: four strings back to back */
	if (cap < VM_MAX_NAME)
		return -ENOSPC;
	rc = vm_names_display(klass, (size_t)kl, name, (size_t)nl, sig, (size_t)sl, out,
			      VM_MAX_NAME);
	if (rc < 0)
		return rc;
	len = (size_t)rc + 1;
	rc = vm_names_class(klass, (size_t)kl, out + len, cap - len);
	if (rc < 0)
		return rc;
	len += (size_t)rc + 1;
	if ((size_t)nl + 1 + (size_t)sl + 1 > cap - len)
		return -ENOSPC;
	memcpy(out + len, name, (size_t)nl);
	out[len + (size_t)nl] = '\0';
	len += (size_t)nl + 1;
	memcpy(out + len, sig, (size_t)sl);
	out[len + (size_t)sl] = '\0';
	return (int)(len + (size_t)sl + 1);
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
