/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lookup_follow.c - a struct lookup's life (new, free) and keeping it in
 * step with a journal or perf map that another process is still writing
 * (contract in lookup_lib.h).  The top of the index: it calls lookup.c (the
 * entries) and the readers, and nothing below calls back into it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lookup_int.h"

static void close_source(struct lookup *lk)
{
	jr_close(&lk->jr);
	pm_close(&lk->pm);
	lk->st.source = LOOKUP_SOURCE_NONE;
}

struct lookup *lookup_new(void)
{
	struct lookup *lk = calloc(1, sizeof(*lk));

	if (!lk)
		return NULL;
	lk->jr.fd = lk->pm.fd = -1;
	return lk;
}

void lookup_free(struct lookup *lk)
{
	if (!lk)
		return;
	lookup_clear(lk);
	free(lk->ents);
	free(lk->order);
	free(lk->order_tmp);
	free(lk->heap);
	free(lk->seg);
	free(lk->r_idx);
	free(lk->scratch);
	free(lk->chain_buf);
	close_source(lk);
	free(lk);
}

int lookup_follow_journal(struct lookup *lk, int fd)
{
	close_source(lk);
	lk->capped = NULL;
	jr_open_fd(&lk->jr, fd);
	lk->st.source = LOOKUP_SOURCE_JOURNAL;
	return 0;
}

int lookup_follow_map(struct lookup *lk, int fd)
{
	close_source(lk);
	lk->capped = NULL;
	pm_open_fd(&lk->pm, fd);
	lk->st.source = LOOKUP_SOURCE_MAP;
	return 0;
}

/* The followed file was started over: forget everything read from it. */
static void start_over(struct lookup *lk)
{
	lookup_clear(lk);
	lk->capped = NULL;
	lk->st.resets++;
}

/*
 * rc from applying what was read: past a cap (-E2BIG), forget all of it,
 * so no partial index answers, and say which cap; the lookup stays so
 * (lk->capped) until the file is started over or another is followed.
 */
static long refused(struct lookup *lk, long rc, struct err_text *e)
{
	const char *capped = lk->capped;

	if (rc != -E2BIG)
		return rc;
	lookup_clear(lk);
	lk->capped = capped;
	return lk_cap_error(lk, e);
}

static long refresh_journal(struct lookup *lk, struct err_text *e)
{
	struct jr_record rec;
	long applied = 0;
	int rc = jr_check_replaced(&lk->jr);

	if (rc == 1)
		start_over(lk);
	if (lk->capped)
		return lk_cap_error(lk, e);
	while ((rc = jr_next(&lk->jr, &rec, e)) == 1) {
		if (lk->until && rec.timestamp > lk->until) {
			jr_unread(&lk->jr, &rec);
			rc = 0;
			break;
		}
		if ((rc = lookup_apply_record(lk, &rec)) < 0)
			return refused(lk, rc, e);
		applied++;
	}
	lk->st.source_offset = lk->jr.offset;
	return rc < 0 ? rc : applied;
}

static long refresh_map(struct lookup *lk, struct err_text *e)
{
	struct pm_line line;
	long applied = 0;
	int rc = pm_check_truncated(&lk->pm);

	if (rc == 1)
		start_over(lk);
	if (lk->capped)
		return lk_cap_error(lk, e);
	while ((rc = pm_next(&lk->pm, &line, e)) == 1) {
		struct lookup_sym s = {
			.kind = LOOKUP_MAP,
			.id = line.lineno,
			.start = line.start,
			.size = line.size,
			.name = { line.name, line.name_len },
		};

		if ((rc = lookup_add(lk, &s)) < 0)
			return refused(lk, rc, e);
		lk->st.records++;
		applied++;
	}
	lk->st.malformed_lines = lk->pm.malformed;
	lk->st.source_offset = pm_offset(&lk->pm);
	lk->st.pending_bytes = pm_pending(&lk->pm);
	return rc < 0 ? rc : applied;
}

long lookup_refresh(struct lookup *lk, struct err_text *e)
{
	if (lk->st.source == LOOKUP_SOURCE_JOURNAL)
		return refresh_journal(lk, e);
	if (lk->st.source == LOOKUP_SOURCE_MAP)
		return refresh_map(lk, e);
	return -EBADF;
}

void lookup_set_until(struct lookup *lk, uint64_t until_ns)
{
	lk->until = until_ns;
}

const struct jr_header *lookup_journal_header(const struct lookup *lk)
{
	return lk->st.source == LOOKUP_SOURCE_JOURNAL && lk->jr.have_header ? &lk->jr.hdr : NULL;
}

int lookup_journal_info(const struct lookup *lk, struct lookup_journal_info *info)
{
	const struct jr_header *h = lookup_journal_header(lk);

	if (!h)
		return 0;
	info->pid = h->pid;
	info->agent_version = h->agent_version;
	return 1;
}

uint64_t lookup_journal_covers_from(int fd)
{
	struct jr_reader jr;
	struct jr_record rec;
	uint64_t from = 0;
	int dfd = dup(fd);

	if (dfd < 0)
		return 0;
	jr_open_fd(&jr, dfd);
	if (jr_next(&jr, &rec, NULL) == 1 && rec.type == JF_EPOCH &&
	    rec.reason == JF_EPOCH_LIVE_SET)
		from = rec.timestamp;
	jr_close(&jr);
	return from;
}

int lookup_parse_addr(const char *s, uint64_t *addr)
{
	size_t len = strlen(s), used;

	return pm_parse_hex(s, len, &used, addr) == 0 && used == len ? 0 : -EINVAL;
}

void lookup_get_stats(const struct lookup *lk, struct lookup_stats *st)
{
	*st = lk->st;
	st->live = lk->n_ents - lk->n_dead;
	st->inlines = lk->n_inl;
}
