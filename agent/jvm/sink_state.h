/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sink_state.h - the sink's core state, shared by sink.c (producers: the
 * live-code table), sink_io.c (the flush thread, start/stop) and the
 * outputs (sink_output.h), which keep their own state in their own files.
 * Internal to the sink.
 *
 * Locking: `lock` guards everything here except dirfd, which only
 * start/stop touch (no flush thread runs then).
 */
#ifndef JSYM_SINK_STATE_H
#define JSYM_SINK_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "bbuf.h"
#include "codetable.h"
#include "options.h"
#include "sink.h"
#include "sink_output.h"

struct sink_state {
	pthread_mutex_t lock;
	pthread_cond_t wake;      /* the flush thread waits here */
	pthread_cond_t drained;   /* producers and sink_sync wait here */
	bool running, quit;
	bool flush_all;           /* the next flush ignores rate limits (sync, stop) */
	bool flushing;            /* the flush thread is between swap and done */
	bool kick;                /* flush again without waiting */
	unsigned flush_ms;
	size_t buf_max;           /* limit of each output's buffer: SINK_BUF_MAX (tests: less) */
	bool thread_on;           /* a flush thread runs sink_flush_loop */
	bool thread_done;         /* ... and has finished its final flush */
	bool thread_orphaned;     /* sink_stop gave up waiting for it: it
	                             closes the files itself when it ends */
	int dirfd;                /* the output directory */
	bool out_on[SINK_MAX_OUTPUTS];   /* sink_outputs[i] is on (its open said so) */
	uint32_t pid;
	struct code_table table;  /* the live code */
	uint64_t next_id;         /* of the next LOAD/STUB (the journal may continue) */
	uint64_t flush_gen;       /* completed flushes */
	struct sink_stats st;
	/* the directory this process last wrote to, and its next id then, so
	 * that a restart in it continues the journal */
	char last_dir[AGENT_DIR_MAX];
	uint64_t last_next_id;
};

extern struct sink_state sink_state;
#define S sink_state

/* CLOCK_MONOTONIC ns. */
uint64_t sink_now(void);

/* *ts = CLOCK_REALTIME now + ms (for pthread_cond_timedwait). */
void sink_deadline(struct timespec *ts, unsigned ms);

/* A buffer is full: wake the flush thread and wait once, up to
 * SINK_FULL_WAIT_MS, for it to drain.  Lock held (released while waiting);
 * the caller re-checks S.running and retries once. */
int sink_wait_for_room(void);

/* Wake the flush thread when an output's buffer is past half its limit.
 * Lock held. */
void sink_maybe_wake(void);

#endif
