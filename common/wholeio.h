/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wholeio.h - the bottom layer both products share (common/): the one loop
 * of jsym that writes all of a buffer (attach/base's fdio_write_all and
 * the agent's write_all, agent/format/bbuf.h, are this loop), the one that
 * reads to the end into a caller's buffer (whole_read: fdio's reads,
 * confine_read_fd and common/wholeread.c's growing buffer), and the fd
 * wait and monotonic clock both use.
 *
 * The agent's rules hold here, so the agent may call it (its flush thread,
 * never a JVMTI callback): nothing is allocated, no signal is sent, raised
 * or relied on (a socket is written with MSG_NOSIGNAL), nothing is printed
 * and nothing exits.
 */
#ifndef JSYM_WHOLEIO_H
#define JSYM_WHOLEIO_H

#include <stddef.h>

/* whole_write's flags */
#define WHOLE_SEND 1u   /* try send(MSG_NOSIGNAL) first: a socket whose
                           reader went away gives -EPIPE, not SIGPIPE; an fd
                           that is not a socket falls back to write() */

/*
 * Wait until fd is ready for events (POLLIN, POLLOUT), restarting after
 * EINTR.  wait_ms <= 0: no limit.  Returns 0, -ETIMEDOUT, or -errno.
 */
int whole_wait(int fd, short events, int wait_ms);

/*
 * Write all len bytes of buf to fd, retrying short writes and EINTR.  When
 * fd is non-blocking and full, wait for room with poll (each wait at most
 * wait_ms; <= 0: no limit).  Returns 0, -ETIMEDOUT (no room within
 * wait_ms), -EIO (a write that took nothing), or -errno (-EPIPE: the
 * reader is gone).  On failure an unknown prefix was written.
 */
int whole_write(int fd, const void *buf, size_t len, int wait_ms, unsigned flags);

/* CLOCK_MONOTONIC in milliseconds: the clock of whole_read's deadline. */
long whole_clock_ms(void);

/*
 * Read fd into buf from offset *len until EOF or until the buffer is full
 * (*len == cap), retrying EINTR and advancing *len by what was read (on
 * failure too).  Each read first waits for data (whole_wait: a file is
 * always ready, a pipe or socket, blocking or not, is waited for), at most
 * until deadline, a whole_clock_ms() time (0: no limit).  The caller owns
 * buf.  Returns 1 at EOF, 0 when the buffer is full, -ETIMEDOUT, or -errno.
 */
int whole_read(int fd, char *buf, size_t cap, size_t *len, long deadline);

#endif
