/* SPDX-License-Identifier: Apache-2.0 */
/*
 * journal.h - writer of jsym's binary symbol journal (agent/format/journal_format.h,
 * docs/journal-format.md).
 *
 * Two layers:
 *  - encoders `journal_put_*` append exactly one whole record to a bbuf
 *    (or nothing, on error).  They do no I/O and take no lock; the agent
 *    calls them under its buffer lock and writes the bbuf out later.
 *  - `struct journal_writer`: an fd + a bbuf + the id sequence, for tools
 *    and tests, and the journal of `jsym map --follow`
 *    (attach/vmstructs/vm_follow.c).  It assigns LOAD/STUB ids 1, 2, 3,
 *    ... and writes on journal_flush/journal_close.
 *
 * Strings are UTF-8 without NUL; each is cut at JOURNAL_MAX_STR bytes (on a
 * UTF-8 character boundary).  Errors: -EINVAL (bad argument), -ENOMEM,
 * -ENOBUFS (the bbuf's limit would be passed), -errno from write(2).
 */
#ifndef JSYM_JOURNAL_H
#define JSYM_JOURNAL_H

#include <stdint.h>

#include "bbuf.h"
#include "journal_format.h"

#define JOURNAL_MAX_STR 8192

/* What a LOAD or INLINE record describes.  All strings may be NULL (= ""). */
struct journal_method {
	uint64_t code_start;
	uint64_t code_size;
	const char *class_name;   /* external form: "java.util.HashMap$Node" */
	const char *method_name;  /* "resize", "<init>" */
	const char *signature;    /* JVM form: "(I)J" */
	const char *display;      /* "long Busy.heavyCompute(int)" */
};

/* The 64-byte file header.  `agent_version` NULL = "jsym-agent". */
int journal_put_header(struct bbuf *b, uint32_t pid, uint64_t realtime_ns,
		       uint64_t proc_starttime, const char *agent_version);

/* type is JF_LOAD (id = the new LOAD's id) or JF_INLINE (id = parent id):
 * no agent writes INLINE any more (FRAMES replaced it), but the format
 * keeps it for old journals, and the readers' tests build those with it. */
int journal_put_method(struct bbuf *b, uint16_t type, uint64_t ts, uint64_t id,
		       const struct journal_method *m);
int journal_put_unload(struct bbuf *b, uint64_t ts, uint64_t id, uint64_t code_start);
int journal_put_stub(struct bbuf *b, uint64_t ts, uint64_t id, uint64_t code_start,
		     uint64_t code_size, const char *name);
int journal_put_epoch(struct bbuf *b, uint64_t ts, uint64_t reason);

/* CLOCK_MONOTONIC in ns (the record timestamp clock). */
uint64_t journal_now(void);

/* CLOCK_REALTIME in ns since the epoch (the header's start time,
 * JF_H_START_REALTIME_NS). */
uint64_t journal_realtime_ns(void);

/* ---- fd-level writer ------------------------------------------------------ */
struct journal_writer {
	int fd;
	uint64_t next_id;   /* id of the next LOAD/STUB; starts at 1 */
	struct bbuf buf;    /* records not yet written */
};

/* Take ownership of `fd` (a new, empty file) and queue the header.
 * proc_starttime: field 22 of /proc/self/stat, or 0 if unknown. */
int journal_open(struct journal_writer *w, int fd, uint32_t pid, uint64_t proc_starttime);
/* The same, naming the writer in the header's version text (NULL =
 * "jsym-agent"; `jsym map --follow` writes "jsym-map VERSION"). */
int journal_open_as(struct journal_writer *w, int fd, uint32_t pid, uint64_t proc_starttime,
		    const char *writer);

/* Queue a record; LOAD/STUB return the id they got in *id_out (may be NULL).
 * ts 0 = now. */
int journal_append_load(struct journal_writer *w, uint64_t ts, const struct journal_method *m,
			uint64_t *id_out);
int journal_append_unload(struct journal_writer *w, uint64_t ts, uint64_t id, uint64_t code_start);
int journal_append_stub(struct journal_writer *w, uint64_t ts, uint64_t code_start,
			uint64_t code_size, const char *name, uint64_t *id_out);
int journal_append_epoch(struct journal_writer *w, uint64_t ts, uint64_t reason);

/* Write queued records (whole records only).  0 or -errno. */
int journal_flush(struct journal_writer *w);

/* Flush, close the fd, free memory.  Returns the first error seen. */
int journal_close(struct journal_writer *w);

#endif
