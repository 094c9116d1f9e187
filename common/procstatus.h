/* SPDX-License-Identifier: Apache-2.0 */
/*
 * procstatus.h - the pid a process has in its own pid namespace, from the
 * NStgid: line of /proc/<pid>/status.  The one parser of that line:
 * attach/proc's proc_parse_status and the lookup library's pid files
 * (attach/lookup/jsym_lookup_open.c) both call it.  It looks only at the
 * bytes it is given (no terminating NUL needed), allocates nothing and
 * includes nothing else of jsym's.  Not linked into the agent.
 */
#ifndef JSYM_PROCSTATUS_H
#define JSYM_PROCSTATUS_H

#include <stddef.h>
#include <sys/types.h>

/*
 * How much of /proc/<pid>/status a reader takes: the kernel writes the
 * whole text, but its Groups: line grows with the supplementary groups,
 * which any process with CAP_SETGID (a container's root) chooses: 65,536
 * groups (NGROUPS_MAX) make 722,310 bytes, with NStgid: past 721,000.  A
 * reader takes it with confine_proc_read_whole (common/confine.h), which
 * refuses more than PROCSTATUS_MAX (-EFBIG), so a cut text never passes
 * for a whole one
 * (without NStgid: it would read as a kernel before 4.1, the host's pid
 * taken for the process's own).
 */
#define PROCSTATUS_MAX (1024 * 1024)

/*
 * The value of an NStgid: line, after "NStgid:", up to len bytes or a
 * newline: one or more decimal pids, each in 1..INT32_MAX, separated by
 * blanks (spaces, tabs).  *last gets the last (the pid in the process's
 * own, innermost, pid namespace) and *levels how many there are.  0, or
 * -EPROTO (nothing there, or anything else) with *last and *levels as
 * they were.
 */
int status_nstgid(const char *val, size_t len, pid_t *last, int *levels);

/*
 * Find the line that starts with "NStgid:" in a whole status text
 * (text[0..len)) and parse it with status_nstgid.  0, -ENOENT when there
 * is no such line (a kernel before 4.1), or -EPROTO.
 */
int status_find_nstgid(const char *text, size_t len, pid_t *last, int *levels);

#endif
