/* SPDX-License-Identifier: Apache-2.0 */
/* wholeread.c - read an fd to its end into a growing buffer: see wholeread.h. */
#include <errno.h>
#include <stdlib.h>

#include "wholeio.h"
#include "wholeread.h"

#define FIRST_CHUNK 4096

/* The next capacity: 4096 first, then doubled, never past max. */
static size_t next_cap(size_t cap, size_t max)
{
	if (!cap)
		return max < FIRST_CHUNK ? max : FIRST_CHUNK;
	return cap > max / 2 ? max : cap * 2;
}

ssize_t whole_read_alloc(int fd, size_t max, int timeout_ms, char **out)
{
	long deadline = timeout_ms > 0 ? whole_clock_ms() + timeout_ms : 0;
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int rc;

	*out = NULL;
	do {
		char *nb;

		cap = next_cap(cap, max);
		nb = realloc(buf, cap + 1);
		if (!nb) {
			free(buf);
			return -ENOMEM;
		}
		buf = nb;
		rc = whole_read(fd, buf, cap, &len, deadline);
	} while (rc == 0 && cap < max);         /* full, room to grow */
	if (rc < 0) {
		free(buf);
		return rc;
	}
	buf[len] = '\0';
	*out = buf;
	return (ssize_t)len;
}
