/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sink_map.c - the perf map output of the sink (sink_output.h):
 * perf-<pid>.map kept equal to the live code.  Loads are appended; an
 * unload (or a load replacing another at the same address) schedules a
 * rewrite of the whole map from the live-code table (tmp + rename), at most
 * every SINK_REWRITE_MIN_MS.  A planted file at the map's name (not a
 * regular file) is never touched.  docs/perf-map.md.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agentlog.h"
#include "outfile.h"
#include "perfmap.h"
#include "sink_output.h"
#include "sink_state.h"

static struct {
	int fd;                    /* the flush thread's (and start/stop's) */
	struct bbuf buf;           /* lines not yet appended */
	bool need_rewrite;         /* the file no longer equals the table */
	bool force_rewrite;        /* ... rewrite it at the next flush, now */
	bool refused;              /* a planted file: never written */
	uint64_t last_rewrite_ns;
	int last_err;              /* last perfmap_replace error logged, 0 = none */
	char name[64], tmp[64];
	/* what the flush in progress took */
	struct bbuf out;           /* the swapped-out lines */
	struct bbuf full;          /* the map's new text, when rewrite */
	bool rewrite;
} M = { .fd = -1 };

/* ---- producers (lock held) ---------------------------------------------- */

static void out_after_table(const struct sink_event *ev)
{
	if (ev->kind == SINK_UNLOAD) {
		M.need_rewrite = true;
		return;
	}
	if (ev->kind != SINK_LOAD && ev->kind != SINK_STUB)
		return;
	if (ev->replaced)
		M.need_rewrite = true;   /* replaced without an unload: old line must go */
	if (ev->kept && perfmap_put_line(&M.buf, ev->start, ev->size, ev->name) < 0)
		M.need_rewrite = true;   /* the rewrite from the table catches up */
}

static size_t out_buffered(void)
{
	return M.buf.len;
}

/* ---- the flush ----------------------------------------------------------- */

/* The map rewritten from the live table when it is missing, or due and not
 * rewritten in the last SINK_REWRITE_MIN_MS (all: whatever the rate). */
static void out_take(uint64_t now, bool all)
{
	bool force = M.force_rewrite || all;

	M.out = M.buf;
	M.buf = (struct bbuf){ .max = S.buf_max };
	M.full = (struct bbuf){ 0 };
	M.rewrite = false;
	M.force_rewrite = false;
	if (M.refused || !(M.fd < 0 || M.need_rewrite) ||
	    !(M.fd < 0 || force || now - M.last_rewrite_ns >= SINK_REWRITE_MIN_MS * 1000000ull))
		return;
	if (perfmap_render(&S.table, &M.full) == 0) {
		M.rewrite = true;
		M.need_rewrite = false;
		M.last_rewrite_ns = now;
		bbuf_clear(&M.out);   /* the table already holds those lines */
	} else {
		bbuf_free(&M.full);
	}
}

/* Under the lock: the map wanted again at the next flush (force: even
 * within SINK_REWRITE_MIN_MS). */
static void want_rewrite(bool force)
{
	pthread_mutex_lock(&S.lock);
	M.need_rewrite = true;
	if (force)
		M.force_rewrite = true;
	pthread_mutex_unlock(&S.lock);
}

/* The map replaced atomically by the table's text. */
static void rewrite(const struct bbuf *full)
{
	struct err_text why = { "" };
	int rc = perfmap_replace(S.dirfd, M.name, M.tmp, full->data, full->len, &why);

	if (rc >= 0) {
		if (M.fd >= 0)
			close(M.fd);
		M.fd = rc;
		M.last_err = 0;
		pthread_mutex_lock(&S.lock);
		S.st.rewrites++;
		pthread_mutex_unlock(&S.lock);
		return;
	}
	if (rc != M.last_err)   /* once per cause, not every flush */
		agentlog("perf map not written: %s", why.msg);
	M.last_err = rc;
	if (rc == -EPERM || rc == -ELOOP) {
		pthread_mutex_lock(&S.lock);
		M.refused = true;   /* never touch a planted file */
		pthread_mutex_unlock(&S.lock);
	} else {
		want_rewrite(false);    /* try again next time */
	}
}

/* Appending to an unlinked map would write into nothing visible. */
static bool was_removed(void)
{
	struct stat st;

	return fstat(M.fd, &st) == 0 && st.st_nlink == 0;
}

/* The map rewritten or appended to; a map removed under us is written
 * again at the next flush. */
static void out_write(void)
{
	int rc;

	if (M.rewrite) {
		rewrite(&M.full);
	} else if (M.out.len && M.fd >= 0) {
		rc = write_all(M.fd, M.out.data, M.out.len);
		if (rc < 0) {
			agentlog("cannot append to %s: %s (will rewrite it)", M.name,
				 strerror(-rc));
			want_rewrite(false);
		}
	}
	if (M.fd >= 0 && was_removed()) {
		agentlog("%s was removed (a /tmp cleaner?): writing it again", M.name);
		want_rewrite(true);
	}
	bbuf_free(&M.out);
	bbuf_free(&M.full);
}

/* ---- open / close -------------------------------------------------------- */

/* Written at the first flush, from the table; refused (off) when something
 * other than a regular file has the name. */
static int out_open(const struct agent_opts *o, struct err_text *why)
{
	int rc;

	(void)o;
	snprintf(M.name, sizeof(M.name), "perf-%u.map", S.pid);
	snprintf(M.tmp, sizeof(M.tmp), "perf-%u.map.tmp", S.pid);
	M.buf = (struct bbuf){ .max = S.buf_max };
	M.refused = false;
	M.need_rewrite = true;
	M.force_rewrite = true;
	rc = outfile_check(S.dirfd, M.name, why);
	if (rc < 0 && rc != -ENOENT) {
		agentlog("perf map disabled: %s", why->msg);
		M.refused = true;
		return 0;
	}
	return 1;
}

static void out_describe(char *out, size_t cap)
{
	snprintf(out, cap, " map=%s", M.refused ? "(refused)" : M.name);
}

static void out_close(void)
{
	if (M.fd >= 0)
		close(M.fd);
	M.fd = -1;
	bbuf_free(&M.buf);
}

const struct sink_output sink_map_output = {
	.name = "perf map",
	.open = out_open,
	.describe = out_describe,
	.after_table = out_after_table,
	.buffered = out_buffered,
	.take = out_take,
	.write = out_write,
	.close = out_close,
};
