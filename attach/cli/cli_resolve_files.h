/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_resolve_files.h - find and open the symbol files of a JVM for `jsym
 * resolve` (CLI layer: these functions print their errors with cli_err, in the
 * house form "jsym: what failed: why (what to do)").
 *
 * For a host pid the files live in the JVM's own mount namespace, under DIR,
 * named with the JVM's own pid: /proc/PID/root/DIR/jsym-NSPID.journal, else
 * /proc/PID/root/DIR/perf-NSPID.map.  Paths are resolved inside that root
 * by confine_open (common/confine.h): inside that root, a regular file on
 * a local file system, or nothing is opened.  A FILE given on the command
 * line goes through it too (a FIFO or a FUSE file there is refused).
 */
#ifndef JSYM_CLI_RESOLVE_FILES_H
#define JSYM_CLI_RESOLVE_FILES_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

struct resolve_source {
	int fd;                     /* the open file (regular); -1 when none */
	int is_journal;             /* 1 journal, 0 perf map */
	int rootfd;                 /* O_PATH fd of /proc/PID/root, or AT_FDCWD (offline) */
	int mntfd;                  /* O_PATH fd of /proc/PID (its mountinfo), or -1 */
	char rel[PATH_MAX];         /* the file's path relative to rootfd */
	char path[PATH_MAX + 128];  /* for messages: /proc/PID/root/DIR/NAME or FILE */
	dev_t dev;                  /* identity of the open file */
	ino_t ino;
};

/* Find the files of host pid `pid` under `dir` (NULL: where its agent
 * writes, target_out_dir).  0, or -1 (message printed). */
int resolve_open_pid(long pid, const char *dir, int verbose, struct resolve_source *src);

/* Open FILE given on the command line (--journal / --map).  0 or -1 (printed). */
int resolve_open_file(const char *file, int is_journal, struct resolve_source *src);

/*
 * Has the path been replaced by another file (a map rewritten through
 * rename)?  Returns an fd of the new file (the caller owns it, src->fd is
 * left alone and src's identity updated), or -1 when it is the same file, or
 * gone, or not a regular file now (silently: the old file stays in use).
 */
int resolve_reopen_if_replaced(struct resolve_source *src);

/* Close rootfd and mntfd (src->fd belongs to whoever it was handed to). */
void resolve_close(struct resolve_source *src);

/* SECONDS[.FRACTION] (an --at) -> ns: 0, or -1 (time 0 is refused: it
 * means "no limit"). */
int resolve_parse_seconds(const char *s, uint64_t *ns);

/* The limit of one read of the open file fd, in ms: CLI_LOOK_MS and a
 * second more for each 8 MiB it holds. */
int resolve_read_limit_ms(int fd);

#endif
