/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sink_journal.h - the journal output's state (sink_journal.c), shared with
 * the bounded journal's start-over (sink_rotate.c).  Internal to the sink.
 *
 * Locking: as the core's (sink_state.h): buf and the fields producers and
 * take use are under the sink lock; fd, size and the taken batch are the
 * flush thread's (and start/stop's, while it does not run).
 */
#ifndef JSYM_SINK_JOURNAL_H
#define JSYM_SINK_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bbuf.h"

struct sink_journal {
	int fd;
	struct bbuf buf;          /* records not yet written */
	char name[64], tmp[64];   /* jsym-<pid>.journal, and its .tmp */
	uint64_t starttime;       /* procinfo_starttime(), for new headers */
	uint64_t drops_logged;    /* S.st.drops last said in the log */
	/* the bounded journal (journal_max, sink_rotate.c) */
	uint64_t max;             /* bytes; 0 = unbounded */
	bool keep_records;        /* entries keep their records (journal_max at start) */
	uint64_t size;            /* bytes in the journal file */
	uint64_t live;            /* bytes the current file began with (header, live set) */
	uint64_t rotate_after_ns; /* no new attempt before (after a failure) */
	int last_rotate_err;
	uint64_t recent_id[8], recent_start[8];   /* last LOADs, for their FRAMES */
	unsigned recent_pos;
	/* what the flush in progress took */
	struct bbuf out;          /* the swapped-out records */
	struct bbuf fresh;        /* the new journal's start, when rotate */
	bool rotate;
	uint64_t drops;           /* S.st.drops at the swap */
};

extern struct sink_journal sink_journal;
#define J sink_journal

/* The journal's fd (tests). */
int sink_journal_fd(void);

/* sink_rotate.c: is it time to start the journal over, before writing
 * `adding` more bytes?  Lock held. */
bool sink_rotate_due(size_t adding);

/* Render the new journal into *out: header, EPOCH(JF_EPOCH_LIVE_SET) and
 * the kept records of every live entry, by id.  Lock held.  0 or -errno. */
int sink_rotate_render(struct bbuf *out);

/* Replace the journal with fresh[0..len) (tmp + rename) and continue in the
 * new file; on failure write `pending` to the old one instead.  Flush
 * thread, lock not held. */
void sink_rotate_write(const struct bbuf *fresh, const struct bbuf *pending);

#endif
