/* SPDX-License-Identifier: Apache-2.0 */
/*
 * agentlog.h - jsym-<pid>.log: one line per notable event or failure,
 * "2026-11-21T18:00:00Z jsym-agent[<pid>]: <text>".  Opened O_APPEND in the
 * output directory (outfile.h rules); lines are written with one write(2)
 * each, so concurrent writers never interleave within a line.  Never writes
 * to the JVM's stdout/stderr unless verbose is set.
 */
#ifndef JSYM_AGENTLOG_H
#define JSYM_AGENTLOG_H

#include <stdbool.h>

/* Use jsym-<pid>.log in `dirfd` (the directory `dir`) from now on.  0 or
 * -errno; on failure the previous log (if any) stays.  After
 * agentlog_close, lines go to the same file, opened per line. */
int agentlog_open(int dirfd, const char *dir, bool verbose);

/* Also copy lines to stderr? */
void agentlog_set_verbose(bool verbose);

/* Close the log (later lines reopen it per line; /tmp if never opened). */
void agentlog_close(void);

/* Write one line (a trailing newline is added). */
void agentlog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
