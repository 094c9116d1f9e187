/*
 * fileio.h - whole reads and writes on file descriptors.
 */
#ifndef JSYM_FILEIO_H
#define JSYM_FILEIO_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Read fd to EOF into a new buffer (*buf, NUL-terminated one byte past
 * *len, so text can be parsed in place; the caller frees it).  More than
 * max bytes: -EFBIG and nothing returned.  EINTR is retried; EAGAIN (a
 * non-blocking fd with no data) ends the read like EOF.  Returns 0 or
 * -errno.
 */
int fd_read_all(int fd, size_t max, unsigned char **buf, size_t *len);

/* Write all n bytes (EINTR and short writes retried).  0 or -errno. */
int fd_write_all(int fd, const void *p, size_t n);

#endif
