/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vmstructs.c - the folder's entry (vmstructs.h): a session over one JVM,
 * the snapshot rendered and written, --follow's steps, and the numbers the
 * CLI reports.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "vm_follow.h"
#include "vm_jvm.h"
#include "vm_layout.h"
#include "vm_scan.h"
#include "vm_tables_text.h"
#include "vm_write.h"
#include "vmstructs.h"

struct vm_session {
	const struct target *t;
	struct vm_jvm j;
	struct vm_layout l;
	bool have_layout;
	struct vm_name_cache nc;
	struct vm_follow f;
	bool following;         /* f must be freed */
};

/* What must hold before jsym reads a process: a HotSpot JVM, its root. */
static int precheck(const struct target *t, bool writes, struct err_text *e)
{
	if (t->maps_err)
		return err_set(e, t->maps_err, "cannot read the process's maps: %s (needs "
			       "CAP_SYS_PTRACE or the JVM's uid)", strerror(-t->maps_err));
	if (t->maps.kind == PROC_OPENJ9)
		return err_set(e, -ENOTSUP, "an OpenJ9 JVM: jsym map reads HotSpot's "
			       "tables only (use jsym attach)");
	if (t->maps.kind != PROC_HOTSPOT)
		return err_set(e, -ENOENT, "not a JVM (no libjvm.so mapped)");
	if (writes && t->maps.agent[0])
		return err_set(e, -EEXIST, "the jsym agent runs in this JVM and keeps "
			       "its perf-%d.map itself: jsym map would fight it",
			       (int)t->st.nspid);
	if (t->root_fd < 0)
		return err_set(e, t->root_err ? t->root_err : -EBADF, "cannot open the "
			       "JVM's root directory: %s", strerror(t->root_err ?
			       -t->root_err : EBADF));
	return 0;
}

int vmstructs_open(const struct target *t, bool writes, struct vm_session **out,
		   struct err_text *e)
{
	struct vm_session *s = calloc(1, sizeof(*s));
	int rc;

	*out = s;
	if (!s)
		return err_set(e, -ENOMEM, "out of memory");
	s->t = t;
	s->j.proc.mem_fd = -1;
	rc = precheck(t, writes, e);
	if (rc == 0)
		rc = vm_jvm_open(t, &s->j, e);
	return rc;
}

void vmstructs_close(struct vm_session *s)
{
	if (!s)
		return;
	if (s->following)
		vm_follow_free(&s->f);
	vm_name_cache_free(&s->nc);
	vm_jvm_close(&s->j);
	free(s);
}

/* The layouts, taken from the tables at the first snapshot. */
static int layout(struct vm_session *s, struct err_text *e)
{
	int rc;

	if (s->have_layout)
		return 0;
	rc = vm_layout_from_tables(&s->j.tables, &s->l, e);
	s->have_layout = rc == 0;
	return rc;
}

/* --tables: the tables as text (vm_tables_text, names escaped). */
long vmstructs_tables_text(const struct vm_session *s, char **text)
{
	return vm_tables_text(&s->j.tables, text);
}

/* The value of the cap named by vm_snapshot.capped, for the message. */
static void cap_value(const char *cap, char *buf, size_t len)
{
	if (!cap)
		buf[0] = '\0';
	else if (!strcmp(cap, "entries"))
		snprintf(buf, len, "%u entries", VM_MAX_ENTRIES);
	else if (!strcmp(cap, "name bytes"))
		snprintf(buf, len, "%u MiB of names", VM_MAX_NAME_BYTES >> 20);
	else if (!strcmp(cap, "escaped name bytes"))
		snprintf(buf, len, "%u MiB of names in the map, escaped",
			 VM_MAX_NAME_BYTES >> 20);
	else
		snprintf(buf, len, "%llu GiB of code heaps", VM_MAX_CODE_BYTES >> 30);
}

static size_t java_entries(const struct vm_snapshot *s)
{
	size_t java = 0;

	for (size_t k = 0; k < s->n; k++)
		java += s->e[k].java;
	return java;
}

/* The snapshot rendered as a perf map, into out or the container; tx
 * holds what was rendered while it was taken (render_settled), or
 * nothing, and the rest is rendered onto it (the caller frees its
 * text). */
static int write_map(const struct target *t, const struct vm_snapshot *s,
		     struct vm_map_text *tx, FILE *out, char *where, size_t cap,
		     struct err_text *e)
{
	if (vm_map_text_finish(s, tx))
		return err_set(e, -ENOMEM, "out of memory");
	if (out)
		return fwrite(tx->buf, 1, tx->len, out) == tx->len ? 0 :
		       err_set(e, -EIO, "cannot write the map to stdout");
	return vm_map_write(t, tx->buf, tx->len, where, cap, e);
}

/* A snapshot's idle hook: its settled entries rendered while the walk
 * waits for names (a failure is left for write_map to meet again). */
static void render_settled(void *ctx, const struct vm_snapshot *s)
{
	vm_map_render_more(s, s->settled, ctx);
}

static void map_stats(const struct vm_snapshot *sn, struct vm_map_stats *st)
{
	st->entries = sn->n;
	st->java = java_entries(sn);
	st->heaps = sn->heaps;
	st->dead = sn->dead;
	st->dropped = sn->dropped;
	st->resyncs = sn->resyncs;
	st->blocks = sn->blocks;
	st->partial = sn->partial;
	st->capped = sn->capped;
	cap_value(sn->capped, st->cap_value, sizeof(st->cap_value));
}

int vmstructs_map(struct vm_session *s, FILE *out, struct vm_map_stats *st,
		  struct err_text *e)
{
	struct vm_map_text tx = { 0 };
	struct vm_snapshot sn = { .idle = render_settled, .idle_ctx = &tx, .display_only = true };
	uint64_t reads0, bytes0;
	long t0;
	int rc;

	memset(st, 0, sizeof(*st));
	rc = layout(s, e);
	if (rc)
		return rc;
	t0 = clock_ms();
	reads0 = s->j.mem.syscalls;
	bytes0 = s->j.mem.bytes;
	rc = vm_snapshot_take(&s->j, &s->l, NULL, &sn, e);
	if (rc == 0) {
		map_stats(&sn, st);
		rc = write_map(s->t, &sn, &tx, out, st->where, sizeof(st->where), e);
		if (tx.capped) {        /* the map text's own cap (vm_write.h) */
			st->capped = "escaped name bytes";
			cap_value(st->capped, st->cap_value, sizeof(st->cap_value));
			st->partial = true;
			st->entries = tx.lines;
		}
		st->ms = clock_ms() - t0;
		st->reads = s->j.mem.syscalls - reads0;
		st->bytes = s->j.mem.bytes - bytes0;
	}
	free(tx.buf);
	vm_snapshot_free(&sn);
	return rc;
}

int vmstructs_map_once(const struct target *t, char *where, size_t cap, size_t *java,
		       struct err_text *e)
{
	static struct vm_map_stats st;
	struct vm_session *s;
	int rc = vmstructs_open(t, true, &s, e);

	if (rc == 0)
		rc = vmstructs_map(s, NULL, &st, e);
	if (rc == 0) {
		snprintf(where, cap, "%s", st.where);
		*java = st.java;
	}
	vmstructs_close(s);
	return rc;
}

static void follow_stats(const struct vm_follow *f, struct vm_follow_stats *st)
{
	st->entries = f->cur.n;
	st->java = java_entries(&f->cur);
	st->known = f->cur.known;
	st->carried = f->cur.carried;
	st->dropped = f->cur.dropped;
	st->added = f->added;
	st->removed = f->removed;
	st->scans = f->scans;
	st->loads = f->loads;
	st->stubs = f->stubs;
	st->unloads = f->unloads;
	snprintf(st->journal, sizeof(st->journal), "%s", f->journal);
}

int vmstructs_follow_write(struct vm_session *s, struct vm_follow_stats *st,
			   struct err_text *e)
{
	struct vm_map_text tx = { 0 };
	int rc = write_map(s->t, &s->f.cur, &tx, NULL, st->where, sizeof(st->where), e);

	free(tx.buf);
	return rc;
}

int vmstructs_follow_start(struct vm_session *s, const char *writer,
			   struct vm_follow_stats *st, struct err_text *e)
{
	int rc = layout(s, e);

	memset(st, 0, sizeof(*st));
	if (rc)
		return rc;
	s->following = true;
	rc = vm_follow_start(&s->f, s->t, &s->j, &s->l, &s->nc, writer, e);
	follow_stats(&s->f, st);
	if (rc == 0)
		rc = vmstructs_follow_write(s, st, e);
	return rc;
}

int vmstructs_follow_step(struct vm_session *s, struct vm_follow_stats *st,
			  struct err_text *e)
{
	int rc = vm_follow_step(&s->f, &s->j, &s->l, &s->nc, e);

	follow_stats(&s->f, st);
	return rc;
}

int vmstructs_follow_stop(struct vm_session *s, struct vm_follow_stats *st,
			  struct err_text *e)
{
	int rc = 0;

	if (s->following && s->f.open)
		rc = vm_follow_stop(&s->f, e);
	follow_stats(&s->f, st);
	return rc;
}
