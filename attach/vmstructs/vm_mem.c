/* SPDX-License-Identifier: Apache-2.0 */
/* vm_mem.c - reading another process's memory, bounded and cached. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "vm_mem.h"

int vm_mem_init(struct vm_mem *m, vm_read_fn fn, void *ctx, bool cached)
{
	memset(m, 0, sizeof(*m));
	m->read = fn;
	m->ctx = ctx;
	m->gen = 1;
	if (cached) {
		m->cache = calloc(VM_CACHE_LINES, sizeof(*m->cache));
		if (!m->cache)
			return -ENOMEM;
	}
	return 0;
}

void vm_mem_free(struct vm_mem *m)
{
	free(m->cache);
	m->cache = NULL;
}

void vm_mem_refresh(struct vm_mem *m)
{
	m->gen++;
}

int vm_read_process(void *ctx, uint64_t addr, void *buf, size_t n)
{
	struct vm_proc *p = ctx;
	struct iovec local = { buf, n }, remote = { (void *)(uintptr_t)addr, n };
	ssize_t got;

	if (p->mem_fd < 0) {
		got = process_vm_readv(p->pid, &local, 1, &remote, 1, 0);
		if (got < 0 && errno == ENOSYS)
			return -ENOSYS;
	} else {
		got = pread(p->mem_fd, buf, n, (off_t)addr);
	}
	if (got < 0)
		return errno == EIO ? -EFAULT : -errno;
	/* a short read: part of the range is not mapped */
	return (size_t)got == n ? 0 : -EFAULT;
}

static int raw(struct vm_mem *m, uint64_t addr, void *buf, size_t n)
{
	int rc;

	if (n == 0)
		return 0;
	if (addr + n < addr || addr < VM_PAGE)
		return -EFAULT;
	m->syscalls++;
	m->bytes += n;
	rc = m->read(m->ctx, addr, buf, n);
	if (rc && rc != -EFAULT && !m->fatal)
		m->fatal = rc;
	return rc;
}

int vm_read_fresh(struct vm_mem *m, uint64_t addr, void *buf, size_t n)
{
	return raw(m, addr, buf, n);
}

static struct vm_cache_line *page_of(struct vm_mem *m, uint64_t page, int *rc)
{
	struct vm_cache_line *l = &m->cache[(page / VM_PAGE) % VM_CACHE_LINES];

	*rc = 0;
	if (l->page == page + 1 && l->gen == m->gen)
		return l;
	l->page = 0;
	*rc = raw(m, page, l->data, VM_PAGE);
	if (*rc)
		return NULL;
	l->page = page + 1;
	l->gen = m->gen;
	return l;
}

int vm_read(struct vm_mem *m, uint64_t addr, void *buf, size_t n)
{
	unsigned char *out = buf;
	int rc;

	if (!m->cache || n > 4 * VM_PAGE)
		return raw(m, addr, buf, n);
	if (addr + n < addr || addr < VM_PAGE)
		return -EFAULT;
	while (n) {
		uint64_t page = addr & ~(uint64_t)(VM_PAGE - 1);
		size_t off = addr - page, k = VM_PAGE - off;
		struct vm_cache_line *l = page_of(m, page, &rc);

		if (!l)
			return rc;
		if (k > n)
			k = n;
		memcpy(out, l->data + off, k);
		out += k;
		addr += k;
		n -= k;
	}
	return 0;
}

uint64_t vm_get_uint(const unsigned char *p, unsigned width)
{
	uint64_t v = 0;

	for (unsigned i = width; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

int vm_read_uint(struct vm_mem *m, uint64_t addr, unsigned width, uint64_t *out)
{
	unsigned char b[8];
	int rc;

	if (width != 1 && width != 2 && width != 4 && width != 8)
		return -EINVAL;
	rc = vm_read(m, addr, b, width);
	if (rc == 0)
		*out = vm_get_uint(b, width);
	return rc;
}

int vm_read_u64(struct vm_mem *m, uint64_t addr, uint64_t *out)
{
	return vm_read_uint(m, addr, 8, out);
}

int vm_read_cstr(struct vm_mem *m, uint64_t addr, char *out, size_t cap)
{
	size_t len = 0;

	if (cap == 0)
		return -EINVAL;
	/* page by page: a string may end right before an unmapped page */
	while (len < cap - 1) {
		size_t k = VM_PAGE - ((addr + len) & (VM_PAGE - 1));
		int rc;

		if (k > cap - 1 - len)
			k = cap - 1 - len;
		rc = vm_read(m, addr + len, out + len, k);
		if (rc) {
			out[0] = '\0';
			return rc;
		}
		for (size_t i = len; i < len + k; i++) {
			if (out[i] == '\0')
				return (int)i;
			if ((unsigned char)out[i] < 0x20 || (unsigned char)out[i] > 0x7e) {
				out[0] = '\0';
				return -EILSEQ;
			}
		}
		len += k;
	}
	out[0] = '\0';
	return -ENAMETOOLONG;
}
