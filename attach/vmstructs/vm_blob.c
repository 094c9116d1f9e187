/* SPDX-License-Identifier: Apache-2.0 */
/* vm_blob.c - one HotSpot CodeBlob, decoded from a copy of its header. */
#include <errno.h>
#include <string.h>

#include "vm_blob.h"

int vm_blob_decode(const struct vm_layout *l, uint64_t addr, const unsigned char *hdr,
		   size_t len, uint64_t room, const char *name, struct vm_blob *b)
{
	uint64_t size, begin, end;

	memset(b, 0, sizeof(*b));
	if (len < l->blob_span || !name || room > (1ull << 31) || addr > UINT64_MAX - room)
		return -EINVAL;
	size = vm_fld_get(hdr, len, l->cb_size);
	if (l->cb_size.width == 4)
		size = (uint32_t)size;
	if (size < l->blob_span || size > room)
		return -EINVAL;
	begin = vm_fld_get(hdr, len, l->cb_code_begin);
	end = vm_fld_get(hdr, len, l->cb_code_end);
	if (l->code_offsets) {
		/* offsets from the blob: ints that must stay inside it */
		if (begin > size || end > size)
			return -EINVAL;
		begin += addr;
		end += addr;
	} else if (begin < addr || end > addr + size) {
		return -EINVAL;
	}
	if (end < begin)
		return -EINVAL;
	b->addr = addr;
	b->code_begin = begin;
	b->code_size = end - begin;
	b->name_ptr = vm_fld_get(hdr, len, l->cb_name);
	if (l->has_kind)
		b->nmethod = (int64_t)vm_fld_get(hdr, len, l->cb_kind) == l->kind_nmethod;
	else
		/* up to JDK 22 nmethods are named so (native wrappers too) */
		b->nmethod = !strcmp(name, "nmethod") || !strcmp(name, "native nmethod");
	b->alive = true;
	if (b->nmethod) {
		if (len < l->nm_span || size < l->nm_span)
			return -EINVAL;
		b->method = vm_fld_get(hdr, len, l->nm_method);
		if (b->method < 4096 || b->method % 8)
			return -EINVAL;
		if (l->has_state) {
			/* a signed char: not_installed is -1 */
			int64_t st = (int64_t)vm_fld_get(hdr, len, l->nm_state);

			if (l->nm_state.width == 1)
				st = (int8_t)st;
			b->alive = st < (l->heap_addr ? VM_NMETHOD_ZOMBIE_JDK8 : VM_NMETHOD_ZOMBIE);
		}
	}
	return 0;
}
