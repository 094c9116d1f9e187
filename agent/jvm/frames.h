/* SPDX-License-Identifier: Apache-2.0 */
/*
 * frames.h - encode the JF_FRAMES records of one compiled method: its inline
 * chains (unfold.h) with names, source files and, with the `lines` option,
 * source lines (journal_format.h, docs/journal-format.md).
 *
 * Pure: no JVMTI, no lock; the agent encodes into a private bbuf on the JIT
 * thread and hands the finished records to the sink (sink_record_raw).
 */
#ifndef JSYM_FRAMES_H
#define JSYM_FRAMES_H

#include <stdint.h>

#include "bbuf.h"
#include "unfold.h"

#define FRAMES_MAX_STR 1024          /* each string of the method table is cut here */

/* One line-table entry: code from bytecode index `bci` on is line `line`. */
struct frames_line {
	uint16_t bci, line;
};

/* What the agent learned about one method of unfold_info.methods[]. */
struct frames_method {
	const char *cls, *name, *sig, *display, *file;   /* NULL = "" */
	const struct frames_line *lines;   /* sorted by bci; NULL when unknown */
	uint32_t n_lines;
};

/* The line of `bci` in a sorted line table: the entry with the largest
 * bci <= it; 0 (unknown) when there is none or bci is UNFOLD_NO_BCI.
 * (frames_encode asks for bci 0 when a frame has no bci: JVMTI gives -1 at
 * an inlined method's entry, before its first bytecode.) */
uint16_t frames_line_of(const struct frames_line *lines, uint32_t n, uint16_t bci);

/*
 * Append the FRAMES records of LOAD `parent_id` at `code_start` to b (whole
 * records; several when one would pass JF_MAX_RECORD, each with the whole
 * method table).  m[] has u->n_methods entries.  with_lines: write bcis and
 * lines and merge ranges by (method, line); else bcis and lines are
 * "unknown" and ranges merge by method.  Returns the number of records
 * (0 when u has no ranges), -ENOMEM, or -E2BIG when the method table alone
 * does not fit a record (nothing appended).
 */
int frames_encode(struct bbuf *b, uint64_t ts, uint64_t parent_id, uint64_t code_start,
		  const struct unfold_info *u, const struct frames_method *m, int with_lines);

#endif
