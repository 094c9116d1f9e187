/* SPDX-License-Identifier: Apache-2.0 */
/*
 * perfmap.c - format perf-map lines and replace the map atomically.
 */
#include "perfmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outfile.h"

int perfmap_put_line(struct bbuf *b, uint64_t start, uint64_t size, const char *name)
{
	size_t nlen = name ? strlen(name) : 0;
	int err = 0;
	unsigned char *p = bbuf_reserve(b, 2 * 17 + nlen + 1, &err);
	int n;

	if (!p)
		return err;
	n = snprintf((char *)p, 36, "%llx %llx ", (unsigned long long)start,
		     (unsigned long long)size);
	for (size_t i = 0; i < nlen; i++)
		p[n + i] = (name[i] == '\n' || name[i] == '\r') ? ' ' : (unsigned char)name[i];
	p[n + nlen] = '\n';
	b->len += (size_t)n + nlen + 1;
	return 0;
}

int perfmap_render(const struct code_table *t, struct bbuf *out)
{
	size_t n;
	const struct code_entry **v = codetable_sorted(t, &n);
	int rc = 0;

	if (!v && codetable_count(t))
		return -ENOMEM;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = perfmap_put_line(out, v[i]->start, v[i]->size, v[i]->name);
	free(v);
	return rc;
}

int perfmap_replace(int dirfd, const char *name, const char *tmpname, const void *data,
		    size_t len, struct err_text *why)
{
	int rc, fd;

	rc = outfile_check(dirfd, name, why);
	if (rc < 0)
		return rc;
	/* A leftover (or planted) temp file is removed, never reused. */
	if (unlinkat(dirfd, tmpname, 0) < 0 && errno != ENOENT) {
		rc = -errno;
		err_set(why, 0, "cannot remove stale %s: %s", tmpname, strerror(-rc));
		return rc;
	}
	fd = outfile_open(dirfd, tmpname, O_EXCL, why);
	if (fd < 0)
		return fd;
	rc = write_all(fd, data, len);
	if (rc < 0) {
		err_set(why, 0, "cannot write %s: %s", tmpname, strerror(-rc));
		goto fail;
	}
	if (renameat(dirfd, tmpname, dirfd, name) < 0) {
		rc = -errno;
		err_set(why, 0, "cannot rename %s to %s: %s", tmpname, name, strerror(-rc));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	unlinkat(dirfd, tmpname, 0);
	return rc;
}
