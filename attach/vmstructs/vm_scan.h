/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vm_scan.h - a snapshot of a running JVM's code cache, read from outside.
 *
 * Walks every code heap (CodeCache::_heaps) block by block from the start
 * of its reserved range to the end of its committed range, checking each
 * HeapBlock against the heap's segment map (a block starts where the map
 * says 0; 0xff marks segments no block uses), decodes each used block's
 * CodeBlob (vm_blob.h), names nmethods through Method -> ConstMethod ->
 * ConstantPool -> Symbols and other blobs by CodeBlob::_name.  The JVM runs
 * on meanwhile, so:
 *   - every count, length and pointer is bounded before it is followed;
 *   - a block chain that breaks (a length that lands inside another block)
 *     is picked up again at the next block start of the segment map and
 *     the snapshot counts a resync;
 *   - once its batch of blocks is named, every entry is read again, past
 *     the cache, and kept only if its block and blob still say the same
 *     (an nmethod still at the same place for the same Method was alive,
 *     and so was its metadata, all the time jsym read its name);
 *   - what fails either test is dropped and counted, never guessed.
 */
#ifndef JSYM_VM_SCAN_H
#define JSYM_VM_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "vm_jvm.h"
#include "vm_layout.h"

#define VM_MAX_HEAPS 16
#define VM_MAX_HEAP_BYTES (4ull << 30)  /* a code heap larger: refused */
#define VM_MAX_NAME 4096
/*
 * What one snapshot reads and keeps at most: a fake code heap of tiny blobs
 * must not make jsym allocate without bound inside a pod's limits.
 * HotSpot's whole code cache is at most 2 GiB (ReservedCodeCacheSize); a
 * million entries (64 MiB) is several times what a real 2 GiB cache holds;
 * the names of a million methods fit in 128 MiB.  A walk that reaches a cap
 * stops there, keeps what it has and says which cap (vm_snapshot.capped).
 */
#define VM_MAX_CODE_BYTES (2ull << 30)
#define VM_MAX_ENTRIES (1u << 20)
#define VM_MAX_NAME_BYTES (128u << 20)

struct vm_entry {
	uint64_t start, size;   /* code_begin, code size */
	uint64_t blob;          /* CodeBlob* */
	uint64_t method;        /* nmethod: Method*; 0 for other blobs */
	uint64_t block_len;     /* the HeapBlock's length as read (segments) */
	uint64_t id;            /* journal id (vm_follow.h); 0 = none yet */
	uint32_t name;          /* offset of the name in the snapshot's arena:
	                           a stub's name; for an nmethod four strings
	                           (vm_entry_parts), or the display one alone
	                           (vm_snapshot.display_only) */
	uint32_t name_len;      /* bytes there, NULs included */
	uint8_t log2seg;        /* its heap's segment size */
	bool java;              /* an nmethod (named by its Java method) */
	bool known;             /* the same blob as in the previous snapshot
	                           (vm_snapshot_rescan): id and name kept */
};

struct vm_snapshot {
	struct vm_entry *e;     /* sorted by start */
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	unsigned heaps;
	uint64_t blocks;        /* heap blocks walked */
	unsigned dead;          /* nmethods not alive (zombie, unloaded) */
	unsigned dropped;       /* blobs left out: unreadable or changed */
	unsigned resyncs;       /* block chains picked up again */
	unsigned carried;       /* rescan: entries of the previous snapshot the
	                           walk missed, found still there and kept */
	size_t known;           /* rescan: entries equal to the previous ones */
	bool partial;           /* dropped, resyncs or capped: some code may be
	                           missing */
	const char *capped;     /* NULL, or the cap that ended the walk:
	                           "entries", "name bytes", "code heap bytes" */
	size_t max_entries;     /* 0: VM_MAX_ENTRIES (tests set less) */
	size_t max_name_bytes;  /* 0: VM_MAX_NAME_BYTES */
	uint64_t max_code_bytes;/* 0: VM_MAX_CODE_BYTES */
	bool display_only;      /* names: the display one alone, not the class,
	                           method and signature (vm_entry_parts gives
	                           "" then): a map wants no more */
	/* When set, the walk's thread calls idle(idle_ctx, s) while it waits
	 * for a second thread's names, entries [0, settled) final and in
	 * address order.  Taken, settled is n when every entry it said was
	 * final still is, else 0 (the walk's order broke: they were sorted
	 * or cleaned up at the end). */
	void (*idle)(void *ctx, const struct vm_snapshot *s);
	void *idle_ctx;
	size_t settled;
};

/* Method* -> name, kept across snapshots of one JVM (--follow). */
struct vm_name_cache {
	struct vm_name_slot {
		uint64_t method, const_method;
		char *name;
		size_t len;
	} *slot;
	size_t cap, used;
	uint64_t hits, misses;
};

/*
 * Take a snapshot of j's code cache into s (emptied first).  nc may be
 * NULL.  Returns 0 (s->partial tells whether anything was left out), or
 * -errno with e set when the heaps cannot be found or read at all.
 */
int vm_snapshot_take(struct vm_jvm *j, const struct vm_layout *l, struct vm_name_cache *nc,
		     struct vm_snapshot *s, struct err_text *e);

/*
 * The same, given the previous snapshot of the same JVM (prev, sorted, as
 * this function or vm_snapshot_take left it; its ids are kept).  A blob
 * that is still at the same place with the same block length, code range,
 * Method* and name is taken over from prev with its id (vm_entry.known)
 * and not read again past the cache: the identity is read on every walk,
 * only new blobs are named (through nc) and revalidated.  An entry of prev
 * the walk missed while resynchronising is read again and kept when it is
 * still there (s->carried).  Returns as vm_snapshot_take.
 */
int vm_snapshot_rescan(struct vm_jvm *j, const struct vm_layout *l, struct vm_name_cache *nc,
		       const struct vm_snapshot *prev, struct vm_snapshot *s,
		       struct err_text *e);
void vm_snapshot_free(struct vm_snapshot *s);
void vm_name_cache_free(struct vm_name_cache *nc);

/* The cached names of method (vm_method_name's bytes, *len of them) while
 * its ConstMethod is still cm, else NULL. */
const char *vm_name_cache_get(struct vm_name_cache *nc, uint64_t method, uint64_t cm,
			      size_t *len);
/* Remember (method, cm) -> name[len], replacing an older one.  0 or -ENOMEM. */
int vm_name_cache_put(struct vm_name_cache *nc, uint64_t method, uint64_t cm, const char *name,
		      size_t len);

static inline const char *vm_entry_name(const struct vm_snapshot *s, const struct vm_entry *en)
{
	return s->names + en->name;
}

/*
 * An nmethod's class (external form, as the agent's journal has it),
 * method name and JVM descriptor, from the strings after its display
 * name.  A stub gets "" for all three.
 */
void vm_entry_parts(const struct vm_snapshot *s, const struct vm_entry *en, const char **klass,
		    const char **method, const char **sig);

/*
 * Name the Java method at `method` into out[cap] (cap >= VM_MAX_NAME):
 * four NUL-terminated strings back to back, the display name "RET
 * CLASS.NAME(ARGS)" (shorter than VM_MAX_NAME), the class's external form,
 * the method name and its JVM descriptor.  *const_method gets its
 * ConstMethod*.  The bytes used, NULs included, or -errno (-EFAULT
 * unreadable, -EINVAL not a plausible method, -ENOSPC).
 */
int vm_method_name(struct vm_mem *m, const struct vm_layout *l, uint64_t method,
		   uint64_t *const_method, char *out, size_t cap);

/* How far naming a method got: what vm_method_name_from has read. */
struct vm_name_walk {
	unsigned done;          /* steps done (0: none) */
	bool raw;               /* the Symbols' bytes as read, unformatted:
	                           vm_method_names_raw formats them */
	uint64_t cm, cp, ni, si, holder, cplen;
	uint64_t sym[3];        /* the class's, the method's and the descriptor's
	                           Symbol* */
	size_t len[3];          /* their lengths */
};

/*
 * vm_method_name, resumed where w (zeroed for a start) says the last call
 * stopped: the steps it made are not read again.  While collecting
 * (vm_lines_begin) a call that fails with -EAGAIN has asked for the lines
 * of its next step; after vm_lines_fill the next call goes on from there.
 */
int vm_method_name_from(struct vm_mem *m, const struct vm_layout *l, uint64_t method,
			struct vm_name_walk *w, char *out, size_t cap);

/* The addresses w's next step reads first (1 to 3 of them, into addr):
 * for a prefetch hint, unchecked. */
int vm_name_next(const struct vm_layout *l, uint64_t method, const struct vm_name_walk *w,
		 uint64_t addr[3]);

/* The four strings of vm_method_name from raw[len], what a walk with
 * vm_name_walk.raw wrote (another thread may format what one read). */
int vm_method_names_raw(const char *raw, size_t len, char *out, size_t cap);

#endif
