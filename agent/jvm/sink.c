/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sink.c - the producer side of the sink: the live-code table, fed by the
 * JVMTI callbacks under one short lock (sink.h), and each event handed to
 * the outputs of the table below (sink_output.h), which queue it in their
 * bounded buffers.  The flush thread and start/stop are in sink_io.c.
 */
#include "sink.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"
#include "sink_output.h"
#include "sink_state.h"

/* The outputs: a new one is a file (sink_output.h) and a row here. */
const struct sink_output *const sink_outputs[] = {
	&sink_journal_output,
	&sink_jitdump_output,
	&sink_map_output,
};
const size_t sink_n_outputs = sizeof(sink_outputs) / sizeof(sink_outputs[0]);
_Static_assert(sizeof(sink_outputs) / sizeof(sink_outputs[0]) <= SINK_MAX_OUTPUTS,
	       "raise SINK_MAX_OUTPUTS");

struct sink_state sink_state = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
	.drained = PTHREAD_COND_INITIALIZER,
	.dirfd = -1,
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

int sink_wait_for_room(void)
{
	struct timespec dl;

	if (!S.thread_on)
		return ETIMEDOUT;   /* nobody would drain it (before VMInit) */
	S.kick = true;
	pthread_cond_signal(&S.wake);
	sink_deadline(&dl, SINK_FULL_WAIT_MS);
	return pthread_cond_timedwait(&S.drained, &S.lock, &dl);
}

void sink_maybe_wake(void)
{
	for (size_t i = 0; i < sink_n_outputs; i++)
		if (sink_outputs[i]->buffered && sink_outputs[i]->buffered() > S.buf_max / 2) {
			S.kick = true;
			pthread_cond_signal(&S.wake);
			return;
		}
}

/* The event to every output that is on, before the table changes.  0, or
 * -ESHUTDOWN when the sink stopped while one waited for room. */
static int record_all(struct sink_event *ev)
{
	for (size_t i = 0; i < sink_n_outputs; i++) {
		const struct sink_output *o = sink_outputs[i];

		if (S.out_on[i] && o->record && o->record(ev) == -ESHUTDOWN)
			return -ESHUTDOWN;
	}
	return 0;
}

/* The event to every output that is on, after the table changed; a hook
 * that waited for room may find the sink stopped: then nothing more. */
static void after_table_all(const struct sink_event *ev)
{
	for (size_t i = 0; i < sink_n_outputs && S.running; i++) {
		const struct sink_output *o = sink_outputs[i];

		if (S.out_on[i] && o->after_table)
			o->after_table(ev);
	}
}

/* Put a new entry in the table; it takes over ev->rec, or frees it. */
static void table_add(struct sink_event *ev, uintptr_t method, int kind)
{
	struct code_entry e = { ev->start, ev->size, ev->id, method, (char *)ev->name, kind,
				ev->rec, ev->rec_len };

	ev->replaced = codetable_find(&S.table, ev->start) != NULL;
	ev->kept = codetable_put(&S.table, &e) == 0;
	if (!ev->kept) {
		free(ev->rec);
		S.st.drops++;
	}
	ev->rec = NULL;
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
	struct sink_event ev = { .kind = SINK_LOAD, .ts = sink_now(), .start = start,
				 .size = size, .m = &m, .name = display, .data = dbg,
				 .len = dbg ? dbg_len : 0 };
	struct code_entry *old;

	pthread_mutex_lock(&S.lock);
	if (!S.running || !start)
		goto out;
	old = codetable_find(&S.table, start);
	if (old && old->size == size && old->kind == CODE_METHOD && old->method == method &&
	    strcmp(old->name, display) == 0) {
		S.st.dups++;
		goto out;
	}
	ev.id = S.next_id++;
	if (record_all(&ev) == -ESHUTDOWN) {
		free(ev.rec);
		ev.id = 0;
		goto out;
	}
	table_add(&ev, method, CODE_METHOD);
	S.st.loads++;
	after_table_all(&ev);
out:
	pthread_mutex_unlock(&S.lock);
	return ev.id;
}

void sink_record_raw(uint64_t parent_id, const void *recs, size_t len, unsigned n_records)
{
	struct sink_event ev = { .kind = SINK_FRAMES, .id = parent_id, .data = recs, .len = len,
				 .n_records = n_records };

	pthread_mutex_lock(&S.lock);
	if (S.running && parent_id && len)
		record_all(&ev);
	pthread_mutex_unlock(&S.lock);
}

void sink_record_unload(uintptr_t method, uint64_t start)
{
	struct sink_event ev = { .kind = SINK_UNLOAD, .ts = sink_now(), .start = start };
	struct code_entry *e;

	pthread_mutex_lock(&S.lock);
	if (!S.running)
		goto out;
	e = codetable_find(&S.table, start);
	if (!e || (e->kind == CODE_METHOD && method && e->method != method)) {
		/* Unknown, or the address already belongs to a newer LOAD. */
		S.st.stray_unloads++;
		goto out;
	}
	ev.id = e->id;
	if (record_all(&ev) == -ESHUTDOWN)
		goto out;
	/* The wait may have let a newer LOAD in: end only our id. */
	e = codetable_find(&S.table, start);
	if (e && e->id == ev.id)
		codetable_remove(&S.table, start);
	S.st.unloads++;
	after_table_all(&ev);
out:
	pthread_mutex_unlock(&S.lock);
}

void sink_record_stub(uint64_t start, uint64_t size, const char *name)
{
	struct sink_event ev = { .kind = SINK_STUB, .ts = sink_now(), .start = start,
				 .size = size, .name = name };
	struct code_entry *old;

	pthread_mutex_lock(&S.lock);
	if (!S.running || !start)
		goto out;
	old = codetable_find(&S.table, start);
	if (old && old->size == size && old->kind == CODE_STUB && strcmp(old->name, name) == 0) {
		S.st.dups++;
		goto out;
	}
	ev.id = S.next_id++;
	if (record_all(&ev) == -ESHUTDOWN) {
		free(ev.rec);
		goto out;
	}
	table_add(&ev, 0, CODE_STUB);
	S.st.stubs++;
	after_table_all(&ev);
out:
	pthread_mutex_unlock(&S.lock);
}

void sink_record_epoch(uint64_t reason)
{
	struct sink_event ev = { .kind = SINK_EPOCH, .ts = sink_now(), .reason = reason };

	pthread_mutex_lock(&S.lock);
	if (S.running)
		record_all(&ev);
	pthread_mutex_unlock(&S.lock);
}

void sink_get_stats(struct sink_stats *st)
{
	pthread_mutex_lock(&S.lock);
	*st = S.st;
	st->map_lines = codetable_count(&S.table);
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
