/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wholeread.h - read all of an fd into a buffer of its own: the one
 * read-to-end reader of the host side, behind attach/base's fdio_read_all
 * and confine.h's confine_read_fd, confine_proc_read and mountinfo reads.
 * Its reads are wholeio.h's whole_read; it allocates, so unlike wholeio.c
 * the agent does not link it (common.mk's CONFINE_SRCS: jsym, the lookup
 * library and the test tools that link attach/base).
 */
#ifndef JSYM_WHOLEREAD_H
#define JSYM_WHOLEREAD_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Read fd until EOF or max bytes (a longer file is cut there) into a
 * malloc'd buffer *out, NUL-terminated one byte past the returned length;
 * the caller frees it.  timeout_ms > 0 bounds the whole read (whole_read's
 * deadline); <= 0: no limit.  Returns the length, or -ENOMEM, -ETIMEDOUT,
 * -errno with *out NULL.
 */
ssize_t whole_read_alloc(int fd, size_t max, int timeout_ms, char **out);

#endif
