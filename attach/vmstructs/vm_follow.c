/* SPDX-License-Identifier: Apache-2.0 */
/* vm_follow.c - rescans of a JVM's code cache, journaled (vm_follow.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vm_follow.h"
#include "vm_write.h"

/* More cached names than this many per live entry: start the cache over
 * (hidden classes and redefinitions leave names of dead Methods behind). */
#define NAME_CACHE_SLACK 4
#define NAME_CACHE_FLOOR 16384

/* The LOAD (nmethod) or STUB (any other blob) that makes en live. */
static int journal_entry(struct vm_follow *f, const struct vm_snapshot *s,
			 struct vm_entry *en, uint64_t ts)
{
	struct journal_method m = { .code_start = en->start, .code_size = en->size,
				    .display = vm_entry_name(s, en) };

	if (!en->java) {
		f->stubs++;
		return journal_append_stub(&f->jw, ts, en->start, en->size,
					   vm_entry_name(s, en), &en->id);
	}
	vm_entry_parts(s, en, &m.class_name, &m.method_name, &m.signature);
	f->loads++;
	return journal_append_load(&f->jw, ts, &m, &en->id);
}

static int journal_err(struct err_text *e, const char *where, int rc)
{
	return err_set(e, rc, "cannot write %s: %s%s", where, strerror(-rc),
		       rc == -ENOSPC || rc == -EDQUOT ? " (the container's /tmp is full)" : "");
}

int vm_follow_start(struct vm_follow *f, const struct target *t, struct vm_jvm *j,
		    const struct vm_layout *l, struct vm_name_cache *nc, const char *writer,
		    struct err_text *e)
{
	uint64_t ts = journal_now();
	struct vm_out o;
	char name[64];
	int rc;

	memset(f, 0, sizeof(*f));
	f->jw.fd = -1;
	rc = vm_snapshot_take(j, l, nc, &f->cur, e);
	if (rc)
		return rc;
	f->scans = 1;
	snprintf(name, sizeof(name), "jsym-%d.journal", (int)t->st.nspid);
	rc = vm_out_begin(t, name, &o, f->journal, sizeof(f->journal), e);
	if (rc)
		return rc;
	/* the whole first state goes into the new file before it is renamed
	 * into place: a reader never sees a journal without it */
	rc = journal_open_as(&f->jw, o.fd, (uint32_t)t->st.nspid, t->starttime, writer);
	o.fd = -1;
	f->open = true;         /* jw owns the fd, even when the header failed */
	if (rc == 0)
		rc = journal_append_epoch(&f->jw, ts, JF_EPOCH_ATTACHED);
	for (size_t k = 0; rc == 0 && k < f->cur.n; k++)
		rc = journal_entry(f, &f->cur, &f->cur.e[k], ts);
	if (rc == 0)
		rc = journal_flush(&f->jw);
	if (rc) {
		journal_err(e, f->journal, rc);
		vm_out_abort(&o);
		return rc;
	}
	f->added = f->cur.n;
	return vm_out_commit(&o, e);
}

/* s's entry at start, or NULL (s is sorted by start). */
static const struct vm_entry *entry_at(const struct vm_snapshot *s, uint64_t start)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->e[mid].start == start)
			return &s->e[mid];
		if (s->e[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int vm_follow_step(struct vm_follow *f, struct vm_jvm *j, const struct vm_layout *l,
		   struct vm_name_cache *nc, struct err_text *e)
{
	uint64_t ts = journal_now();
	struct vm_snapshot swap;
	int rc;

	f->added = f->removed = 0;
	if (nc && nc->used > NAME_CACHE_FLOOR && nc->used > NAME_CACHE_SLACK * f->cur.n)
		vm_name_cache_free(nc);
	j->mem.fatal = 0;       /* one failed scan must not fail every later one */
	rc = vm_snapshot_rescan(j, l, nc, &f->cur, &f->next, e);
	if (rc)
		return rc;
	f->scans++;
	/* gone: what no entry of the new scan carries on (same start, same id) */
	for (size_t k = 0; rc == 0 && k < f->cur.n; k++) {
		const struct vm_entry *old = &f->cur.e[k], *now = entry_at(&f->next, old->start);

		if (now && now->id == old->id)
			continue;
		rc = journal_append_unload(&f->jw, ts, old->id, old->start);
		f->removed++;
		f->unloads++;
	}
	for (size_t k = 0; rc == 0 && k < f->next.n; k++) {
		if (f->next.e[k].id)
			continue;
		rc = journal_entry(f, &f->next, &f->next.e[k], ts);
		f->added++;
	}
	if (rc == 0)
		rc = journal_flush(&f->jw);
	if (rc)
		return journal_err(e, f->journal, rc);
	swap = f->cur;
	f->cur = f->next;
	f->next = swap;
	return 0;
}

int vm_follow_stop(struct vm_follow *f, struct err_text *e)
{
	uint64_t ts = journal_now();
	int rc = 0;

	if (!f->open)
		return 0;
	for (size_t k = 0; rc == 0 && k < f->cur.n; k++) {
		rc = journal_append_unload(&f->jw, ts, f->cur.e[k].id, f->cur.e[k].start);
		f->unloads++;
	}
	if (rc == 0)
		rc = journal_append_epoch(&f->jw, ts, JF_EPOCH_STOPPED);
	if (rc == 0)
		rc = journal_close(&f->jw);
	else
		journal_close(&f->jw);
	f->open = false;
	return rc ? journal_err(e, f->journal, rc) : 0;
}

void vm_follow_free(struct vm_follow *f)
{
	if (f->open) {
		f->jw.buf.len = 0;      /* what was not written stays unwritten */
		journal_close(&f->jw);
		f->open = false;
	}
	vm_snapshot_free(&f->cur);
	vm_snapshot_free(&f->next);
}
