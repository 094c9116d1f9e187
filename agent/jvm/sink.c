/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sink.c - the producer side of the sink: live-code table and bounded
 * buffers, fed by the JVMTI callbacks under one short lock (sink.h).
 * The flush thread and the files are in sink_io.c.
 */
#include "sink.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "journal.h"
#include "perfmap.h"
#include "sink_state.h"

struct sink_state sink_state = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
	.drained = PTHREAD_COND_INITIALIZER,
	.dirfd = -1, .jfd = -1, .mapfd = -1,
	.jd = { .fd = -1 },
	.buf_max = SINK_BUF_MAX,
};

uint64_t sink_now(void)
{
	return journal_now();
}

void sink_deadline(struct timespec *ts, unsigned ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* ---- producers (lock held) ---------------------------------------------- */

/*
 * A buffer is full: wake the flush thread and wait once, up to
 * SINK_FULL_WAIT_MS, for it to drain.  Lock held (released while waiting);
 * the caller re-checks S.running and retries once.
 */
static int wait_for_room(void)
{
	struct timespec dl;

	if (!S.thread_on)
		return ETIMEDOUT;   /* nobody would drain it (before VMInit) */
	S.kick = true;
	pthread_cond_signal(&S.wake);
	sink_deadline(&dl, SINK_FULL_WAIT_MS);
	return pthread_cond_timedwait(&S.drained, &S.lock, &dl);
}

static void maybe_wake(void)
{
	if (S.jbuf.len > S.buf_max / 2 || S.mapbuf.len > S.buf_max / 2 ||
	    S.dbuf.len > S.buf_max / 2) {
		S.kick = true;
		pthread_cond_signal(&S.wake);
	}
}

static void map_append(uint64_t start, uint64_t size, const char *name)
{
	if (perfmap_put_line(&S.mapbuf, start, size, name) < 0)
		S.need_rewrite = true;   /* the rewrite from the table catches up */
}

/* One journal record to queue: which encoder, and its arguments. */
struct jrec {
	uint16_t type;
	uint64_t ts, id, start, size;      /* EPOCH: size = reason */
	const struct journal_method *m;    /* LOAD / INLINE */
	const char *name;                  /* STUB */
};

static int encode(struct bbuf *b, const struct jrec *r)
{
	switch (r->type) {
	case JF_LOAD:
	case JF_INLINE:
		return journal_put_method(b, r->type, r->ts, r->id, r->m);
	case JF_UNLOAD:
		return journal_put_unload(b, r->ts, r->id, r->start);
	case JF_STUB:
		return journal_put_stub(b, r->ts, r->id, r->start, r->size, r->name);
	default:
		return journal_put_epoch(b, r->ts, r->size);
	}
}

/*
 * Queue a record (lock held).  A full buffer gets one wait for room; then
 * the record is dropped and counted.  Returns 0 (the record is
 * S.jbuf.data[*off..]), -ENOBUFS/-ENOMEM (dropped) or -ESHUTDOWN (the sink
 * stopped while we waited: do nothing more).
 */
static int journal_add(const struct jrec *r, size_t *off)
{
	int rc;

	*off = S.jbuf.len;
	rc = encode(&S.jbuf, r);
	if (rc == -ENOBUFS) {
		wait_for_room();
		if (!S.running)
			return -ESHUTDOWN;
		*off = S.jbuf.len;
		rc = encode(&S.jbuf, r);
	}
	if (rc < 0)
		S.st.drops++;
	maybe_wake();
	return rc;
}

/*
 * For a bounded journal, a malloc'd copy of the record journal_add just
 * queued at `off` (returned rc), or of the record encoded again when it was
 * dropped: a journal started over must hold every live entry.  NULL when
 * records are not kept, or out of memory.
 */
static unsigned char *kept_copy(const struct jrec *r, int rc, size_t off, uint32_t *len)
{
	struct bbuf one = { 0 };

	*len = 0;
	if (!S.keep_records)
		return NULL;
	if (rc == 0 ? bbuf_append(&one, S.jbuf.data + off, S.jbuf.len - off) : encode(&one, r)) {
		bbuf_free(&one);
		return NULL;
	}
	*len = (uint32_t)one.len;
	return one.data;
}

/* The live entry whose LOAD has `id` (its INLINEs follow it closely). */
static struct code_entry *entry_by_id(uint64_t id)
{
	struct code_entry *e;

	for (unsigned i = 0; i < 8; i++)
		if (S.recent_id[i] == id && (e = codetable_find(&S.table, S.recent_start[i])) &&
		    e->id == id)
			return e;
	for (size_t i = 0; i < S.table.cap; i++)
		if (S.table.slots[i].start && S.table.slots[i].id == id)
			return &S.table.slots[i];
	return NULL;
}

/* Does a record of `need` bytes still fit the dump under jitdump_max?  The
 * CODE_CLOSE of the stop always has its room kept. */
static bool jit_fits(size_t need)
{
	return !S.jitdump_max ||
	       S.jit_bytes + need + JITDUMP_PREFIX_SIZE <= S.jitdump_max;
}

/* Append the DEBUG_INFO `dbg` (may be empty) and the CODE_LOAD, adjacent:
 * both or neither.  0 or -errno (dbuf unchanged). */
static int jit_put(uint32_t tid, uint64_t start, uint64_t size, const char *name, uint64_t id,
		   const void *dbg, size_t dbg_len)
{
	size_t len0 = S.dbuf.len;
	int rc = dbg_len ? bbuf_append(&S.dbuf, dbg, dbg_len) : 0;

	if (rc == 0)
		rc = jitdump_put_code_load(&S.dbuf, sink_now(), S.pid, tid, start, size, id, name);
	if (rc < 0)
		S.dbuf.len = len0;
	return rc;
}

/*
 * A jitdump CODE_LOAD with the code bytes, copied now (lock held; the
 * callback that reported the code runs, so it is live and readable), after
 * its DEBUG_INFO when there is one.  Past jitdump_max nothing more is
 * appended (counted; the flush thread logs it).
 */
static void jit_add(uint64_t start, uint64_t size, const char *name, uint64_t id,
		    const void *dbg, size_t dbg_len)
{
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	size_t need;
	int rc;

	if (!S.jitdump || S.jd.fd < 0)
		return;
	need = dbg_len + jitdump_code_load_size(name, size);
	if (size && size <= JITDUMP_MAX_CODE && !jit_fits(need)) {
		S.st.jit_capped++;
		return;
	}
	rc = jit_put(tid, start, size, name, id, dbg, dbg_len);
	if (rc == -ENOBUFS) {
		wait_for_room();
		if (!S.running)
			return;
		rc = jit_put(tid, start, size, name, id, dbg, dbg_len);
	}
	if (rc == 0) {
		S.st.jit_records++;
		S.st.jit_lines += dbg_len != 0;
		S.jit_bytes += need;
	} else if (rc != -EINVAL) {
		S.st.jit_drops++;
	}
	maybe_wake();
}

/* Put a new entry in the table (and its line in the map buffer). */
static void table_add(const struct code_entry *e)
{
	if (codetable_find(&S.table, e->start))
		S.need_rewrite = true;   /* replaced without an unload: old line must go */
	if (codetable_put(&S.table, e) < 0) {
		free(e->rec);
		S.st.drops++;
	} else {
		map_append(e->start, e->size, e->name);
	}
	S.recent_id[S.recent_pos] = e->id;
	S.recent_start[S.recent_pos] = e->start;
	S.recent_pos = (S.recent_pos + 1) % 8;
}

uint64_t sink_record_load(uintptr_t method, uint64_t start, uint64_t size, const char *cls,
			  const char *mname, const char *sig, const char *display)
{
	return sink_record_load_dbg(method, start, size, cls, mname, sig, display, NULL, 0);
}

int sink_has_load(uintptr_t method, uint64_t start, uint64_t size)
{
	struct code_entry *e;
	int r;

	pthread_mutex_lock(&S.lock);
	e = S.running ? codetable_find(&S.table, start) : NULL;
	r = e && e->size == size && e->kind == CODE_METHOD && e->method == method;
	pthread_mutex_unlock(&S.lock);
	return r;
}

uint64_t sink_record_load_dbg(uintptr_t method, uint64_t start, uint64_t size,
			      const char *cls, const char *mname, const char *sig,
			      const char *display, const void *dbg, size_t dbg_len)
{
	struct journal_method m = { start, size, cls, mname, sig, display };
	struct code_entry e = { start, size, 0, method, (char *)display, CODE_METHOD, NULL, 0 };
	struct jrec r = { .type = JF_LOAD, .ts = sink_now(), .m = &m };
	struct code_entry *old;
	size_t off;
	int rc;

	pthread_mutex_lock(&S.lock);
	if (!S.running || !start)
		goto out;
	old = codetable_find(&S.table, start);
	if (old && old->size == size && old->kind == CODE_METHOD && old->method == method &&
	    strcmp(old->name, display) == 0) {
		S.st.dups++;
		goto out;
	}
	e.id = r.id = S.next_id++;
	rc = journal_add(&r, &off);
	if (rc == -ESHUTDOWN) {
		e.id = 0;
		goto out;
	}
	e.rec = kept_copy(&r, rc, off, &e.rec_len);
	table_add(&e);
	S.st.loads++;
	jit_add(start, size, display, e.id, dbg, dbg_len);
out:
	pthread_mutex_unlock(&S.lock);
	return e.id;
}

void sink_record_inline(uint64_t parent_id, uint64_t start, uint64_t size, const char *cls,
			const char *mname, const char *sig, const char *display)
{
	struct journal_method m = { start, size, cls, mname, sig, display };
	struct jrec r = { .type = JF_INLINE, .ts = sink_now(), .id = parent_id, .m = &m };

	struct code_entry *parent;
	unsigned char *rec;
	uint32_t len;
	size_t off;
	int rc;

	pthread_mutex_lock(&S.lock);
	if (!S.running || !parent_id)
		goto out;
	rc = journal_add(&r, &off);
	if (rc == -ESHUTDOWN)
		goto out;
	if (rc == 0)
		S.st.inlines++;
	rec = kept_copy(&r, rc, off, &len);
	if (rec && (parent = entry_by_id(parent_id)) && codetable_add_rec(parent, rec, len) < 0)
		S.st.drops++;
	free(rec);
out:
	pthread_mutex_unlock(&S.lock);
}

void sink_record_raw(uint64_t parent_id, const void *recs, size_t len, unsigned n_records)
{
	int rc;

	pthread_mutex_lock(&S.lock);
	if (!S.running || !parent_id || !len)
		goto out;
	rc = bbuf_append(&S.jbuf, recs, len);
	if (rc == -ENOBUFS) {
		wait_for_room();
		if (!S.running)
			goto out;
		rc = bbuf_append(&S.jbuf, recs, len);
	}
	if (rc < 0)
		S.st.drops += n_records;
	else
		S.st.inlines += n_records;
	/* a journal started over must hold the live entry's FRAMES too */
	if (S.keep_records) {
		struct code_entry *parent = entry_by_id(parent_id);

		if (parent && codetable_add_rec(parent, recs, len) < 0)
			S.st.drops += n_records;
	}
	maybe_wake();
out:
	pthread_mutex_unlock(&S.lock);
}

void sink_record_unload(uintptr_t method, uint64_t start)
{
	struct jrec r = { .type = JF_UNLOAD, .ts = sink_now(), .start = start };
	struct code_entry *e;
	size_t off;

	pthread_mutex_lock(&S.lock);
	if (!S.running)
		goto out;
	e = codetable_find(&S.table, start);
	if (!e || (e->kind == CODE_METHOD && method && e->method != method)) {
		/* Unknown, or the address already belongs to a newer LOAD. */
		S.st.stray_unloads++;
		goto out;
	}
	r.id = e->id;
	if (journal_add(&r, &off) == -ESHUTDOWN)
		goto out;
	/* The wait may have let a newer LOAD in: end only our id. */
	e = codetable_find(&S.table, start);
	if (e && e->id == r.id)
		codetable_remove(&S.table, start);
	S.st.unloads++;
	S.need_rewrite = true;
out:
	pthread_mutex_unlock(&S.lock);
}

void sink_record_stub(uint64_t start, uint64_t size, const char *name)
{
	struct code_entry e = { start, size, 0, 0, (char *)name, CODE_STUB, NULL, 0 };
	struct jrec r = { .type = JF_STUB, .ts = sink_now(), .start = start, .size = size,
			  .name = name };
	struct code_entry *old;
	size_t off;
	int rc;

	pthread_mutex_lock(&S.lock);
	if (!S.running || !start)
		goto out;
	old = codetable_find(&S.table, start);
	if (old && old->size == size && old->kind == CODE_STUB && strcmp(old->name, name) == 0) {
		S.st.dups++;
		goto out;
	}
	e.id = r.id = S.next_id++;
	rc = journal_add(&r, &off);
	if (rc == -ESHUTDOWN)
		goto out;
	e.rec = kept_copy(&r, rc, off, &e.rec_len);
	table_add(&e);
	S.st.stubs++;
	jit_add(start, size, name, e.id, NULL, 0);
out:
	pthread_mutex_unlock(&S.lock);
}

void sink_record_epoch(uint64_t reason)
{
	struct jrec r = { .type = JF_EPOCH, .ts = sink_now(), .size = reason };
	size_t off;

	pthread_mutex_lock(&S.lock);
	if (S.running)
		journal_add(&r, &off);
	pthread_mutex_unlock(&S.lock);
}

void sink_get_stats(struct sink_stats *st)
{
	pthread_mutex_lock(&S.lock);
	*st = S.st;
	st->map_lines = S.table.count;
	pthread_mutex_unlock(&S.lock);
}

int sink_running(void)
{
	int r;

	pthread_mutex_lock(&S.lock);
	r = S.running;
	pthread_mutex_unlock(&S.lock);
	return r;
}


