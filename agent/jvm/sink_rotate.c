/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sink_rotate.c - the bounded journal (option journal_max, docs/agent.md).
 *
 * The journal is append-only, so under churn it grows for the life of the
 * JVM, in a /tmp that is often a memory-backed tmpfs counted against the
 * container.  When the next write would take it past journal_max, the flush
 * thread starts it over instead: under the sink lock, in the same hold in
 * which it swapped the buffers out, it renders a new journal from the live
 * table (header, EPOCH JF_EPOCH_LIVE_SET, then the kept LOAD/STUB record of
 * every live entry with its FRAMES, by id, byte for byte as first
 * written), writes it to jsym-<pid>.journal.tmp and renames it over the
 * journal.  The records swapped out in that hold are not written anywhere:
 * the live set already reflects them, and the old file is being replaced.
 * Records queued after it go to the new file.  So the new file, read alone,
 * gives exactly the live code at the switch and everything after it; a
 * reader that follows the path sees a new inode and reads it from the start
 * (attach/cli/cli_resolve.c), with nothing missed or applied twice.
 *
 * When the live set alone is more than half of journal_max the file is let
 * grow to live set + journal_max/2 before the next start-over, so that
 * starting over always frees at least half the cap (logged once).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agentlog.h"
#include "journal.h"
#include "perfmap.h"
#include "procinfo.h"
#include "sink_journal.h"
#include "sink_state.h"

#define ROTATE_RETRY_NS (5 * 1000000000ull)   /* after a failed attempt */

bool sink_rotate_due(size_t adding)
{
	uint64_t limit;

	if (!J.max || !J.keep_records || !S.running || J.fd < 0)
		return false;
	if (J.rotate_after_ns && sink_now() < J.rotate_after_ns)
		return false;
	limit = J.max;
	if (J.live + J.max / 2 > limit)
		limit = J.live + J.max / 2;
	return J.size + adding > limit;
}

int sink_rotate_render(struct bbuf *out)
{
	const struct code_entry **v;
	size_t n;
	int rc;

	rc = journal_put_header(out, S.pid, journal_realtime_ns(), J.starttime,
				JSYM_AGENT_VERSION);
	if (rc == 0)
		rc = journal_put_epoch(out, sink_now(), JF_EPOCH_LIVE_SET);
	if (rc < 0)
		return rc;
	v = codetable_by_id(&S.table, &n);
	if (!v && codetable_count(&S.table))
		return -ENOMEM;
	for (size_t i = 0; i < n && rc == 0; i++)
		if (v[i]->rec)
			rc = bbuf_append(out, v[i]->rec, v[i]->rec_len);
	free(v);
	return rc;
}

void sink_rotate_write(const struct bbuf *fresh, const struct bbuf *pending)
{
	struct err_text why = { "" };
	uint64_t rotations;
	int rc = perfmap_replace(S.dirfd, J.name, J.tmp, fresh->data, fresh->len,
				 &why);

	if (rc < 0) {
		if (rc != J.last_rotate_err)
			agentlog("cannot start %s over (journal_max=%llu): %s; appending to it, "
				 "next try in 5 s", J.name,
				 (unsigned long long)J.max, why.msg);
		J.last_rotate_err = rc;
		pthread_mutex_lock(&S.lock);
		J.rotate_after_ns = sink_now() + ROTATE_RETRY_NS;
		pthread_mutex_unlock(&S.lock);
		if (pending->len && (rc = write_all(J.fd, pending->data, pending->len)) < 0)
			agentlog("cannot write %s: %s (%zu bytes lost)", J.name,
				 strerror(-rc), pending->len);
		else
			J.size += pending->len;
		return;
	}
	close(J.fd);
	J.last_rotate_err = 0;
	pthread_mutex_lock(&S.lock);
	J.fd = rc;
	J.size = J.live = fresh->len;
	J.rotate_after_ns = 0;
	rotations = ++S.st.rotations;
	pthread_mutex_unlock(&S.lock);
	/* Logged at the 1st, 2nd, 4th, 8th... start-over: the log stays small. */
	if ((rotations & (rotations - 1)) == 0)
		agentlog("journal started over with the live code (%llu bytes) at journal_max=%llu; "
			 "%llu times so far%s", (unsigned long long)fresh->len,
			 (unsigned long long)J.max, (unsigned long long)rotations,
			 fresh->len > J.max / 2 ? ": the live code alone takes more than half "
			 "of journal_max, so the journal grows to live code + journal_max/2" : "");
}
