/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sink_state.h - state shared by sink.c (producers: table and buffers) and
 * sink_io.c (flush thread, output files, start/stop).  Internal to the sink.
 *
 * Locking: `lock` guards everything here except the fds, which only the
 * flush thread (and start/stop, while it is not running) touches.
 */
#ifndef JSYM_SINK_STATE_H
#define JSYM_SINK_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "bbuf.h"
#include "codetable.h"
#include "jitdump.h"
#include "options.h"
#include "sink.h"

struct sink_state {
	pthread_mutex_t lock;
	pthread_cond_t wake;      /* the flush thread waits here */
	pthread_cond_t drained;   /* producers and sink_sync wait here */
	bool running, quit, force_rewrite, need_rewrite, map_refused;
	bool flushing;            /* the flush thread is between swap and done */
	bool kick;                /* flush again without waiting */
	unsigned flush_ms;
	size_t buf_max;           /* limit of each buffer: SINK_BUF_MAX (tests: less) */
	bool thread_on;           /* a flush thread runs sink_flush_loop */
	bool thread_done;         /* ... and has finished its final flush */
	bool thread_orphaned;     /* sink_stop gave up waiting for it: it
	                             closes the files itself when it ends */
	int dirfd, jfd, mapfd;
	struct bbuf jbuf, mapbuf;
	struct code_table table;
	uint64_t next_id;
	uint64_t flush_gen;       /* completed flushes */
	uint64_t last_rewrite_ns;
	struct sink_stats st;
	uint64_t drops_logged;
	int last_map_err;         /* last perfmap_replace error logged, 0 = none */
	char map_name[64], map_tmp[64], journal_name[64];
	/* the journal this process last wrote, to append to it on a restart */
	char last_dir[AGENT_DIR_MAX];
	uint64_t last_next_id;
	/* the bounded journal (journal_max, sink_rotate.c) */
	uint64_t journal_max;     /* bytes; 0 = unbounded */
	bool keep_records;        /* entries keep their records (journal_max at start) */
	uint64_t jsize;           /* bytes in the journal file */
	uint64_t jlive;           /* bytes the current file began with (header, live set) */
	uint64_t rotate_after_ns; /* no new attempt before (after a failure) */
	int last_rotate_err;
	char journal_tmp[64];
	uint64_t recent_id[8], recent_start[8];   /* last LOADs, for their INLINEs */
	unsigned recent_pos;
	/* perf's jitdump (option jitdump) */
	bool jitdump;
	uint32_t pid;
	uint64_t starttime;        /* procinfo_starttime(), for new headers */
	struct jitdump_file jd;
	struct bbuf dbuf;
	uint64_t jitdump_max;      /* bytes; 0 = unbounded */
	uint64_t jit_bytes;        /* the dump's size once dbuf is written */
	uint64_t jit_capped_base;  /* st.jit_capped when the cap was (re)set */
	bool jit_cap_said;         /* "reached jitdump_max" logged for this cap */
};

extern struct sink_state sink_state;
#define S sink_state

/* CLOCK_MONOTONIC ns. */
uint64_t sink_now(void);

/* *ts = CLOCK_REALTIME now + ms (for pthread_cond_timedwait). */
void sink_deadline(struct timespec *ts, unsigned ms);

/* sink_rotate.c: is it time to start the journal over, before writing
 * `adding` more bytes?  Lock held. */
bool sink_rotate_due(size_t adding);

/* Render the new journal into *out: header, EPOCH(JF_EPOCH_LIVE_SET) and
 * the kept records of every live entry, by id.  Lock held.  0 or -errno. */
int sink_rotate_render(struct bbuf *out);

/* Replace the journal with fresh[0..len) (tmp + rename) and continue in the
 * new file; on failure write `pending` to the old one instead.  Flush
 * thread, lock not held. */
void sink_rotate_write(const struct bbuf *fresh, const struct bbuf *pending);

#endif
