/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bbuf.h - a growable byte buffer with a hard size limit.
 *
 * The agent's callbacks append journal records and perf-map lines to bbufs
 * under a short lock; the flush thread swaps them out and writes them with
 * no lock held.  `max` bounds memory: an append that would pass it fails
 * with -ENOBUFS and leaves the buffer unchanged (whole records or nothing).
 */
#ifndef JSYM_BBUF_H
#define JSYM_BBUF_H

#include <stddef.h>

struct bbuf {
	unsigned char *data;
	size_t len;
	size_t cap;
	size_t max;     /* 0 = unlimited */
};

/* Make room for `n` more bytes; returns a pointer to them (len unchanged) or
 * NULL with *err = -ENOMEM / -ENOBUFS (limit reached). */
unsigned char *bbuf_reserve(struct bbuf *b, size_t n, int *err);

/* Append `n` bytes.  0, -ENOMEM or -ENOBUFS (buffer unchanged on error). */
int bbuf_append(struct bbuf *b, const void *p, size_t n);

/* Forget the contents, keep the memory. */
void bbuf_clear(struct bbuf *b);

/* Free the memory; the buffer is empty and reusable afterwards. */
void bbuf_free(struct bbuf *b);

/* Write all of data[0..n) to fd: common/wholeio.h's whole_write, waiting
 * at most 100 ms for room (never a send(): the agent writes files).  0,
 * -ETIMEDOUT, -EIO (a write that took nothing) or -errno. */
int write_all(int fd, const void *data, size_t n);

#endif
