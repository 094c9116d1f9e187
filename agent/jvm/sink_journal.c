/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sink_journal.c - the journal output of the sink (sink_output.h):
 * jsym-<pid>.journal, every event as a record (journal_format.h), continued
 * after a stop and a start in the same directory, started over with the
 * live code past journal_max (sink_rotate.c).  docs/agent.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agentlog.h"
#include "journal.h"
#include "outfile.h"
#include "procinfo.h"
#include "sink_journal.h"
#include "sink_output.h"
#include "sink_state.h"

struct sink_journal sink_journal = { .fd = -1 };

int sink_journal_fd(void)
{
	return J.fd;
}

/* ---- producers (lock held) ---------------------------------------------- */

static int encode(struct bbuf *b, const struct sink_event *ev)
{
	switch (ev->kind) {
	case SINK_LOAD:
		return journal_put_method(b, JF_LOAD, ev->ts, ev->id, ev->m);
	case SINK_UNLOAD:
		return journal_put_unload(b, ev->ts, ev->id, ev->start);
	case SINK_STUB:
		return journal_put_stub(b, ev->ts, ev->id, ev->start, ev->size, ev->name);
	case SINK_FRAMES:
		return bbuf_append(b, ev->data, ev->len);
	default:
		return journal_put_epoch(b, ev->ts, ev->reason);
	}
}

/*
 * Queue a record.  A full buffer gets one wait for room; then the record
 * is dropped and counted (by the caller).  Returns 0 (the record is
 * J.buf.data[*off..]), -ENOBUFS/-ENOMEM (dropped) or -ESHUTDOWN (the sink
 * stopped while we waited: do nothing more).
 */
static int add(const struct sink_event *ev, size_t *off)
{
	int rc;

	*off = J.buf.len;
	rc = encode(&J.buf, ev);
	if (rc == -ENOBUFS) {
		sink_wait_for_room();
		if (!S.running)
			return -ESHUTDOWN;
		*off = J.buf.len;
		rc = encode(&J.buf, ev);
	}
	return rc;
}

/*
 * For a bounded journal, a malloc'd copy of the record add just queued at
 * `off` (returned rc), or of the record encoded again when it was dropped:
 * a journal started over must hold every live entry.  NULL when records
 * are not kept, or out of memory.
 */
static unsigned char *kept_copy(const struct sink_event *ev, int rc, size_t off, uint32_t *len)
{
	struct bbuf one = { 0 };

	*len = 0;
	if (!J.keep_records)
		return NULL;
	if (rc == 0 ? bbuf_append(&one, J.buf.data + off, J.buf.len - off) : encode(&one, ev)) {
		bbuf_free(&one);
		return NULL;
	}
	*len = (uint32_t)one.len;
	return one.data;
}

/* The live entry whose LOAD has `id` (its FRAMES follow it closely). */
static struct code_entry *entry_by_id(uint64_t id)
{
	struct code_entry *e;

	for (unsigned i = 0; i < 8; i++)
		if (J.recent_id[i] == id && (e = codetable_find(&S.table, J.recent_start[i])) &&
		    e->id == id)
			return e;
	for (size_t i = 0; (e = codetable_next(&S.table, &i));)
		if (e->id == id)
			return e;
	return NULL;
}

/* FRAMES: whole records encoded by the caller (frames.h); a journal
 * started over must hold the live entry's FRAMES too. */
static int record_frames(const struct sink_event *ev)
{
	size_t off;
	int rc = add(ev, &off);

	if (rc == -ESHUTDOWN)
		return rc;
	if (rc < 0)
		S.st.drops += ev->n_records;
	else
		S.st.inlines += ev->n_records;
	if (J.keep_records) {
		struct code_entry *parent = entry_by_id(ev->id);

		if (parent && codetable_add_rec(parent, ev->data, ev->len) < 0)
			S.st.drops += ev->n_records;
	}
	sink_maybe_wake();
	return 0;
}

static int out_record(struct sink_event *ev)
{
	size_t off;
	int rc;

	if (ev->kind == SINK_FRAMES)
		return record_frames(ev);
	rc = add(ev, &off);
	if (rc == -ESHUTDOWN)
		return rc;
	if (rc < 0)
		S.st.drops++;
	sink_maybe_wake();
	if (ev->kind == SINK_LOAD || ev->kind == SINK_STUB)
		ev->rec = kept_copy(ev, rc, off, &ev->rec_len);
	return 0;
}

/* The last LOADs and STUBs, for entry_by_id. */
static void out_after_table(const struct sink_event *ev)
{
	if (ev->kind != SINK_LOAD && ev->kind != SINK_STUB)
		return;
	J.recent_id[J.recent_pos] = ev->id;
	J.recent_start[J.recent_pos] = ev->start;
	J.recent_pos = (J.recent_pos + 1) % 8;
}

static size_t out_buffered(void)
{
	return J.buf.len;
}

/* From here on nothing is tracked: end every entry, then say so. */
static void out_stop(void)
{
	struct code_entry *e;

	for (size_t i = 0; (e = codetable_next(&S.table, &i));)
		if (journal_put_unload(&J.buf, sink_now(), e->id, e->start) < 0)
			S.st.drops++;
	if (journal_put_epoch(&J.buf, sink_now(), JF_EPOCH_STOPPED) < 0)
		S.st.drops++;
}

static void out_update(const struct agent_opts *o)
{
	if (J.keep_records || !o->journal_max)
		J.max = o->journal_max;
}

/* ---- the flush ----------------------------------------------------------- */

/* Starting the journal over: the live set is taken in the same hold as the
 * swap, so it reflects exactly the records swapped out (sink_rotate.c). */
static void out_take(uint64_t now, bool all)
{
	(void)now;
	(void)all;
	J.out = J.buf;
	J.buf = (struct bbuf){ .max = S.buf_max };
	J.fresh = (struct bbuf){ 0 };
	J.rotate = false;
	if (J.out.len && sink_rotate_due(J.out.len)) {
		if (sink_rotate_render(&J.fresh) == 0)
			J.rotate = true;
		else
			bbuf_free(&J.fresh);
	}
	J.drops = S.st.drops;
}

static void out_write(void)
{
	int rc;

	if (J.rotate) {
		sink_rotate_write(&J.fresh, &J.out);
	} else if (J.out.len && J.fd >= 0) {
		rc = write_all(J.fd, J.out.data, J.out.len);
		if (rc < 0)
			agentlog("cannot write %s: %s (%zu bytes lost)", J.name, strerror(-rc),
				 J.out.len);
		else
			J.size += J.out.len;
	}
	if (J.drops > J.drops_logged) {
		agentlog("dropped %llu journal records so far: buffer full (%zu bytes) for more "
			 "than %d ms; the perf map stays complete",
			 (unsigned long long)J.drops, S.buf_max, SINK_FULL_WAIT_MS);
		J.drops_logged = J.drops;
	}
	bbuf_free(&J.out);
	bbuf_free(&J.fresh);
}

/* ---- open / close -------------------------------------------------------- */

/* Continue this process's own journal after a stop in the same directory,
 * else start a new one (the file may be a previous process's with the same
 * pid, e.g. PID 1 of a restarted container). */
static int out_open(const struct agent_opts *o, struct err_text *why)
{
	unsigned char h[JF_HEADER_SIZE];
	uint64_t starttime = procinfo_starttime();
	struct stat st;
	int fd;

	snprintf(J.name, sizeof(J.name), "jsym-%u.journal", S.pid);
	snprintf(J.tmp, sizeof(J.tmp), "jsym-%u.journal.tmp", S.pid);
	J.max = o->journal_max;
	J.keep_records = o->journal_max != 0;
	J.buf = (struct bbuf){ .max = S.buf_max };
	J.drops_logged = S.st.drops;
	fd = outfile_open(S.dirfd, J.name, O_RDWR | O_APPEND, why);
	if (fd < 0)
		return fd;
	J.fd = fd;
	J.starttime = starttime;
	J.size = J.live = 0;
	J.rotate_after_ns = 0;
	J.last_rotate_err = 0;
	if (S.last_next_id && strcmp(S.last_dir, o->dir) == 0 &&
	    pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h) && memcmp(h, JF_MAGIC, 8) == 0 &&
	    jf_get32(h + JF_H_PID) == S.pid && jf_get64(h + JF_H_PROC_STARTTIME) == starttime) {
		S.next_id = S.last_next_id;
		if (fstat(fd, &st) == 0)
			J.size = (uint64_t)st.st_size;
		return 1;
	}
	if (ftruncate(fd, 0) < 0) {
		int err = -errno;

		err_set(why, 0, "cannot truncate %s: %s", J.name, strerror(-err));
		return err;
	}
	S.next_id = 1;
	fd = journal_put_header(&J.buf, S.pid, journal_realtime_ns(), starttime,
				JSYM_AGENT_VERSION);
	return fd < 0 ? fd : 1;
}

static void out_describe(char *out, size_t cap)
{
	snprintf(out, cap, " journal=%s%s journal_max=%llu", J.name,
		 S.next_id > 1 ? " (appending)" : "", (unsigned long long)J.max);
}

static void out_close(void)
{
	if (J.fd >= 0)
		close(J.fd);
	J.fd = -1;
	bbuf_free(&J.buf);
}

const struct sink_output sink_journal_output = {
	.name = "journal",
	.opts = &options_journal,
	.open = out_open,
	.describe = out_describe,
	.update = out_update,
	.record = out_record,
	.after_table = out_after_table,
	.buffered = out_buffered,
	.stop = out_stop,
	.take = out_take,
	.write = out_write,
	.close = out_close,
};
