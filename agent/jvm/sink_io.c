/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sink_io.c - the flush thread and the lifecycle of the sink: each flush
 * has every output (sink_output.h) swap its buffer out under the lock and
 * write it with the lock released; start opens the output directory and
 * the outputs of the table in order, stop has them write their last
 * records and closes them (docs/agent.md).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agentlog.h"
#include "outfile.h"
#include "sink_output.h"
#include "sink_state.h"

/* ---- the flush thread ---------------------------------------------------- */

/* Each output swaps its buffer out and decides what it writes, all in one
 * hold of the lock; then each writes without it. */
static void flush_once(void)
{
	uint64_t now = sink_now();
	bool all;

	pthread_mutex_lock(&S.lock);
	all = S.flush_all;
	S.flush_all = false;
	for (size_t i = 0; i < sink_n_outputs; i++)
		if (sink_outputs[i]->take)
			sink_outputs[i]->take(now, all);
	pthread_mutex_unlock(&S.lock);
	for (size_t i = 0; i < sink_n_outputs; i++)
		if (sink_outputs[i]->write)
			sink_outputs[i]->write();
}

/* Close every output and the directory.  When no flush thread can touch
 * them any more (start/stop, or the orphaned thread itself). */
static void close_outputs(void)
{
	for (size_t i = 0; i < sink_n_outputs; i++) {
		if (sink_outputs[i]->close)
			sink_outputs[i]->close();
		S.out_on[i] = false;
	}
	if (S.dirfd >= 0)
		close(S.dirfd);
	S.dirfd = -1;
}

/* Everything a stopped sink leaves behind.  Called with the lock held, when
 * no flush thread can touch it any more. */
static void release_outputs(void)
{
	close_outputs();
	codetable_free(&S.table);
}

void sink_flush_loop(void)
{
	struct timespec dl;

	pthread_mutex_lock(&S.lock);
	S.thread_on = true;
	while (!S.quit) {
		sink_deadline(&dl, S.flush_ms);
		if (!S.kick)
			pthread_cond_timedwait(&S.wake, &S.lock, &dl);
		S.kick = false;
		S.flushing = true;
		pthread_mutex_unlock(&S.lock);
		flush_once();
		pthread_mutex_lock(&S.lock);
		S.flushing = false;
		S.flush_gen++;
		pthread_cond_broadcast(&S.drained);
	}
	pthread_mutex_unlock(&S.lock);
	flush_once();   /* the records queued by sink_stop */
	pthread_mutex_lock(&S.lock);
	S.thread_done = true;
	if (S.thread_orphaned) {
		/* sink_stop stopped waiting for us and left the files open:
		 * nobody else closes them. */
		release_outputs();
		S.thread_orphaned = false;
		S.thread_on = false;
	}
	pthread_cond_broadcast(&S.drained);
	pthread_mutex_unlock(&S.lock);
}

int sink_run_thread(int (*spawn)(struct err_text *why), struct err_text *why)
{
	int rc;

	pthread_mutex_lock(&S.lock);
	rc = S.running && !S.thread_on;
	S.quit = false;
	S.thread_done = false;
	pthread_mutex_unlock(&S.lock);
	if (!rc)
		return 0;
	rc = spawn(why);
	if (rc < 0) {
		agentlog("%s", why->msg);
		return rc;
	}
	/* Wait until it runs, so stop/sync know whom to wait for. */
	for (int i = 0; i < 2000; i++) {
		pthread_mutex_lock(&S.lock);
		rc = S.thread_on;
		pthread_mutex_unlock(&S.lock);
		if (rc)
			return 0;
		struct timespec ts = { 0, 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	err_set(why, 0, "the flush thread did not start within 2 s");
	agentlog("%s", why->msg);
	return -ETIMEDOUT;
}

void sink_sync(void)
{
	struct timespec dl;
	uint64_t want;

	pthread_mutex_lock(&S.lock);
	if (S.running && !S.thread_on) {
		/* No flush thread yet (before VMInit, or tests): flush here. */
		S.flush_all = true;
		pthread_mutex_unlock(&S.lock);
		flush_once();
		return;
	}
	if (S.running) {
		/* A flush in progress may have swapped its buffers before our
		 * request: then wait for the one after it. */
		want = S.flush_gen + (S.flushing ? 2 : 1);
		S.flush_all = true;
		S.kick = true;
		pthread_cond_signal(&S.wake);
		sink_deadline(&dl, 2000);
		while (S.running && S.flush_gen < want)
			if (pthread_cond_timedwait(&S.drained, &S.lock, &dl) != 0)
				break;
	}
	pthread_mutex_unlock(&S.lock);
}

void sink_update(const struct agent_opts *opts)
{
	pthread_mutex_lock(&S.lock);
	S.flush_ms = opts->flush_ms;
	for (size_t i = 0; i < sink_n_outputs; i++)
		if (sink_outputs[i]->update)
			sink_outputs[i]->update(opts);
	pthread_mutex_unlock(&S.lock);
	agentlog_set_verbose(opts->verbose);
}

/* ---- start / stop -------------------------------------------------------- */

/* Open the outputs in table order; the "started:" line says which. */
static int open_outputs(const struct agent_opts *opts, struct err_text *why)
{
	char words[256] = "";
	size_t n = 0;
	int rc;

	for (size_t i = 0; i < sink_n_outputs; i++) {
		rc = sink_outputs[i]->open(opts, why);
		if (rc < 0)
			return rc;
		S.out_on[i] = rc > 0;
	}
	for (size_t i = 0; i < sink_n_outputs && n < sizeof(words) - 1; i++) {
		if (sink_outputs[i]->describe)
			sink_outputs[i]->describe(words + n, sizeof(words) - n);
		n += strlen(words + n);
	}
	agentlog("started: dir=%s flush_ms=%u unfold=%d%s", opts->dir, opts->flush_ms,
		 opts->unfold, words);
	for (size_t i = 0; i < sink_n_outputs; i++)
		if (sink_outputs[i]->started)
			sink_outputs[i]->started();
	return 0;
}

int sink_start(const struct agent_opts *opts, struct err_text *why)
{
	int rc, pid = (int)getpid();

	if (sink_running())
		return 0;
	/* A flush thread that sink_stop gave up on still owns the files and
	 * may wake up any time: beside it a second one would write the same
	 * files, and opening new ones would orphan the old fds. */
	pthread_mutex_lock(&S.lock);
	rc = S.thread_on;
	pthread_mutex_unlock(&S.lock);
	if (rc) {
		err_set(why, 0, "the flush thread of the previous start has not finished "
			 "(blocked writing to %s?); retry when it has", S.last_dir);
		agentlog("%s", why->msg);
		return -EBUSY;
	}
	rc = outfile_open_dir(opts->dir);
	if (rc < 0) {
		err_set(why, 0, "cannot open output directory %s: %s (create it, or pass "
			 "dir=<writable directory>)", opts->dir, strerror(-rc));
		agentlog("%s", why->msg);
		return rc;
	}
	S.dirfd = rc;
	if (agentlog_open(S.dirfd, opts->dir, opts->verbose) < 0)
		agentlog("cannot open jsym-%d.log in %s; logging to /tmp", pid, opts->dir);
	S.pid = (uint32_t)pid;
	S.next_id = 1;
	S.flush_all = false;
	codetable_clear(&S.table);
	rc = open_outputs(opts, why);
	if (rc < 0) {
		agentlog("%s", why->msg);
		close_outputs();
		return rc;
	}
	S.flush_ms = opts->flush_ms;
	snprintf(S.last_dir, sizeof(S.last_dir), "%s", opts->dir);
	pthread_mutex_lock(&S.lock);
	S.quit = false;
	S.thread_on = false;
	S.running = true;
	pthread_mutex_unlock(&S.lock);
	return 0;
}

void sink_stop(void)
{
	struct sink_stats st;

	pthread_mutex_lock(&S.lock);
	if (!S.running) {
		pthread_mutex_unlock(&S.lock);
		return;
	}
	/* Each output's last records (the journal ends every entry). */
	for (size_t i = 0; i < sink_n_outputs; i++)
		if (S.out_on[i] && sink_outputs[i]->stop)
			sink_outputs[i]->stop();
	/* The final map is the live set, whatever the rewrite rate limit says
	 * (unloads of the last 500 ms would otherwise stay in it). */
	S.flush_all = true;
	S.running = false;
	S.quit = true;
	pthread_cond_signal(&S.wake);
	pthread_cond_broadcast(&S.drained);
	if (S.thread_on) {
		/* The thread does the final flush; wait for it, boundedly (at JVM
		 * exit it may never be scheduled again). */
		struct timespec dl;

		sink_deadline(&dl, 5000);
		while (!S.thread_done)
			if (pthread_cond_timedwait(&S.drained, &S.lock, &dl) != 0)
				break;
		if (!S.thread_done)
			agentlog("the flush thread did not finish within 5 s; closing anyway");
		pthread_mutex_unlock(&S.lock);
	} else {
		pthread_mutex_unlock(&S.lock);
		flush_once();
	}

	sink_get_stats(&st);
	agentlog("stopped: %llu loads, %llu unloads, %llu stubs, %llu inlined ranges, "
		 "%llu replays skipped, %llu unmatched unloads, %llu map rewrites, %llu drops, "
		 "%llu journal start-overs, %llu jitdump records (%llu with lines, %llu dropped, "
		 "%llu over jitdump_max), %llu with unwinding data (%llu folded into their "
		 "code; left without: %llu too small, %llu no frame known; %llu fixed frames, "
		 "%llu of them without a prologue found)",
		 (unsigned long long)st.loads, (unsigned long long)st.unloads,
		 (unsigned long long)st.stubs, (unsigned long long)st.inlines,
		 (unsigned long long)st.dups, (unsigned long long)st.stray_unloads,
		 (unsigned long long)st.rewrites, (unsigned long long)st.drops,
		 (unsigned long long)st.rotations, (unsigned long long)st.jit_records,
		 (unsigned long long)st.jit_lines, (unsigned long long)st.jit_drops,
		 (unsigned long long)st.jit_capped, (unsigned long long)st.jit_unwind,
		 (unsigned long long)st.jit_unwind_folded, (unsigned long long)st.jit_unwind_small,
		 (unsigned long long)st.jit_unwind_none, (unsigned long long)st.jit_unwind_fixed,
		 (unsigned long long)st.jit_unwind_guessed);
	pthread_mutex_lock(&S.lock);
	if (!S.thread_on || S.thread_done) {
		release_outputs();
		S.thread_on = false;
	} else {
		/* It still runs (stuck in a write?) and uses the files and
		 * buffers: it releases them when it ends (sink_flush_loop).
		 * thread_on stays set, so sink_start refuses until then. */
		S.thread_orphaned = true;
	}
	S.last_next_id = S.next_id;
	pthread_mutex_unlock(&S.lock);
	agentlog_close();
}
