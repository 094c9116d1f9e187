/* fileio.c - fd_read_all, fd_write_all. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"

int fd_read_all(int fd, size_t max, unsigned char **buf, size_t *len)
{
	size_t cap = 4096, used = 0;
	unsigned char *b = malloc(cap + 1), *nb;
	ssize_t n;

	if (!b)
		return -ENOMEM;
	for (;;) {
		if (used == cap) {
			if (cap > max) {
				free(b);
				return -EFBIG;
			}
			cap *= 2;
			nb = realloc(b, cap + 1);
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
		}
		n = read(fd, b + used, cap - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN) {
			int err = errno;

			free(b);
			return -err;
		}
		if (n <= 0)
			break;
		used += (size_t)n;
	}
	if (used > max) {
		free(b);
		return -EFBIG;
	}
	b[used] = '\0';
	*buf = b;
	*len = used;
	return 0;
}

int fd_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}
