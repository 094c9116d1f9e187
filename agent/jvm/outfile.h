/* SPDX-License-Identifier: Apache-2.0 */
/*
 * outfile.h - open the agent's output files safely inside a directory that
 * someone else (a hostile container) may control.
 *
 * Everything is relative to an O_DIRECTORY fd and opened with O_NOFOLLOW |
 * O_CLOEXEC | O_NONBLOCK (a planted FIFO cannot hang the JVM), then checked
 * with fstat: only regular files are accepted.  Files get mode 0644 so perf
 * run as root or another user can read them.
 */
#ifndef JSYM_OUTFILE_H
#define JSYM_OUTFILE_H

#include <stddef.h>

#include "errtext.h"

/* Open `path` as a directory fd.  fd or -errno. */
int outfile_open_dir(const char *path);

/*
 * Open (create) `name` in dirfd for writing; `flags` may add O_APPEND,
 * O_TRUNC, O_EXCL, O_RDWR.  Returns an fd, or -errno: -ELOOP (a symlink),
 * -EPERM (exists but is not a regular file: FIFO, socket, device,
 * directory), others from openat.  why (may be NULL) gets a one-line reason.
 */
int outfile_open(int dirfd, const char *name, int flags, struct err_text *why);

/* Is `name` in dirfd absent (1), a regular file (0), or something else
 * (-EPERM / -ELOOP, reason in why)? */
int outfile_check(int dirfd, const char *name, struct err_text *why);

#endif
