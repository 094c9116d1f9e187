/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sink_flusher.h - the agent sink's flush thread as a plain pthread, for
 * the programs that drive the sink without a JVM (the Check suite
 * check_agent_sink.c, the ThreadSanitizer harness tests/tsan/tsan_sink.c).
 * The agent itself runs sink_flush_loop in a JVMTI agent thread.
 */
#ifndef JSYM_SINK_FLUSHER_H
#define JSYM_SINK_FLUSHER_H

#include <pthread.h>
#include <stddef.h>

#include "errtext.h"

/* The thread last spawned. */
extern pthread_t sink_flusher;

/* For sink_run_thread: start a pthread running sink_flush_loop.  0, or
 * -errno with the reason in why. */
int sink_flusher_spawn(struct err_text *why);

/* How many spawned threads are inside sink_flush_loop now. */
int sink_flusher_running(void);

#endif
