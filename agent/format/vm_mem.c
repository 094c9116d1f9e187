/* SPDX-License-Identifier: Apache-2.0 */
/* vm_mem.c - reading another process's memory, bounded and cached. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "vm_mem.h"


#define HUGE_PAGE (2u << 20)
#define CACHE_BYTES ((size_t)VM_CACHE_LINES * VM_PAGE)

/* What is mapped for len bytes: from 256 KiB on, whole huge pages (the
 * cache's table of lines, the prefetch buffer: a fault each, not
 * hundreds; the table's 896 KiB had taken 0.8 ms to touch). */
static size_t mapped(size_t len)
{
	return len >= HUGE_PAGE / 8 ? (len + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1) : len;
}

void *vm_huge_alloc(size_t len)
{
	unsigned char *p;
	size_t extra;
	uintptr_t at;

	/* less than 256 KiB (a fuzzer's small cache, per input): small
	 * pages, as they come */
	len = mapped(len);
	extra = len >= HUGE_PAGE ? HUGE_PAGE : 0;
	p = mmap(NULL, len + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (!extra)
		return p;
	/* 2 MiB-aligned, the rest given back */
	at = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	if (at > (uintptr_t)p)
		munmap(p, at - (uintptr_t)p);
	munmap((void *)(at + len), (uintptr_t)p + HUGE_PAGE - at);
	madvise((void *)at, len, MADV_HUGEPAGE);
	return (void *)at;
}

void vm_huge_free(void *p, size_t len)
{
	if (p)
		munmap(p, mapped(len));
}

unsigned char *vm_line_bytes(struct vm_mem *m, struct vm_cache_line *l)
{
	/* a block a line at most: never more than VM_CACHE_LINES; the count
	 * is read by another thread (vm_scan.c's make_ready) */
	if (!l->blk) {
		l->blk = m->blocks + 1;
		__atomic_store_n(&m->blocks, l->blk, __ATOMIC_RELAXED);
	}
	return m->cache_data[l->blk - 1];
}

int vm_mem_init(struct vm_mem *m, vm_read_fn fn, void *ctx, bool cached)
{
	memset(m, 0, sizeof(*m));
	m->read = fn;
	m->ctx = ctx;
	m->gen = 1;
	if (cached) {
		m->cache = vm_huge_alloc(VM_CACHE_LINES * sizeof(*m->cache));
		m->cache_data = vm_huge_alloc(CACHE_BYTES);
		if (!m->cache || !m->cache_data) {
			vm_mem_free(m);
			return -ENOMEM;
		}
		/* written now, while the process may have one thread: its
		 * lines are looked up before they are taken, and a page read
		 * first is the kernel's shared zero page, its first write then
		 * a copy and a TLB flush on every CPU the process's threads
		 * run on */
		memset(m->cache, 0, VM_CACHE_LINES * sizeof(*m->cache));
	}
	return 0;
}

void vm_mem_free(struct vm_mem *m)
{
	vm_huge_free(m->cache, VM_CACHE_LINES * sizeof(*m->cache));
	vm_huge_free(m->cache_data, CACHE_BYTES);
	vm_huge_free(m->ahead, sizeof(*m->ahead));
	vm_lines_free(m);
	m->cache = NULL;
	m->cache_data = NULL;
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

	if (!a || a->gen != m->gen || addr + n < addr || addr < a->low || addr + n > a->high)
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

ssize_t vm_read_ranges(struct vm_mem *m, const struct vm_range *r, size_t n, void *buf)
{
	unsigned char *data = buf;
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

/* Whether x extends the span *p (the ranges in address order, a gap of at
 * most VM_MERGE_GAP between): then *p covers it too. */
bool vm_range_merge(struct vm_range *p, const struct vm_range *x)
{
	uint64_t end = p->addr + p->len;

	if (x->addr < end || x->addr - end > VM_MERGE_GAP ||
	    x->addr + x->len - p->addr > VM_MERGE_SPAN)
		return false;
	p->len = (size_t)(x->addr + x->len - p->addr);
	return true;
}

/* The prefetched ranges sorted by address, and their bounds. */
static void ahead_index(struct vm_ahead *a)
{
	/* the walk's ranges come in address order: no sort then */
	for (size_t i = 1; i < a->n; i++) {
		if (a->r[i].addr < a->r[i - 1].addr) {
			qsort(a->r, a->n, sizeof(a->r[0]), by_addr);
			break;
		}
	}
	a->low = UINT64_MAX;
	a->high = 0;
	for (size_t i = 0; i < a->n; i++) {
		a->low = a->r[i].addr < a->low ? a->r[i].addr : a->low;
		a->high = a->r[i].addr + a->r[i].len > a->high ? a->r[i].addr + a->r[i].len :
			  a->high;
	}
}

size_t vm_prefetch(struct vm_mem *m, const struct vm_range *r, size_t n)
{
	/* batch: the ranges asked for; span: what is read, ranges near each
	 * other read as one (a range costs the reader more than the bytes
	 * between); first[q]: span q's first range in batch */
	struct vm_range batch[VM_AHEAD_RANGES], span[VM_AHEAD_RANGES];
	size_t first[VM_AHEAD_RANGES + 1], taken = 0, used = 0;
	struct vm_ahead *a;

	/* the prefetch buffer (1 MiB) comes with the first prefetch; without
	 * it, or without a cache, every read goes to the reader */
	if (m->cache && !m->ahead)
		m->ahead = vm_huge_alloc(sizeof(*m->ahead));
	a = m->ahead;
	if (!a)
		return n;
	a->gen = m->gen;
	a->n = 0;
	while (taken < n) {
		size_t k = 0, q = 0, bytes = 0, at = used;
		ssize_t whole;

		/* the next batch: valid ranges while they fit */
		for (; taken + k < n; k++) {
			const struct vm_range *x = &r[taken + k];
			struct vm_range grown = q ? span[q - 1] : (struct vm_range){ 0 };
			bool merged = q && vm_range_merge(&grown, x);
			size_t more = merged ? grown.len - span[q - 1].len : x->len;

			if (!range_ok(x) || a->n + k == VM_AHEAD_RANGES ||
			    used + bytes + more > VM_AHEAD_BYTES)
				break;
			if (merged) {
				span[q - 1] = grown;
			} else {
				first[q] = k;
				span[q++] = *x;
			}
			batch[k] = *x;
			bytes += more;
		}
		if (k == 0 && range_ok(&r[taken]))
			break;          /* full: the caller goes on in another call */
		if (k == 0) {
			taken++;        /* an invalid range: left out */
			continue;
		}
		first[q] = k;
		whole = vm_read_ranges(m, span, q, a->data + used);
		if (whole < 0) {
			taken = n;      /* the reader failed (sticky in m->fatal) */
			break;
		}
		for (size_t s = 0; s < (size_t)whole; s++) {
			for (size_t i = first[s]; i < first[s + 1]; i++)
				a->r[a->n++] = (struct vm_ahead_range){
					batch[i].addr, (uint32_t)batch[i].len,
					(uint32_t)(at + (batch[i].addr - span[s].addr)) };
			at += span[s].len;
		}
		used = at;
		/* the ranges of the span after the whole ones: not readable, left
		 * out */
		taken += (size_t)whole < q ? first[whole + 1] : k;
	}
	ahead_index(a);
	return taken;
}

/* A page's two places in the cache: by its number, and by a hash of it
 * (two choices keep pages that meet at one place apart). */
static struct vm_cache_line *place(const struct vm_mem *m, uint64_t page, int which)
{
	uint64_t n = page / VM_PAGE;

	if (which)
		n = (n * 0x9e3779b97f4a7c15ull) >> 24;
	return &m->cache[n % VM_CACHE_LINES];
}

static bool holds(const struct vm_mem *m, const struct vm_cache_line *l, uint64_t page)
{
	return l->page == page + 1 && l->gen == m->gen;
}

struct vm_cache_line *vm_line_find(const struct vm_mem *m, uint64_t page)
{
	struct vm_cache_line *l = place(m, page, 0);

	if (holds(m, l, page))
		return l;
	l = place(m, page, 1);
	return holds(m, l, page) ? l : NULL;
}

struct vm_cache_line *vm_line_take(struct vm_mem *m, uint64_t page, bool keep_wanted)
{
	struct vm_cache_line *a = place(m, page, 0), *b = place(m, page, 1), *l;

	/* an empty or stale place first, then one not waiting for lines */
	if (a->gen != m->gen || !a->page)
		l = a;
	else if (b->gen != m->gen || !b->page)
		l = b;
	else if (!a->want)
		l = a;
	else if (!b->want)
		l = b;
	else if (keep_wanted)
		return NULL;
	else
		l = a;
	*l = (struct vm_cache_line){ .page = page + 1, .gen = m->gen, .blk = l->blk };
	return l;
}

/* page's cache line holding the whole page (read now if need be). */
static struct vm_cache_line *page_of(struct vm_mem *m, uint64_t page, int *rc)
{
	struct vm_cache_line *l = vm_line_find(m, page);

	*rc = 0;
	if (l && l->have == ~0ull)
		return l;
	if (!l)
		l = vm_line_take(m, page, false);
	l->page = 0;
	*rc = raw(m, page, vm_line_bytes(m, l), VM_PAGE);
	if (*rc)
		return NULL;
	l->page = page + 1;
	l->have = ~0ull;
	return l;
}

/* The 64-byte lines of a page that [off, off + k) touches. */
static uint64_t lines_of(size_t off, size_t k)
{
	size_t first = off / VM_LINE, n = (off + k - 1) / VM_LINE - first + 1;

	return n >= 64 ? ~0ull : ((1ull << n) - 1) << first;
}

/* [addr, addr + n) through the cache.  While collecting (vm_lines_begin)
 * the lines the cache does not hold are asked for, not read. */
static int through_cache(struct vm_mem *m, uint64_t addr, void *buf, size_t n)
{
	unsigned char *out = buf;
	int rc, asked = 0;

	if (addr + n < addr || addr < VM_PAGE)
		return -EFAULT;
	while (n) {
		uint64_t page = addr & ~(uint64_t)(VM_PAGE - 1);
		size_t off = addr - page, k = VM_PAGE - off < n ? VM_PAGE - off : n;
		uint64_t bits = lines_of(off, k);
		struct vm_cache_line *l = vm_line_find(m, page);

		if (!l || (l->have & bits) != bits) {
			if (m->collect) {
				/* every page of the read is asked for at once */
				rc = vm_lines_want(m, page, bits);
				if (rc != -EAGAIN)
					return rc;
				asked = rc;
			} else if (!(l = page_of(m, page, &rc))) {
				return rc;
			}
		}
		if (!asked && l->have == ~0ull)
			memcpy(out, vm_line_bytes(m, l) + off, k);
		else if (!asked)
			vm_lines_copy(m, l, off, out, k);
		out += k;
		addr += k;
		n -= k;
	}
	return asked;
}

int vm_read(struct vm_mem *m, uint64_t addr, void *buf, size_t n)
{
	const unsigned char *p = ahead_of(m, addr, n);

	if (p && n) {
		memcpy(buf, p, n);
		return 0;
	}
	if (!m->cache || n > 4 * VM_PAGE)
		return raw(m, addr, buf, n);
	return through_cache(m, addr, buf, n);
}

uint64_t vm_get_uint(const unsigned char *p, unsigned width)
{
	uint64_t v = 0;

	for (unsigned i = width; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* The cached bytes of [addr, addr + n) when one 64-byte line held holds
 * them all and no prefetched range could (those answer first), else NULL:
 * the short way of the many small reads that name methods. */
static const unsigned char *cached_small(const struct vm_mem *m, uint64_t addr, size_t n)
{
	uint64_t page = addr & ~(uint64_t)(VM_PAGE - 1);
	size_t off = (size_t)(addr - page), line = off / VM_LINE;
	const struct vm_cache_line *l;
	const unsigned char *p;

	if (!m->cache || off % VM_LINE + n > VM_LINE ||
	    (m->ahead && m->ahead->gen == m->gen && addr + n > m->ahead->low &&
	     addr < m->ahead->high))
		return NULL;
	l = vm_line_find(m, page);
	if (!l || !(l->have >> line & 1))
		return NULL;
	if (l->have == ~0ull)
		return m->cache_data[l->blk - 1] + off;
	p = vm_lines_at(m, l, line);
	return p ? p + off % VM_LINE : NULL;
}

void vm_mem_prefetch(const struct vm_mem *m, uint64_t addr, bool data)
{
	uint64_t page = addr & ~(uint64_t)(VM_PAGE - 1);
	const unsigned char *p;

	if (!m->cache)
		return;
	if (!data) {
		__builtin_prefetch(place(m, page, 0));
		__builtin_prefetch(place(m, page, 1));
	} else if ((p = cached_small(m, addr, 1)) != NULL) {
		__builtin_prefetch(p);
	}
}

int vm_read_uint(struct vm_mem *m, uint64_t addr, unsigned width, uint64_t *out)
{
	unsigned char b[8];
	const unsigned char *p;
	int rc;

	if (width != 1 && width != 2 && width != 4 && width != 8)
		return -EINVAL;
	if ((p = cached_small(m, addr, width)) != NULL) {
		*out = vm_get_uint(p, width);
		return 0;
	}
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
