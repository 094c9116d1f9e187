/* SPDX-License-Identifier: Apache-2.0 */
/* wholeio.c - write all of a buffer, read an fd to its end: see wholeio.h. */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "wholeio.h"

/* One send(MSG_NOSIGNAL), or one write() once fd turned out not a socket. */
static ssize_t put_some(int fd, const char *p, size_t n, bool *not_socket)
{
	if (!*not_socket) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w >= 0 || errno != ENOTSOCK)
			return w;
		*not_socket = true;
	}
	return write(fd, p, n);
}

int whole_wait(int fd, short events, int wait_ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int n;

	do
		n = poll(&p, 1, wait_ms > 0 ? wait_ms : -1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == 0 ? -ETIMEDOUT : 0;
}

int whole_write(int fd, const void *buf, size_t len, int wait_ms, unsigned flags)
{
	const char *p = buf;
	bool not_socket = !(flags & WHOLE_SEND);

	while (len > 0) {
		ssize_t n = put_some(fd, p, len, &not_socket);
		int rc;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			rc = whole_wait(fd, POLLOUT, wait_ms);
			if (rc)
				return rc;
			continue;
		}
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

long whole_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int whole_read(int fd, char *buf, size_t cap, size_t *len, long deadline)
{
	while (*len < cap) {
		long left = deadline ? deadline - whole_clock_ms() : 0;
		ssize_t n;
		int rc;

		if (deadline && left <= 0)
			return -ETIMEDOUT;
		/* a file is always ready; a pipe or socket is waited for here,
		 * blocking or not, so no read outlasts the deadline */
		rc = whole_wait(fd, POLLIN, (int)left);
		if (rc)
			return rc;
		n = read(fd, buf + *len, cap - *len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 1;
		*len += (size_t)n;
	}
	return 0;
}
