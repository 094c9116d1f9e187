/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lookup_lib.h - address -> Java symbol, following a live journal: the
 * entry of attach/lookup, the one header of the folder jsym resolve
 * includes (docs/architecture.md, "Layers"; libjsym-lookup.a).  Programs
 * outside jsym use the public include/jsym/lookup.h.
 *
 * A struct lookup holds the code ranges of one JVM: compiled methods (LOAD),
 * stubs (STUB), perf-map lines (MAP), and the inlined-method ranges (INLINE)
 * inside compiled methods.  Ranges may overlap (a stub re-generated, an
 * address reused after an unload, a perf map appended to); the answer for an
 * address is always the live range with the HIGHEST id that contains it.
 * Journal ids grow with time, perf-map lines get their line number as id, so
 * "higher id" is "later record/line wins".
 *
 * Removal is by id only (lookup_remove): a late UNLOAD of an old method never
 * takes away the newer method that reuses its address.  A new entry that
 * starts where a live one starts ends the old one at once (two live code
 * blobs never share a start address; the agent's map drops it the same way),
 * so a longer old method leaves no stale tail behind.
 *
 * Cost: updates are O(1) amortized and only mark the index dirty; the next
 * lookup_find rebuilds a sorted array of non-overlapping segments (O(n) plus
 * sorting what was added since), after which a lookup is a radix step and a
 * search over a few segments (lookup_radix.c).  So batch updates
 * (lookup_refresh does) and query in between.
 *
 * Memory: the lookup copies every string it is given and owns all it hands
 * out.  Pointers in a struct lookup_hit stay valid until the next call that
 * changes the lookup (lookup_add, lookup_remove, lookup_add_inline,
 * lookup_apply_record, lookup_refresh, lookup_free) or the next lookup_find.
 * Not thread-safe: one thread at a time per struct lookup.
 *
 * The calls that feed entries directly (lookup_add, lookup_remove,
 * lookup_add_inline, lookup_apply_record) are lookup_int.h's, for the
 * folder, the unit tests and the bench: jsym resolve only follows files.
 */
#ifndef JSYM_LOOKUP_LIB_H
#define JSYM_LOOKUP_LIB_H

#include <stddef.h>
#include <stdint.h>

#include "errtext.h"        /* struct err_text (common/) */
#include "journal_format.h" /* enum jf_epoch_reason (agent/format) */

/*
 * Caps: what one struct lookup holds at once, so a forged journal or perf
 * map cannot make `jsym resolve` or libjsym-lookup.so.1 allocate without
 * bound (docs/lookup.md, "Limits", has the measured figures).  The model is
 * `jsym map`'s (attach/vmstructs/vm_scan.h): a million code ranges and
 * their names hold everything `jsym map` can write, and several times the
 * 100k to 200k methods a big JVM compiles over its life.
 *   - LOOKUP_MAX_ENTRIES: live code ranges (LOAD, STUB, perf-map lines);
 *     ended ones do not count.  Each costs about 300 bytes of index.
 *   - LOOKUP_MAX_NAME_BYTES: the bytes of every name the lookup copies
 *     (class, method, signature, display name, source file, NULs included)
 *     for live ranges, their INLINE ranges and their FRAMES method tables.
 *   - LOOKUP_MAX_STACK_BYTES: the inline stacks' tables of live ranges
 *     (INLINE ranges, FRAMES chain ranges, frames, method slots).
 * Past a cap lookup_refresh fails with -E2BIG and a reason naming the cap;
 * the lookup then forgets all it read (no partial index answers) and keeps
 * failing so until the file is started over or another is followed.
 */
#define LOOKUP_MAX_ENTRIES (1u << 20)
#define LOOKUP_MAX_NAME_BYTES (256u << 20)
#define LOOKUP_MAX_STACK_BYTES (256u << 20)

enum lookup_kind {
	LOOKUP_LOAD = 1, /* compiled Java method (journal LOAD) */
	LOOKUP_STUB = 3, /* interpreter, stubs, adapters (journal STUB) */
	LOOKUP_INLINE = 4, /* a method inlined into a LOAD (only in lookup_hit.inlined) */
	LOOKUP_MAP = 16, /* a perf-map line: only the display name is known */
};

/* Output: strings are NUL-terminated, "" when unknown, owned by the lookup. */
struct lookup_frame {
	int kind;
	uint64_t id, start, size;
	const char *class_name, *method, *signature, *name;
	const char *file;        /* source file ("Busy.java"), "" when unknown */
	int line;                /* source line, 0 when unknown */
	int bci;                 /* bytecode index, -1 when unknown */
};

struct lookup_hit {
	uint64_t addr;
	uint64_t offset;                    /* addr - sym.start */
	struct lookup_frame sym;            /* the compiled method, stub or map line */
	size_t n_inline;                    /* inlined methods whose range holds addr */
	const struct lookup_frame *inlined; /* [0] innermost ... [n_inline-1] outermost,
					       all inside sym; NULL when n_inline is 0 */
	size_t n_chain;                     /* frames of the whole inline stack at addr
					       (journal FRAMES records), 0 when unknown */
	const struct lookup_frame *chain;   /* [0] innermost ... [n_chain-1] the compiled
					       method itself (kind LOOKUP_LOAD) */
};

enum lookup_source {
	LOOKUP_SOURCE_NONE = 0,
	LOOKUP_SOURCE_JOURNAL = 1,
	LOOKUP_SOURCE_MAP = 2,
};

struct lookup_stats {
	size_t live;               /* live LOAD/STUB/MAP entries */
	size_t inlines;            /* live INLINE ranges */
	size_t segments;           /* segments of the last rebuild */
	uint64_t records;          /* journal records / map lines applied */
	uint64_t bad_records;      /* known type, malformed body (or empty range) */
	uint64_t unknown_records;  /* unknown type, skipped */
	uint64_t orphan_unloads;   /* UNLOAD of an id that is not live */
	uint64_t superseded;       /* entries ended by a newer one at the same start */
	uint64_t orphan_inlines;   /* INLINE or FRAMES whose parent id is not a live LOAD */
	size_t chains;             /* live inline-chain ranges (FRAMES) */
	uint64_t malformed_lines;  /* perf-map lines skipped */
	uint64_t source_offset;    /* next byte lookup_refresh reads */
	size_t pending_bytes;      /* perf map: torn last line held back */
	int source;                /* enum lookup_source */
	uint64_t resets;           /* times the followed file was started over */
	uint64_t last_epoch;       /* reason of the last EPOCH record
	                              (enum jf_epoch_reason) */
	uint64_t last_epoch_ts;    /* its timestamp */
};

/* A new empty lookup, or NULL (ENOMEM).  Free with lookup_free. */
struct lookup *lookup_new(void);

/* Free everything, close a followed file.  NULL is fine. */
void lookup_free(struct lookup *lk);

/* Forget every entry and counter; a followed file stays followed. */
void lookup_clear(struct lookup *lk);

/*
 * Resolve addr.  Returns 1 (hit filled), 0 (no live range holds addr; hit
 * has only addr set), or -ENOMEM when the rebuild failed.
 */
int lookup_find(struct lookup *lk, uint64_t addr, struct lookup_hit *hit);

/*
 * Follow a journal / perf map open on fd (ownership passes to the lookup,
 * even on failure; a previously followed file is closed, its entries stay:
 * lookup_clear first when the new file replaces it).  Nothing is read until
 * lookup_refresh.  Returns 0.
 */
int lookup_follow_journal(struct lookup *lk, int fd);
int lookup_follow_map(struct lookup *lk, int fd);

/*
 * Read what the followed file gained since the last call and apply it.  A
 * file that was started over in place (a journal with a new header, a map
 * truncated below what was read) is read again from its start after a
 * lookup_clear (counted in stats.resets).  A map replaced by rename is not
 * noticed here: the caller reopens the path (cli_resolve.c does).
 * Returns the number of records/lines applied (>= 0), or a -errno with a
 * reason in e (may be NULL): -EAGAIN (journal header not written yet: try
 * later),
 * -EPROTO (not a journal / unsupported version), -EBADMSG (corruption: what
 * was read before it stays usable, later calls keep failing), -E2BIG (past
 * a cap above: nothing read stays, later calls keep failing until the file
 * is started over), -ENOMEM, I/O errors, -EBADF when nothing is followed.
 */
long lookup_refresh(struct lookup *lk, struct err_text *e);

/*
 * Apply journal records only up to timestamp `until_ns` (CLOCK_MONOTONIC,
 * the clock of `perf record -k 1`); later records are left unread.  0 means
 * no limit (the default).  Use it to see the code as it was when a sample
 * was taken, e.g. after the JVM exited: the agent then closes every range.
 */
void lookup_set_until(struct lookup *lk, uint64_t until_ns);

/* What the followed journal's header says about the JVM that wrote it. */
struct lookup_journal_info {
	uint32_t pid;                 /* the JVM's pid in its own namespace */
	const char *agent_version;    /* NUL-terminated, owned by the lookup */
};

/* 1 with *info filled once the followed journal's header was read, else 0. */
int lookup_journal_info(const struct lookup *lk, struct lookup_journal_info *info);

/*
 * The time from which the journal open on fd covers the code: the timestamp
 * of the EPOCH(LIVE_SET) that begins a journal the agent started over
 * (agent option journal_max), else 0 (it covers the whole time since the
 * agent started).  Reads a dup of fd with pread only, so a lookup
 * following fd is not disturbed.
 */
uint64_t lookup_journal_covers_from(int fd);

/* The whole of s is a hex address, with or without 0x: 0, or -EINVAL. */
int lookup_parse_addr(const char *s, uint64_t *addr);

void lookup_get_stats(const struct lookup *lk, struct lookup_stats *st);

/*
 * Folded stacks from `perf script` text (lookup_stacks.c; `jsym stacks`):
 * feed the lines in order, then lookup_stacks_end, then read each distinct
 * stack, root first ("COMM;frame;...;leaf"), with its number of samples.
 * Every JIT frame perf names (a jitted-PID-ID.so of `perf inject --jit`,
 * the perf map, [unknown]) is resolved in lk and, when it is a compiled
 * method with an inline stack, written as the method and then each method
 * inlined into it, inner ones last, those marked "_[i]"; other frames keep
 * perf's names.  ';', '\' and control bytes of a name are written \xHH.
 * lk must outlive the stacks; not thread-safe.
 */
#define LOOKUP_STACKS_LINES 1u /* append :FILE:LINE to Java frames */

struct lookup_stacks_stats {
	uint64_t samples;     /* samples counted (the counts add up to it) */
	uint64_t jit_frames;  /* frames in JIT code */
	uint64_t unresolved;  /* of those, not found in the lookup (perf's name kept) */
	uint64_t expanded;    /* frames written as an inline stack */
	uint64_t bad_lines;   /* lines that are no part of a sample, skipped */
	size_t stacks;        /* distinct stacks */
};

/* NULL on ENOMEM.  Free with lookup_stacks_free (NULL is fine). */
struct lookup_stacks *lookup_stacks_new(struct lookup *lk, unsigned flags);
void lookup_stacks_free(struct lookup_stacks *s);
/* One line of perf script output, its newline or not.  0, -ENOMEM, or
 * -E2BIG past 256 MiB of distinct stacks. */
int lookup_stacks_line(struct lookup_stacks *s, const char *line, size_t len);
/* The input ended: count the last sample.  0 or as lookup_stacks_line. */
int lookup_stacks_end(struct lookup_stacks *s);
/* fn for each stack in first-seen order (stack is not NUL-terminated); a
 * non-zero return of fn stops the walk and is returned. */
int lookup_stacks_each(const struct lookup_stacks *s,
		       int (*fn)(void *arg, const char *stack, size_t len, uint64_t count),
		       void *arg);
void lookup_stacks_get_stats(const struct lookup_stacks *s, struct lookup_stacks_stats *st);

#endif
