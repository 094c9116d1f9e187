/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vm_mem.h - reading a JVM's memory, bounded and cached.
 *
 * Everything `jsym map` learns about a JVM comes through one struct vm_mem:
 * a read callback (process_vm_readv on a live process, a byte image in the
 * unit tests and fuzzers) behind a small page cache.  The agent reads its
 * own JVM's vmStructs tables through one too (agent/jvm/codeheap.c: its
 * callback reads the agent's own memory, no cache).  The target keeps
 * running while it is read, so every value read here is a claim to check,
 * never a fact: callers bound every pointer and length they follow.
 */
#ifndef JSYM_VM_MEM_H
#define JSYM_VM_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define VM_PAGE 4096u
/* 16 MiB of cached pages, each backed by the kernel when first touched.
 * The fuzzers build with fewer lines: a sanitizer's allocator touches all
 * of a calloc, and a small cache exercises eviction more often. */
#ifndef VM_CACHE_LINES
#define VM_CACHE_LINES 16384u
#endif

/*
 * Read n bytes at addr into buf: 0 when all of them were read, -EFAULT when
 * any of them is not mapped, other -errno (-ESRCH: the process is gone,
 * -EPERM: no ptrace access).
 */
typedef int (*vm_read_fn)(void *ctx, uint64_t addr, void *buf, size_t n);

/*
 * Read n ranges at once into buf, back to back (one syscall where the
 * reader can): the bytes read from the start, which end inside the first
 * range that is not readable (every range before it is whole), or -errno
 * as vm_read_fn when none was read (-EFAULT: the first range is unreadable).
 */
struct vm_range {
	uint64_t addr;
	size_t len;
};
typedef ssize_t (*vm_readv_fn)(void *ctx, const struct vm_range *r, size_t n, void *buf);

#define VM_AHEAD_RANGES 1024u   /* process_vm_readv's IOV_MAX */
#define VM_AHEAD_BYTES (1u << 20)
#define VM_AHEAD_RANGE 4096u    /* the longest range prefetched */
/* Ranges this near each other are read as one span, up to this long: the
 * reader pays more for a range (pinning its pages) than for the bytes. */
#define VM_MERGE_GAP 2048u
#define VM_MERGE_SPAN (64u << 10)

/* Whether x (after *p, in address order) is near enough to read with it:
 * then *p grows to cover x. */
bool vm_range_merge(struct vm_range *p, const struct vm_range *x);

/* Ranges read ahead in a batch, valid for the generation that read them. */
struct vm_ahead {
	uint64_t gen;
	size_t n;               /* ranges held, sorted by address */
	uint64_t low, high;     /* no range holds bytes outside [low, high) */
	struct vm_ahead_range {
		uint64_t addr;
		uint32_t len, off;      /* its bytes: data[off .. off + len) */
	} r[VM_AHEAD_RANGES];
	unsigned char data[VM_AHEAD_BYTES];
};

/* A cache line: a whole page (its bytes in vm_mem.cache_data), or while
 * collecting up to VM_LINE_SLOTS of its 64-byte lines (in vm_lines.c). */
#define VM_LINE_SLOTS 2
struct vm_cache_line {
	uint64_t page;          /* page address + 1 (0: empty) */
	uint64_t gen;
	uint32_t blk;           /* 1 + its block of cache_data, 0: none yet */
	uint32_t slot[VM_LINE_SLOTS];   /* lines held apart: 0, or
	                           (1 + where) << 6 | line (vm_lines.c) */
	uint64_t have;          /* its 64-byte lines held (~0: the whole page) */
	uint64_t want, bad;     /* collecting: lines asked for, not readable */
};

/* The cache's pages are read whole or by 64-byte lines (vm_lines.c). */
#define VM_LINE 64u
struct vm_lines;

struct vm_mem {
	vm_read_fn read;
	void *ctx;
	uint64_t gen;           /* cache lines of older generations are stale
	                           (64 bits: never wraps, however many checks) */
	struct vm_cache_line *cache;    /* VM_CACHE_LINES, or NULL: no cache */
	unsigned char (*cache_data)[VM_PAGE];   /* their pages' bytes, apart:
	                           looking a page up touches no page's bytes;
	                           blocks handed out in order (vm_line_bytes) */
	uint32_t blocks;        /* blocks handed out */
	vm_readv_fn readv;      /* batched reads, or NULL: one by one */
	struct vm_ahead *ahead; /* with the cache: the last vm_prefetch */
	struct vm_lines *lines; /* with the cache: lines asked for (vm_lines.c) */
	bool collect;           /* vm_lines_begin .. vm_lines_end */
	uint64_t syscalls;      /* reads passed to `read` */
	uint64_t bytes;
	int fatal;              /* first error that is not -EFAULT (sticky) */
};

/* The process reader: ctx for vm_read_process. */
struct vm_proc {
	pid_t pid;
	int mem_fd;             /* /proc/<pid>/mem when process_vm_readv is
	                           refused by a seccomp profile, else -1 */
};

/*
 * Set m up to read through fn/ctx, with a cache when `cached`.  0 or
 * -ENOMEM.  vm_mem_free() releases the cache.
 */
int vm_mem_init(struct vm_mem *m, vm_read_fn fn, void *ctx, bool cached);
void vm_mem_free(struct vm_mem *m);

/* Forget every cached page and prefetched range: the next reads see the
 * target as it is now. */
void vm_mem_refresh(struct vm_mem *m);

/* vm_read_fn and vm_readv_fn for a live process (ctx: struct vm_proc);
 * vm_readv_process is -ENOSYS when the reader is /proc/<pid>/mem. */
int vm_read_process(void *ctx, uint64_t addr, void *buf, size_t n);
ssize_t vm_readv_process(void *ctx, const struct vm_range *r, size_t n, void *buf);

/*
 * Read the n ranges r[] now, in as few reads as the reader allows, in place
 * of the ranges prefetched before; vm_read and vm_read_fresh then answer a
 * read that lies inside one of them from that copy, until the next
 * vm_mem_refresh.  At most VM_AHEAD_RANGES ranges and VM_AHEAD_BYTES bytes;
 * a range longer than VM_AHEAD_RANGE, empty, or not readable is left out
 * (reading it later fails or succeeds as it would have).  Returns how many
 * of r[] were taken (the caller prefetches the rest in another call).
 */
size_t vm_prefetch(struct vm_mem *m, const struct vm_range *r, size_t n);

/* Read through the cache (whole pages).  0 or -errno as vm_read_fn.
 * Between vm_lines_begin and vm_lines_end, -EAGAIN: not read yet, the
 * lines it needs are asked for (vm_lines_fill reads them). */
int vm_read(struct vm_mem *m, uint64_t addr, void *buf, size_t n);

/* Read past the cache: what the target holds at this moment (or held at
 * a vm_prefetch since the last vm_mem_refresh). */
int vm_read_fresh(struct vm_mem *m, uint64_t addr, void *buf, size_t n);

/*
 * Read r[0..n) (n <= VM_AHEAD_RANGES) into buf, back to back, through the
 * batched reader when there is one: how many ranges from the start were
 * read whole (the next one, if any, is not readable), or -errno (never
 * -EFAULT; a reader's failure is also kept in m->fatal).
 */
ssize_t vm_read_ranges(struct vm_mem *m, const struct vm_range *r, size_t n, void *buf);

/*
 * Following many chains of pointers at once (vm_lines.c).  vm_lines_begin
 * starts collecting (0, -ENOTSUP without a cache, -ENOMEM): from then on
 * vm_read answers from the cache, and for the rest asks for the 64-byte
 * lines it would need and fails with -EAGAIN (-EFAULT when one of them was
 * found not readable).  vm_lines_fill reads every line asked for since the
 * last fill into the cache, in as few reads and ranges as it can, and
 * returns how many pages asked.  Lines read so answer vm_read (collecting
 * or not) until the next vm_mem_refresh; outside collecting a read the
 * lines held do not cover reads its whole page as before, so collecting
 * is only ever a shortcut.  vm_lines_end stops collecting; vm_mem_free
 * (or vm_lines_free) releases what it used.
 */
int vm_lines_begin(struct vm_mem *m);
size_t vm_lines_fill(struct vm_mem *m);
void vm_lines_end(struct vm_mem *m);
void vm_lines_free(struct vm_mem *m);

/* The 64 bytes of line `line` of l's page, held apart, or NULL. */
const unsigned char *vm_lines_at(const struct vm_mem *m, const struct vm_cache_line *l,
				 size_t line);

/* Copy [off, off + k) of l's page, held in lines apart, to out. */
void vm_lines_copy(const struct vm_mem *m, const struct vm_cache_line *l, size_t off,
		   void *out, size_t k);

/* Collecting: ask for the lines `bits` of page.  -EAGAIN, or -EFAULT when
 * one of them was found not readable. */
int vm_lines_want(struct vm_mem *m, uint64_t page, uint64_t bits);

/*
 * len bytes of zeroed memory in huge pages where the kernel gives them for
 * the asking (madvise), or NULL; vm_huge_free(p, len) gives them back.
 * Read into thousands of fresh small pages, a map of 5,000 methods spent
 * a fifth of its time in page faults.
 */
void *vm_huge_alloc(size_t len);
void vm_huge_free(void *p, size_t len);

/* The page-sized bytes of cache line l (a block given to it now if it has
 * none yet). */
unsigned char *vm_line_bytes(struct vm_mem *m, struct vm_cache_line *l);

/* The cache line holding page (of this generation), or NULL. */
struct vm_cache_line *vm_line_find(const struct vm_mem *m, uint64_t page);

/* A cache line for page, emptied: one of its two places, one that waits
 * for no lines if it can; NULL when both do and keep_wanted. */
struct vm_cache_line *vm_line_take(struct vm_mem *m, uint64_t page, bool keep_wanted);

/* An unsigned little-endian integer of width 1, 2, 4 or 8 (-EINVAL else). */
int vm_read_uint(struct vm_mem *m, uint64_t addr, unsigned width, uint64_t *out);
int vm_read_u64(struct vm_mem *m, uint64_t addr, uint64_t *out);

/*
 * A NUL-terminated string of at most cap-1 bytes at addr into out.  Returns
 * its length, -EFAULT (unreadable), -ENAMETOOLONG (no NUL within cap-1
 * bytes) or -EILSEQ (a byte outside printable ASCII: the names in HotSpot's
 * tables are C identifiers and type expressions).
 */
int vm_read_cstr(struct vm_mem *m, uint64_t addr, char *out, size_t cap);

/* Ask the CPU to bring in what a read at addr will look at: the cache's
 * two places for its page, or (data) the bytes the cache holds for it.
 * A hint: it reads nothing from the process, and changes nothing. */
void vm_mem_prefetch(const struct vm_mem *m, uint64_t addr, bool data);

/* A value from n bytes at p, little-endian (width 1, 2, 4 or 8). */
uint64_t vm_get_uint(const unsigned char *p, unsigned width);

#endif
