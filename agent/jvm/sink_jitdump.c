/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sink_jitdump.c - the jitdump output of the sink (sink_output.h), option
 * jitdump: jsym-jit-<pid>/jit-<pid>.dump for `perf inject --jit`, one
 * CODE_LOAD with the code bytes per LOAD and STUB (after its DEBUG_INFO
 * with the lines option), capped at jitdump_max (jitdump.h, docs/agent.md).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agentlog.h"
#include "jitdump.h"
#include "jitunwind.h"
#include "sink_output.h"
#include "sink_state.h"

static struct {
	struct jitdump_file jd;
	struct bbuf buf;           /* records not yet written */
	uint64_t max;              /* jitdump_max: bytes; 0 = unbounded */
	uint64_t bytes;            /* the dump's size once buf is written */
	uint64_t capped_base;      /* S.st.jit_capped when the cap was (re)set */
	bool cap_said;             /* "reached jitdump_max" logged for this cap */
	bool lines;                /* with source lines (for the log) */
	bool unwind;               /* with unwinding data (not nounwind) */
	/* what the flush in progress took */
	struct bbuf out;
	bool say_cap;
	uint64_t said_max;
} D = { .jd = { .fd = -1 } };

/* ---- producers (lock held) ---------------------------------------------- */

/* Does a record of `need` bytes still fit the dump under jitdump_max?  The
 * CODE_CLOSE of the stop always has its room kept. */
static bool fits(size_t need)
{
	return !D.max || D.bytes + need + JITDUMP_PREFIX_SIZE <= D.max;
}

/* The unwinding data of ev's code into *u (on the caller's stack: the lock
 * may be let go while the load waits for room): its record's size, or 0
 * (none: u->why says why, u->load_size is then ev->size). */
static size_t unwinding(const struct sink_event *ev, struct jitunwind *u)
{
	int rc;

	u->load_size = ev->size;
	u->why = 0;
	if (!D.unwind || !ev->size || ev->size > JITDUMP_MAX_CODE)
		return 0;
	rc = jitunwind_build(ev->start, ev->size, ev->kind == SINK_LOAD, ev->name, u);
	if (rc < 0) {
		u->why = rc;
		u->load_size = ev->size;
		return 0;
	}
	return jitdump_unwinding_size(u->sz.eh_frame_size + u->sz.hdr_size);
}

/* Count a load written with (uw) or without the unwinding data of u. */
static void count_unwinding(const struct jitunwind *u, size_t uw)
{
	if (uw) {
		S.st.jit_unwind++;
		S.st.jit_unwind_folded += u->folded;
		S.st.jit_unwind_fixed += u->fixed;
		S.st.jit_unwind_guessed += u->fixed && u->found.prologue_end < 0;
	} else if (u->why == -ERANGE) {
		S.st.jit_unwind_small++;
	} else if (u->why < 0) {
		S.st.jit_unwind_none++;
	}
}

/* Append the UNWINDING_INFO in u (when `uw`), the DEBUG_INFO `dbg` (may
 * be empty) and the CODE_LOAD of u->load_size bytes, adjacent: all or
 * none.  0 or -errno (buf unchanged). */
static int put(uint32_t tid, const struct sink_event *ev, const struct jitunwind *u, size_t uw,
	       const void *dbg, size_t dbg_len)
{
	size_t len0 = D.buf.len;
	int rc = uw ? jitdump_put_unwinding(&D.buf, sink_now(), u->data, u->sz.eh_frame_size,
					    u->sz.hdr_size) : 0;

	if (rc == 0 && dbg_len)
		rc = bbuf_append(&D.buf, dbg, dbg_len);

	if (rc == 0)
		rc = jitdump_put_code_load(&D.buf, sink_now(), S.pid, tid, ev->start,
					   u->load_size, ev->id, ev->name);
	if (rc < 0)
		D.buf.len = len0;
	return rc;
}

/*
 * A CODE_LOAD with the code bytes, copied now (the callback that reported
 * the code runs, so it is live and readable), after its DEBUG_INFO when
 * there is one.  Past jitdump_max nothing more is appended (counted; the
 * flush logs it).
 */
static void out_after_table(const struct sink_event *ev)
{
	uint32_t tid;
	const void *dbg = ev->kind == SINK_LOAD ? ev->data : NULL;
	size_t dbg_len = dbg ? ev->len : 0, need, uw;
	struct jitunwind u;
	int rc;

	if ((ev->kind != SINK_LOAD && ev->kind != SINK_STUB) || D.jd.fd < 0)
		return;
	tid = (uint32_t)syscall(SYS_gettid);
	uw = unwinding(ev, &u);
	need = uw + dbg_len + jitdump_code_load_size(ev->name, u.load_size);
	if (ev->size && ev->size <= JITDUMP_MAX_CODE && !fits(need)) {
		S.st.jit_capped++;
		return;
	}
	rc = put(tid, ev, &u, uw, dbg, dbg_len);
	if (rc == -ENOBUFS) {
		sink_wait_for_room();
		if (!S.running)
			return;
		rc = put(tid, ev, &u, uw, dbg, dbg_len);
	}
	if (rc == 0) {
		S.st.jit_records++;
		S.st.jit_lines += dbg_len != 0;
		count_unwinding(&u, uw);
		D.bytes += need;
	} else if (rc != -EINVAL) {
		S.st.jit_drops++;
	}
	sink_maybe_wake();
}

static size_t out_buffered(void)
{
	return D.buf.len;
}

static void out_stop(void)
{
	if (D.jd.fd >= 0)
		(void)jitdump_put_close(&D.buf, sink_now());
}

static void out_update(const struct agent_opts *o)
{
	D.unwind = !o->nounwind;     /* for the code loaded from now on */
	if (o->jitdump_max != D.max) {
		/* a new cap: say it again when it is reached */
		D.capped_base = S.st.jit_capped;
		D.cap_said = false;
	}
	D.max = o->jitdump_max;
}

/* ---- the flush ----------------------------------------------------------- */

static void out_take(uint64_t now, bool all)
{
	(void)now;
	(void)all;
	D.out = D.buf;
	D.buf = (struct bbuf){ .max = S.buf_max };
	/* The cap's note is decided here, under the lock that sink_update
	 * holds when it resets the cap (a race ThreadSanitizer found when
	 * this was read after the unlock). */
	D.say_cap = false;
	if (S.st.jit_capped > D.capped_base && !D.cap_said) {
		D.cap_said = true;
		D.say_cap = true;
		D.said_max = D.max;
	}
}

static void out_write(void)
{
	int rc;

	if (D.out.len && D.jd.fd >= 0) {
		rc = write_all(D.jd.fd, D.out.data, D.out.len);
		if (rc < 0)
			agentlog("cannot write the jitdump: %s (%zu bytes lost)", strerror(-rc),
				 D.out.len);
	}
	if (D.say_cap) {
		/* once per start: from now on every new method would say it */
		agentlog("jitdump reached jitdump_max=%llu bytes: code compiled from now on is "
			 "not dumped (perf shows it from perf-%u.map); raise jitdump_max, or stop "
			 "the agent and load it again with another dir=",
			 (unsigned long long)D.said_max, S.pid);
	}
	bbuf_free(&D.out);
}

/* ---- open / close -------------------------------------------------------- */

/* Continued with the journal (S.next_id > 1: it opens first), else new.
 * Not fatal: the map and the journal do not need it. */
static int out_open(const struct agent_opts *o, struct err_text *unused)
{
	struct err_text why = { "" };
	int rc;

	(void)unused;
	D.buf = (struct bbuf){ .max = S.buf_max };
	D.max = o->jitdump_max;
	D.capped_base = S.st.jit_capped;   /* the counters run across starts */
	D.cap_said = false;
	D.lines = o->lines;
	D.unwind = !o->nounwind;
	if (!o->jitdump)
		return 0;
	rc = jitdump_open(&D.jd, S.dirfd, (int)S.pid, S.next_id > 1, &why);
	if (rc < 0) {
		agentlog("jitdump disabled: %s", why.msg);
		return 0;
	}
	if (why.msg[0])
		agentlog("jitdump: %s", why.msg);
	if (D.jd.size == 0 && jitdump_put_header(&D.buf, S.pid, sink_now()) < 0) {
		agentlog("jitdump disabled: out of memory");
		jitdump_close(&D.jd);
		return 0;
	}
	D.bytes = D.jd.size ? D.jd.size : JITDUMP_HEADER_SIZE;
	return 1;
}

static void out_describe(char *out, size_t cap)
{
	if (D.jd.fd >= 0)
		snprintf(out, cap, " jitdump=on");
}

static void out_started(void)
{
	if (D.jd.fd >= 0)
		agentlog("jitdump: %s, %s, jitdump_max=%llu%s", D.lines ? "with source lines" :
			 "without source lines (add lines)", D.unwind ? "with unwinding data" :
			 "without unwinding data (nounwind)", (unsigned long long)D.max,
			 D.jd.size ? " (appending)" : "");
}

static void out_close(void)
{
	jitdump_close(&D.jd);
	bbuf_free(&D.buf);
}

const struct sink_output sink_jitdump_output = {
	.name = "jitdump",
	.opts = &options_jitdump,
	.open = out_open,
	.describe = out_describe,
	.started = out_started,
	.update = out_update,
	.after_table = out_after_table,
	.buffered = out_buffered,
	.stop = out_stop,
	.take = out_take,
	.write = out_write,
	.close = out_close,
};
