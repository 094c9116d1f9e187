/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sink.h - where the agent's events go: the live-code table, the journal and
 * perf-map buffers, the flush thread and the output files.
 *
 * Callbacks (JIT threads, the attach thread during GenerateEvents) call the
 * sink_record_* functions: they take one short mutex, update the table and
 * append whole records to in-memory buffers; no I/O under the lock.  A
 * pthread wakes every flush_ms (or when a buffer passes half its limit),
 * swaps the buffers out and writes them with the lock released.  Buffers are
 * bounded (SINK_BUF_MAX each): a producer that finds a full buffer wakes the
 * flush thread and waits up to SINK_FULL_WAIT_MS; if it is still full the
 * journal record is dropped and counted (logged as "dropped N journal
 * records"), while the table still takes the entry, so the next map rewrite
 * is complete.
 *
 * The map is kept equal to the live code: loads are appended; an unload (or
 * a load replacing another at the same address) schedules a rewrite of the
 * whole map from the table to perf-<pid>.map.tmp + rename, done by the
 * flush thread at most every SINK_REWRITE_MIN_MS.  docs/perf-map.md.
 *
 * All functions are thread-safe.  Lifecycle calls (start/stop/sync) are
 * serialized by the caller (agent.c holds its lifecycle lock).
 */
#ifndef JSYM_SINK_H
#define JSYM_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "options.h"

#define SINK_BUF_MAX (4u << 20)
#define SINK_FULL_WAIT_MS 50
#define SINK_REWRITE_MIN_MS 500

/* Open the outputs in opts->dir and start recording.  0 or -errno with a
 * one-line reason in why (also written to the log when it opened).  No
 * thread yet: until sink_run_thread, sink_sync and sink_stop flush on the
 * calling thread.  -EBUSY while the flush thread of an earlier start that
 * sink_stop gave up on has not ended (it still owns the old files). */
int sink_start(const struct agent_opts *opts, struct err_text *why);

/*
 * Start the flush thread of a started sink: `spawn` must start a new thread
 * that calls sink_flush_loop() and return 0, or return -errno with a reason.
 * The agent spawns a JVMTI agent thread (RunAgentThread), not a pthread:
 * pthread_create lived in libpthread before glibc 2.34 and a reference to
 * it would bind the glibc build to one of the two layouts (agent.c).
 * Returns once the thread runs (0), or -errno.  No-op if one runs.
 */
int sink_run_thread(int (*spawn)(struct err_text *why), struct err_text *why);

/* The flush thread's body; returns after sink_stop (after its last flush). */
void sink_flush_loop(void);

/* Is the sink started (outputs open, thread running)? */
int sink_running(void);

/* Change flush_ms / verbose / journal_max / jitdump_max of a running sink (journal_max
 * from 0 to a size only takes effect at the next start). */
void sink_update(const struct agent_opts *opts);

/* Journal an UNLOAD for every live entry, an EPOCH(3), flush, end the
 * flush thread (waits up to 5 s for its last flush), close the files.
 * A thread that is not done by then closes them itself when it ends.
 * No-op if not running. */
void sink_stop(void);

/* Write everything buffered so far (and a pending map rewrite, whatever the
 * rate limit) before returning.  Waits at most ~2 s. */
void sink_sync(void);

/*
 * A compiled method at [start, start+size).  Names are copied.  Returns the
 * new LOAD id, or 0 when the sink is stopped or the same method is already
 * live at that address with the same size (a GenerateEvents replay).
 */
uint64_t sink_record_load(uintptr_t method, uint64_t start, uint64_t size, const char *cls,
			  const char *mname, const char *sig, const char *display);

/*
 * sink_record_load, and with the jitdump on, `dbg[0..dbg_len)` (a whole
 * JIT_CODE_DEBUG_INFO of this code, jitlines.h) written right before its
 * CODE_LOAD: both or neither.  dbg may be NULL.
 */
uint64_t sink_record_load_dbg(uintptr_t method, uint64_t start, uint64_t size,
			      const char *cls, const char *mname, const char *sig,
			      const char *display, const void *dbg, size_t dbg_len);

/* Is `method` live at [start, start+size) already (a replay)?  A hint: by
 * the time the caller records it, it may have changed. */
int sink_has_load(uintptr_t method, uint64_t start, uint64_t size);

/* n_records whole FRAMES records of LOAD `parent_id`, encoded by the
 * caller (frames.h), to the journal only. */
void sink_record_raw(uint64_t parent_id, const void *recs, size_t len, unsigned n_records);

/* CompiledMethodUnload: ends the entry at `start` only if it is the LOAD of
 * `method` (never a newer entry that reuses the address). */
void sink_record_unload(uintptr_t method, uint64_t start);

/* DynamicCodeGenerated. */
void sink_record_stub(uint64_t start, uint64_t size, const char *name);

/* Journal an EPOCH record (journal_format.h reasons 1 and 2). */
void sink_record_epoch(uint64_t reason);

/* Counters for the log and tests. */
struct sink_stats {
	uint64_t loads, unloads, stubs, inlines, dups, drops, stray_unloads, rewrites;
	uint64_t map_lines;   /* entries in the table */
	uint64_t rotations;   /* journals started over (journal_max) */
	uint64_t jit_records, jit_drops;   /* jitdump CODE_LOADs written / dropped */
	uint64_t jit_capped;  /* CODE_LOADs not written: the dump reached jitdump_max */
	uint64_t jit_lines;   /* DEBUG_INFO records written */
	uint64_t jit_unwind;  /* UNWINDING_INFO records written (the counters
	                        below count written loads only) */
	uint64_t jit_unwind_fixed;   /* ... of a fixed frame (compiled code) */
	uint64_t jit_unwind_guessed; /* ... of those, no prologue found: the
	                        frame taken as whole from its frame-complete
	                        offset on */
	uint64_t jit_unwind_folded;  /* ... their tables over their own last
	                        bytes (jitunwind.h) */
	uint64_t jit_unwind_small;   /* loads without: too small to hold their
	                        tables (stubs packed in one blob) */
	uint64_t jit_unwind_none;    /* loads without: no blob or frame found */
};
void sink_get_stats(struct sink_stats *st);

#endif
