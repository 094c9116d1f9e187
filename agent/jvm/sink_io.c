/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sink_io.c - the flush thread and the output files of the sink: swaps the
 * filled buffers out under the lock and writes them with the lock released,
 * appends to or atomically rewrites the perf map, opens and closes the
 * journal (docs/perf-map.md, docs/agent.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agentlog.h"
#include "journal.h"
#include "outfile.h"
#include "perfmap.h"
#include "procinfo.h"
#include "sink_state.h"

/* ---- the flush thread ---------------------------------------------------- */

/* Appending to an unlinked map would write into nothing visible. */
static bool map_was_removed(void)
{
	struct stat st;

	return fstat(S.mapfd, &st) == 0 && st.st_nlink == 0;
}

/* What one flush takes from the sink under the lock and writes without it. */
struct flush_batch {
	struct bbuf jout, mout, dout;   /* the swapped-out buffers */
	struct bbuf full;               /* the map's new text, when rewrite */
	struct bbuf fresh;              /* the new journal's start, when rotate */
	bool rewrite, rotate, say_cap;
	uint64_t drops, jit_max;
};

/* Starting the journal over: the live set is taken in the same hold as the
 * swap, so it reflects exactly the records of jout (sink_rotate.c).  Lock
 * held. */
static void plan_rotate(struct flush_batch *b)
{
	if (!b->jout.len || !sink_rotate_due(b->jout.len))
		return;
	if (sink_rotate_render(&b->fresh) == 0)
		b->rotate = true;
	else
		bbuf_free(&b->fresh);
}

/* The map rewritten from the live table when it is missing, or due and not
 * rewritten in the last SINK_REWRITE_MIN_MS.  Lock held. */
static void plan_rewrite(struct flush_batch *b, uint64_t now)
{
	if (S.map_refused || !(S.mapfd < 0 || S.need_rewrite) ||
	    !(S.mapfd < 0 || S.force_rewrite ||
	      now - S.last_rewrite_ns >= SINK_REWRITE_MIN_MS * 1000000ull))
		return;
	if (perfmap_render(&S.table, &b->full) == 0) {
		b->rewrite = true;
		S.need_rewrite = false;
		S.last_rewrite_ns = now;
		bbuf_clear(&b->mout);   /* the table already holds those lines */
	} else {
		bbuf_free(&b->full);
	}
}

/* The filled buffers swapped out, and what this flush must do, decided under
 * the lock. */
static void take_batch(struct flush_batch *b, uint64_t now)
{
	pthread_mutex_lock(&S.lock);
	b->jout = S.jbuf;
	b->mout = S.mapbuf;
	b->dout = S.dbuf;
	S.jbuf = (struct bbuf){ .max = S.buf_max };
	S.mapbuf = (struct bbuf){ .max = S.buf_max };
	S.dbuf = (struct bbuf){ .max = S.buf_max };
	plan_rotate(b);
	plan_rewrite(b, now);
	S.force_rewrite = false;
	b->drops = S.st.drops;
	/* The cap's note is decided here, under the lock that sink_update
	 * holds when it resets the cap (a race ThreadSanitizer found when
	 * this was read after the unlock). */
	if (S.st.jit_capped > S.jit_capped_base && !S.jit_cap_said) {
		S.jit_cap_said = true;
		b->say_cap = true;
		b->jit_max = S.jitdump_max;
	}
	pthread_mutex_unlock(&S.lock);
}

/* The journal's and the jitdump's new bytes, or a rotated journal. */
static void write_journals(struct flush_batch *b)
{
	int rc;

	if (b->rotate) {
		sink_rotate_write(&b->fresh, &b->jout);
	} else if (b->jout.len && S.jfd >= 0) {
		rc = write_all(S.jfd, b->jout.data, b->jout.len);
		if (rc < 0)
			agentlog("cannot write %s: %s (%zu bytes lost)", S.journal_name,
				 strerror(-rc), b->jout.len);
		else
			S.jsize += b->jout.len;
	}
	if (b->dout.len && S.jd.fd >= 0) {
		rc = write_all(S.jd.fd, b->dout.data, b->dout.len);
		if (rc < 0)
			agentlog("cannot write the jitdump: %s (%zu bytes lost)", strerror(-rc),
				 b->dout.len);
	}
}

/* Under the lock: the map wanted again at the next flush (force: even
 * within SINK_REWRITE_MIN_MS). */
static void want_rewrite(bool force)
{
	pthread_mutex_lock(&S.lock);
	S.need_rewrite = true;
	if (force)
		S.force_rewrite = true;
	pthread_mutex_unlock(&S.lock);
}

/* The map replaced atomically by the table's text. */
static void rewrite_map(const struct bbuf *full)
{
	struct err_text why = { "" };
	int rc = perfmap_replace(S.dirfd, S.map_name, S.map_tmp, full->data, full->len,
				 &why);

	if (rc >= 0) {
		if (S.mapfd >= 0)
			close(S.mapfd);
		S.mapfd = rc;
		S.last_map_err = 0;
		pthread_mutex_lock(&S.lock);
		S.st.rewrites++;
		pthread_mutex_unlock(&S.lock);
		return;
	}
	if (rc != S.last_map_err)   /* once per cause, not every flush */
		agentlog("perf map not written: %s", why.msg);
	S.last_map_err = rc;
	if (rc == -EPERM || rc == -ELOOP) {
		pthread_mutex_lock(&S.lock);
		S.map_refused = true;   /* never touch a planted file */
		pthread_mutex_unlock(&S.lock);
	} else {
		want_rewrite(false);    /* try again next time */
	}
}

/* The map rewritten or appended to; a map removed under us is written
 * again at the next flush. */
static void write_map(const struct flush_batch *b)
{
	int rc;

	if (b->rewrite) {
		rewrite_map(&b->full);
	} else if (b->mout.len && S.mapfd >= 0) {
		rc = write_all(S.mapfd, b->mout.data, b->mout.len);
		if (rc < 0) {
			agentlog("cannot append to %s: %s (will rewrite it)", S.map_name,
				 strerror(-rc));
			want_rewrite(false);
		}
	}
	if (S.mapfd >= 0 && map_was_removed()) {
		agentlog("%s was removed (a /tmp cleaner?): writing it again", S.map_name);
		want_rewrite(true);
	}
}

/* The notes decided under the lock: the jitdump's cap, the drops. */
static void say_notes(const struct flush_batch *b)
{
	if (b->say_cap) {
		/* once per start: from now on every new method would say it */
		agentlog("jitdump reached jitdump_max=%llu bytes: code compiled from now on is "
			 "not dumped (perf shows it from perf-%u.map); raise jitdump_max, or stop "
			 "the agent and load it again with another dir=",
			 (unsigned long long)b->jit_max, S.pid);
	}
	if (b->drops > S.drops_logged) {
		agentlog("dropped %llu journal records so far: buffer full (%zu bytes) for more "
			 "than %d ms; the perf map stays complete",
			 (unsigned long long)b->drops, S.buf_max, SINK_FULL_WAIT_MS);
		S.drops_logged = b->drops;
	}
}

static void flush_once(void)
{
	struct flush_batch b = { .full = { 0 }, .fresh = { 0 } };

	take_batch(&b, sink_now());
	write_journals(&b);
	write_map(&b);
	say_notes(&b);
	bbuf_free(&b.jout);
	bbuf_free(&b.mout);
	bbuf_free(&b.dout);
	bbuf_free(&b.full);
	bbuf_free(&b.fresh);
}

static void close_files(void)
{
	if (S.jfd >= 0)
		close(S.jfd);
	if (S.mapfd >= 0)
		close(S.mapfd);
	if (S.dirfd >= 0)
		close(S.dirfd);
	S.jfd = S.mapfd = S.dirfd = -1;
	jitdump_close(&S.jd);
}

/* Everything a stopped sink leaves behind.  Called with the lock held, when
 * no flush thread can touch it any more. */
static void release_outputs(void)
{
	close_files();
	codetable_free(&S.table);
	bbuf_free(&S.jbuf);
	bbuf_free(&S.mapbuf);
	bbuf_free(&S.dbuf);
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
		S.force_rewrite = true;
		pthread_mutex_unlock(&S.lock);
		flush_once();
		return;
	}
	if (S.running) {
		/* A flush in progress may have swapped its buffers before our
		 * request: then wait for the one after it. */
		want = S.flush_gen + (S.flushing ? 2 : 1);
		S.force_rewrite = true;
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
	if (S.keep_records || !opts->journal_max)
		S.journal_max = opts->journal_max;
	if (opts->jitdump_max != S.jitdump_max) {
		/* a new cap: say it again when it is reached */
		S.jit_capped_base = S.st.jit_capped;
		S.jit_cap_said = false;
	}
	S.jitdump_max = opts->jitdump_max;
	pthread_mutex_unlock(&S.lock);
	agentlog_set_verbose(opts->verbose);
}

/* ---- start / stop -------------------------------------------------------- */

/* Open the journal: continue this process's own journal after a stop in the
 * same directory, else start a new one (the file may be a previous
 * process's with the same pid, e.g. PID 1 of a restarted container). */
static int open_journal(const struct agent_opts *opts, struct err_text *why)
{
	unsigned char h[JF_HEADER_SIZE];
	uint64_t starttime = procinfo_starttime();
	int fd = outfile_open(S.dirfd, S.journal_name, O_RDWR | O_APPEND, why);

	struct stat st;

	if (fd < 0)
		return fd;
	S.jfd = fd;
	S.starttime = starttime;
	S.jsize = S.jlive = 0;
	S.rotate_after_ns = 0;
	S.last_rotate_err = 0;
	if (S.last_next_id && strcmp(S.last_dir, opts->dir) == 0 &&
	    pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h) && memcmp(h, JF_MAGIC, 8) == 0 &&
	    jf_get32(h + JF_H_PID) == (uint32_t)getpid() &&
	    jf_get64(h + JF_H_PROC_STARTTIME) == starttime) {
		S.next_id = S.last_next_id;
		if (fstat(fd, &st) == 0)
			S.jsize = (uint64_t)st.st_size;
		return 0;
	}
	if (ftruncate(fd, 0) < 0) {
		int err = -errno;

		err_set(why, 0, "cannot truncate %s: %s", S.journal_name, strerror(-err));
		return err;
	}
	S.next_id = 1;
	return journal_put_header(&S.jbuf, (uint32_t)getpid(), journal_realtime_ns(), starttime,
				  JSYM_AGENT_VERSION);
}

/* The jitdump, when asked for: continued with the journal, else new.  Not
 * fatal: the map and the journal do not need it. */
static void open_jitdump(const struct agent_opts *opts)
{
	struct err_text why = { "" };
	int rc;

	S.jitdump = false;
	S.jitdump_max = opts->jitdump_max;
	S.jit_capped_base = S.st.jit_capped;   /* the counters run across starts */
	S.jit_cap_said = false;
	if (!opts->jitdump)
		return;
	rc = jitdump_open(&S.jd, S.dirfd, (int)S.pid, S.next_id > 1, &why);
	if (rc < 0) {
		agentlog("jitdump disabled: %s", why.msg);
		return;
	}
	if (why.msg[0])
		agentlog("jitdump: %s", why.msg);
	if (S.jd.size == 0 && jitdump_put_header(&S.dbuf, S.pid, sink_now()) < 0) {
		agentlog("jitdump disabled: out of memory");
		jitdump_close(&S.jd);
		return;
	}
	S.jit_bytes = S.jd.size ? S.jd.size : JITDUMP_HEADER_SIZE;
	S.jitdump = true;
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
	snprintf(S.map_name, sizeof(S.map_name), "perf-%d.map", pid);
	snprintf(S.map_tmp, sizeof(S.map_tmp), "perf-%d.map.tmp", pid);
	snprintf(S.journal_name, sizeof(S.journal_name), "jsym-%d.journal", pid);
	snprintf(S.journal_tmp, sizeof(S.journal_tmp), "jsym-%d.journal.tmp", pid);
	S.pid = (uint32_t)pid;
	S.journal_max = opts->journal_max;
	S.keep_records = opts->journal_max != 0;

	S.jbuf = (struct bbuf){ .max = S.buf_max };
	S.mapbuf = (struct bbuf){ .max = S.buf_max };
	S.dbuf = (struct bbuf){ .max = S.buf_max };
	rc = open_journal(opts, why);
	if (rc < 0)
		goto fail;
	open_jitdump(opts);
	S.map_refused = false;
	rc = outfile_check(S.dirfd, S.map_name, why);
	if (rc < 0 && rc != -ENOENT) {
		agentlog("perf map disabled: %s", why->msg);
		S.map_refused = true;
	}
	codetable_clear(&S.table);
	S.need_rewrite = true;
	S.force_rewrite = true;
	S.flush_ms = opts->flush_ms;
	pthread_mutex_lock(&S.lock);
	S.quit = false;
	S.thread_on = false;
	S.running = true;
	pthread_mutex_unlock(&S.lock);
	S.drops_logged = S.st.drops;

	snprintf(S.last_dir, sizeof(S.last_dir), "%s", opts->dir);
	agentlog("started: dir=%s flush_ms=%u unfold=%d map=%s journal=%s%s journal_max=%llu%s",
		 opts->dir, opts->flush_ms, opts->unfold,
		 S.map_refused ? "(refused)" : S.map_name, S.journal_name,
		 S.next_id > 1 ? " (appending)" : "", (unsigned long long)opts->journal_max,
		 S.jitdump ? " jitdump=on" : "");
	if (S.jitdump)
		agentlog("jitdump: %s, jitdump_max=%llu%s", opts->lines ? "with source lines" :
			 "without source lines (add lines)", (unsigned long long)S.jitdump_max,
			 S.jd.size ? " (appending)" : "");
	return 0;
fail:
	agentlog("%s", why->msg);
	bbuf_free(&S.jbuf);
	bbuf_free(&S.mapbuf);
	bbuf_free(&S.dbuf);
	close_files();
	return rc;
}

void sink_stop(void)
{
	struct sink_stats st;

	pthread_mutex_lock(&S.lock);
	if (!S.running) {
		pthread_mutex_unlock(&S.lock);
		return;
	}
	/* From here on nothing is tracked: end every entry, then say so. */
	for (size_t i = 0; i < S.table.cap; i++) {
		struct code_entry *e = &S.table.slots[i];

		if (e->start && journal_put_unload(&S.jbuf, sink_now(), e->id, e->start) < 0)
			S.st.drops++;
	}
	if (journal_put_epoch(&S.jbuf, sink_now(), JF_EPOCH_STOPPED) < 0)
		S.st.drops++;
	if (S.jitdump && S.jd.fd >= 0)
		(void)jitdump_put_close(&S.dbuf, sink_now());
	/* The final map is the live set, whatever the rewrite rate limit says
	 * (unloads of the last 500 ms would otherwise stay in it). */
	S.force_rewrite = true;
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
		 "%llu over jitdump_max)",
		 (unsigned long long)st.loads, (unsigned long long)st.unloads,
		 (unsigned long long)st.stubs, (unsigned long long)st.inlines,
		 (unsigned long long)st.dups, (unsigned long long)st.stray_unloads,
		 (unsigned long long)st.rewrites, (unsigned long long)st.drops,
		 (unsigned long long)st.rotations, (unsigned long long)st.jit_records,
		 (unsigned long long)st.jit_lines, (unsigned long long)st.jit_drops,
		 (unsigned long long)st.jit_capped);
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
