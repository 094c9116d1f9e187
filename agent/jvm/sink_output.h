/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sink_output.h - one output of the sink (the perf map, the journal, the
 * jitdump): what the sink's core (sink.c, sink_io.c) calls, and the table
 * of outputs it walks.  Internal to the sink.
 *
 * Each output is one file (sink_journal.c, sink_jitdump.c, sink_map.c)
 * that owns its state: its files, its bounded buffer, what a flush took.
 * The core owns what they share: the lock, the flush thread, the live-code
 * table, the ids, the counters (sink_state.h).
 *
 * The rules of the sink hold for every hook (sink.h):
 *  - the event hooks (record, after_table, stop) and take, update and
 *    buffered run with the sink lock held, on a JVMTI callback or the
 *    flush thread: no I/O, no blocking; appends go to the output's buffer
 *    (bounded by S.buf_max).  A hook that finds its buffer full may call
 *    sink_wait_for_room() once, which releases the lock while it waits: it
 *    must then check S.running and, when the sink stopped, return
 *    -ESHUTDOWN (record) or return at once (after_table, stop).
 *  - write runs on the flush thread (or on the thread of sink_sync or
 *    sink_stop when none runs), with the lock released: it writes what
 *    take swapped out.  Only one flush runs at a time.
 *  - open and close run while no flush thread runs (sink_start, sink_stop,
 *    or a flush thread that sink_stop gave up on, when it ends).
 *
 * The core calls the event hooks of the outputs that are on (open returned
 * 1), the other hooks of every output, in the table's order.  A hook left
 * NULL is skipped.
 */
#ifndef JSYM_SINK_OUTPUT_H
#define JSYM_SINK_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errtext.h"
#include "journal.h"
#include "options.h"

enum sink_event_kind {
	SINK_LOAD,     /* a compiled method: m, name (display), data = its DEBUG_INFO */
	SINK_STUB,     /* a stub: name */
	SINK_FRAMES,   /* whole FRAMES records of LOAD `id`: data, len, n_records */
	SINK_UNLOAD,   /* the entry `id` at `start` ends */
	SINK_EPOCH,    /* journal_format.h's EPOCH with `reason` */
};

/* One thing that happened, as a producer saw it.  Names are the caller's:
 * an output that keeps one copies it. */
struct sink_event {
	enum sink_event_kind kind;
	uint64_t ts;                     /* sink_now() when it happened */
	uint64_t id;                     /* the new LOAD/STUB's id, or the parent's */
	uint64_t start, size;            /* the code */
	uint64_t reason;                 /* EPOCH */
	const struct journal_method *m;  /* LOAD */
	const char *name;                /* LOAD: the display name; STUB: its name */
	const void *data;                /* LOAD: DEBUG_INFO or NULL; FRAMES: records */
	size_t len;
	unsigned n_records;              /* FRAMES */
	/* Filled by record (LOAD, STUB): a malloc'd copy of the entry's records
	 * that the live-code table keeps with it (the bounded journal), or
	 * NULL.  The table takes it over, or frees it. */
	unsigned char *rec;
	uint32_t rec_len;
	/* Filled by the core before after_table (LOAD, STUB): an entry was
	 * live at `start` already / the table took the new one. */
	bool replaced, kept;
};

struct sink_output {
	const char *name;
	/* Its options (its flag, its size cap), parsed from that row by
	 * options.c, or NULL: it has none (the perf map). */
	const struct options_output *opts;
	/* Open the output in S.dirfd as `o` asks: 1 = on, 0 = off (not asked
	 * for, or disabled with a line in the log), -errno = the sink cannot
	 * start (the reason in why).  Before the outputs after it in the table. */
	int (*open)(const struct agent_opts *o, struct err_text *why);
	/* Append " key=value" words for the "started:" log line to out[cap]. */
	void (*describe)(char *out, size_t cap);
	/* Log more about the output, after the "started:" line. */
	void (*started)(void);
	/* A running sink's options changed (sink_update). */
	void (*update)(const struct agent_opts *o);
	/* An event, before the table changes: queue it.  0, or -ESHUTDOWN (the
	 * sink stopped while waiting for room: the core drops the event). */
	int (*record)(struct sink_event *ev);
	/* A LOAD or STUB after the table took it (or refused it), an UNLOAD
	 * after the entry was removed. */
	void (*after_table)(const struct sink_event *ev);
	/* Bytes queued (to wake the flush thread when past half its limit). */
	size_t (*buffered)(void);
	/* The sink stops: the last records (the table still holds the live
	 * code). */
	void (*stop)(void);
	/* Swap the buffer out and decide what this flush writes.  all: write
	 * everything now, whatever a rate limit says (sink_sync, sink_stop). */
	void (*take)(uint64_t now, bool all);
	/* Write what take swapped out, lock released; log its notes. */
	void (*write)(void);
	/* Close the files, free the buffers. */
	void (*close)(void);
};

extern const struct sink_output sink_journal_output, sink_jitdump_output, sink_map_output;

/* The outputs, in the order the core walks them (sink.c): the journal
 * first (its open decides S.next_id, which the jitdump's reads), the
 * perf map last.  A new output is one file and one row here (and, when
 * it takes options, a row of options_outputs[], options.h). */
#define SINK_MAX_OUTPUTS 8
extern const struct sink_output *const sink_outputs[];
extern const size_t sink_n_outputs;

#endif
