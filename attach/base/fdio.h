/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fdio.h - the attach side's one way to write all of a buffer, to read a
 * small file, and to wait for a file lock.  Writing and waiting are the
 * shared bottom layer's (common/wholeio.h), which the agent uses too.
 *
 * Helpers return 0 (or a length) or -errno, never print, and leave the fd
 * open: closing is the caller's, who opened it.
 */
#ifndef JSYM_FDIO_H
#define JSYM_FDIO_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Wait until fd is ready for events (POLLIN, POLLOUT), restarting after
 * EINTR.  timeout_ms <= 0: no limit.  Returns 0, -ETIMEDOUT, or -errno.
 */
int fdio_wait(int fd, short events, int timeout_ms);

/*
 * Write all len bytes of buf to fd, retrying short writes and EINTR.  A
 * socket is written with send(MSG_NOSIGNAL), so a peer that went away gives
 * -EPIPE instead of a SIGPIPE; any other fd with write().  When fd is
 * non-blocking and full, wait for room (fdio_wait: each wait at most
 * timeout_ms; <= 0: no limit).
 * Returns 0, -ETIMEDOUT, -EIO (a write that took nothing), or -errno
 * (-EPIPE: the reader is gone).  On failure an unknown prefix was written.
 */
int fdio_write_all(int fd, const void *buf, size_t len, int timeout_ms);

/*
 * Read fd until EOF or max bytes (a longer file is cut there, which the
 * parsers tolerate) into a malloc'd buffer *out, NUL-terminated one byte
 * past the returned length.  The caller frees *out.  Returns the length, or
 * -ENOMEM / -errno with *out NULL.
 */
ssize_t fdio_read_all(int fd, size_t max, char **out);

/*
 * Read fd into buf (cap bytes, the caller's) until EOF or cap bytes, each
 * read first waiting for data at most until deadline (a clock_ms() time;
 * 0: no limit), so a pipe's writer cannot hold it longer.  Nothing is
 * added after the data (no NUL).  Returns the length (cap: the buffer
 * filled, EOF maybe not reached), or -ETIMEDOUT / -errno.
 */
ssize_t fdio_read_buf(int fd, void *buf, size_t cap, long deadline);

/*
 * fdio_read_all() for a file planted by someone else: -EINVAL unless fd is
 * a regular file (a FIFO or device would block or never end).
 */
ssize_t fdio_read_regular(int fd, size_t max, char **out);

enum fdio_lock {
	FDIO_FLOCK,             /* flock(LOCK_EX): shared by jsym processes */
	FDIO_RECORD,            /* fcntl(F_SETLK, F_WRLCK) on the whole file:
	                           what the OpenJ9 VMs use (docs/protocols.md B3) */
};

/*
 * Take an exclusive lock of that kind on fd, retrying every 10 ms while
 * another holder has it, until deadline (clock_ms() time).  Returns 0,
 * -ETIMEDOUT when the deadline passed, other -errno (the lock cannot be
 * taken at all).
 */
int fdio_lock_until(int fd, enum fdio_lock kind, long deadline);

#endif
