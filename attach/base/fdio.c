/* SPDX-License-Identifier: Apache-2.0 */
/* fdio.c - write all, read a small file, wait for a lock (base.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "wholeio.h"
#include "wholeread.h"

#define LOCK_RETRY_MS 10

int fdio_wait(int fd, short events, int timeout_ms)
{
	return whole_wait(fd, events, timeout_ms);
}

int fdio_write_all(int fd, const void *buf, size_t len, int timeout_ms)
{
	return whole_write(fd, buf, len, timeout_ms, WHOLE_SEND);
}

ssize_t fdio_read_all(int fd, size_t max, char **out)
{
	return whole_read_alloc(fd, max, 0, out);
}

ssize_t fdio_read_buf(int fd, void *buf, size_t cap, long deadline)
{
	size_t len = 0;
	int rc = whole_read(fd, buf, cap, &len, deadline);

	return rc < 0 ? rc : (ssize_t)len;
}

/* One non-blocking attempt: 0, or -errno (EAGAIN-like while someone holds it). */
static int try_lock(int fd, enum fdio_lock kind)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	if (kind == FDIO_FLOCK)
		return flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : -errno;
	return fcntl(fd, F_SETLK, &fl) == 0 ? 0 : -errno;
}

/* flock says EWOULDBLOCK, a record lock EAGAIN or EACCES (POSIX allows both). */
static bool held_by_other(int rc)
{
	return rc == -EAGAIN || rc == -EWOULDBLOCK || rc == -EACCES || rc == -EINTR;
}

int fdio_lock_until(int fd, enum fdio_lock kind, long deadline)
{
	for (;;) {
		int rc = try_lock(fd, kind);

		if (rc == 0 || !held_by_other(rc))
			return rc;
		if (clock_ms() >= deadline)
			return -ETIMEDOUT;
		poll(NULL, 0, LOCK_RETRY_MS);
	}
}
