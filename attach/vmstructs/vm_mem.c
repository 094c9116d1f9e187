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
	free(m->ahead);
	m->cache = NULL;
	m->ahead = NULL;
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

ssize_t vm_readv_process(void *ctx, const struct vm_range *r, size_t n, void *buf)
{
	struct vm_proc *p = ctx;
	struct iovec local = { buf, 0 }, remote[VM_AHEAD_RANGES];
	ssize_t got;

	if (p->mem_fd >= 0 || n > VM_AHEAD_RANGES)
		return -ENOSYS;
	for (size_t i = 0; i < n; i++) {
		remote[i] = (struct iovec){ (void *)(uintptr_t)r[i].addr, r[i].len };
		local.iov_len += r[i].len;
	}
	got = process_vm_readv(p->pid, &local, 1, remote, n, 0);
	if (got < 0)
		return errno == EIO ? -EFAULT : -errno;
	return got;
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

/* The prefetched copy of [addr, addr + n) of this generation, or NULL. */
static const unsigned char *ahead_of(const struct vm_mem *m, uint64_t addr, size_t n)
{
	const struct vm_ahead *a = m->ahead;
	size_t lo = 0, hi;

	if (!a || a->gen != m->gen || addr + n < addr)
		return NULL;
	/* the last range that starts at or before addr */
	for (hi = a->n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->r[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr + n > a->r[lo - 1].addr + a->r[lo - 1].len)
		return NULL;
	return a->data + a->r[lo - 1].off + (addr - a->r[lo - 1].addr);
}

int vm_read_fresh(struct vm_mem *m, uint64_t addr, void *buf, size_t n)
{
	const unsigned char *p = ahead_of(m, addr, n);

	if (p && n) {
		memcpy(buf, p, n);
		return 0;
	}
	return raw(m, addr, buf, n);
}

/* Read r[0..n) into data, back to back: how many from the start were read
 * whole (the next one, if any, is not readable), or -errno (not -EFAULT). */
static ssize_t read_batch(struct vm_mem *m, const struct vm_range *r, size_t n,
			  unsigned char *data)
{
	size_t total = 0, whole = 0;
	ssize_t got = m->readv ? m->readv(m->ctx, r, n, data) : -ENOSYS;
	int rc;

	if (got == -ENOSYS) {
		/* no batched reader: one read each, up to the first failure */
		for (; whole < n; data += r[whole++].len) {
			rc = raw(m, r[whole].addr, data, r[whole].len);
			if (rc == -EFAULT)
				break;
			if (rc)
				return rc;
		}
		return (ssize_t)whole;
	}
	for (size_t i = 0; i < n; i++)
		total += r[i].len;
	m->syscalls++;
	m->bytes += total;
	if (got == -EFAULT)
		return 0;
	if (got < 0) {
		if (!m->fatal)
			m->fatal = (int)got;
		return got;
	}
	for (size_t at = 0; whole < n && at + r[whole].len <= (size_t)got; whole++)
		at += r[whole].len;
	return (ssize_t)whole;
}

static bool range_ok(const struct vm_range *x)
{
	return x->len && x->len <= VM_AHEAD_RANGE && x->addr >= VM_PAGE &&
	       x->addr + x->len > x->addr;
}

static int by_addr(const void *x, const void *y)
{
	const struct vm_ahead_range *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

size_t vm_prefetch(struct vm_mem *m, const struct vm_range *r, size_t n)
{
	struct vm_range batch[VM_AHEAD_RANGES];
	size_t taken = 0, used = 0;
	struct vm_ahead *a;

	/* the prefetch buffer (1 MiB) comes with the first prefetch; without
	 * it, or without a cache, every read goes to the reader */
	if (m->cache && !m->ahead)
		m->ahead = malloc(sizeof(*m->ahead));
	a = m->ahead;
	if (!a)
		return n;
	a->gen = m->gen;
	a->n = 0;
	while (taken < n) {
		size_t k = 0, bytes = 0, at = used;
		ssize_t whole;

		/* the next batch: valid ranges while they fit */
		for (; taken + k < n; k++) {
			const struct vm_range *x = &r[taken + k];

			if (!range_ok(x) || a->n + k == VM_AHEAD_RANGES ||
			    used + bytes + x->len > VM_AHEAD_BYTES)
				break;
			batch[k] = *x;
			bytes += x->len;
		}
		if (k == 0 && range_ok(&r[taken]))
			break;          /* full: the caller goes on in another call */
		if (k == 0) {
			taken++;        /* an invalid range: left out */
			continue;
		}
		whole = read_batch(m, batch, k, a->data + used);
		if (whole < 0) {
			taken = n;      /* the reader failed (sticky in m->fatal) */
			break;
		}
		for (size_t i = 0; i < (size_t)whole; i++) {
			a->r[a->n++] = (struct vm_ahead_range){ batch[i].addr,
							       (uint32_t)batch[i].len,
							       (uint32_t)at };
			at += batch[i].len;
		}
		used = at;
		/* the range after the whole ones is not readable: left out */
		taken += (size_t)whole < k ? (size_t)whole + 1 : k;
	}
	qsort(a->r, a->n, sizeof(a->r[0]), by_addr);
	return taken;
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

	const unsigned char *p = ahead_of(m, addr, n);

	if (p && n) {
		memcpy(buf, p, n);
		return 0;
	}
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
