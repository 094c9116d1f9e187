/* SPDX-License-Identifier: Apache-2.0 */
/*
 * perfmap_read.c - perf map parser: lenient with what perf accepts, strict
 * about what could hurt us (lengths, overflow, NUL bytes).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hexdigit.h"
#include "perfmap_read.h"

#define PM_MIN_BUF (64 * 1024)

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

int pm_parse_hex(const char *s, size_t len, size_t *used, uint64_t *out)
{
	size_t i = 0, digits = 0;
	uint64_t v = 0;
	int d;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		i = 2;
	for (; i < len && (d = hex_digit((unsigned char)s[i])) >= 0; i++) {
		if (++digits > 16)
			return -EINVAL;
		v = (v << 4) | (uint64_t)d;
	}
	if (!digits)
		return -EINVAL;
	*used = i;
	*out = v;
	return 0;
}

/* Parse [0x]HEX at line[*i..len) followed by at least one blank. 0 or -EINVAL. */
static int parse_hex_field(const char *line, size_t len, size_t *i, uint64_t *out)
{
	size_t used;

	if (pm_parse_hex(line + *i, len - *i, &used, out) < 0)
		return -EINVAL;
	*i += used;
	if (*i >= len || !is_blank(line[*i]))
		return -EINVAL;
	while (*i < len && is_blank(line[*i]))
		(*i)++;
	return 0;
}

int pm_parse_line(const char *line, size_t len, struct pm_line *out)
{
	size_t i = 0;

	if (memchr(line, '\0', len))
		return -EINVAL;
	if (len && line[len - 1] == '\r')
		len--;
	while (i < len && is_blank(line[i]))
		i++;
	if (parse_hex_field(line, len, &i, &out->start) ||
	    parse_hex_field(line, len, &i, &out->size))
		return -EINVAL;
	if (i >= len || out->size == 0 || out->start + out->size < out->start)
		return -EINVAL;
	out->name = line + i;
	out->name_len = len - i;
	return 0;
}

int pm_open_fd(struct pm_reader *r, int fd)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	return 0;
}

/* Drop consumed bytes, make sure there is free space, read more.  Bytes read or -errno. */
static ssize_t pm_fill(struct pm_reader *r)
{
	ssize_t n;

	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->buf_off += r->pos;
		r->len -= r->pos;
		r->pos = 0;
	}
	if (r->cap < PM_MIN_BUF) {
		char *nb = realloc(r->buf, PM_MIN_BUF + PM_MAX_LINE);

		if (!nb)
			return -ENOMEM;
		r->buf = nb;
		r->cap = PM_MIN_BUF + PM_MAX_LINE;
	}
	do
		n = pread(r->fd, r->buf + r->len, r->cap - r->len, (off_t)(r->buf_off + r->len));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	r->len += (size_t)n;
	return n;
}

int pm_next(struct pm_reader *r, struct pm_line *line, struct err_text *e)
{
	for (;;) {
		char *p = r->len > r->pos ? r->buf + r->pos : NULL;
		char *nl = p ? memchr(p, '\n', r->len - r->pos) : NULL;
		ssize_t got;

		if (nl) {
			size_t n = (size_t)(nl - p);
			int bad = r->skipping || n > PM_MAX_LINE ||
				  pm_parse_line(p, n, line) < 0;

			r->skipping = 0;
			r->pos += n + 1;
			r->lines++;
			if (bad) {
				r->malformed++;
				continue;
			}
			line->lineno = r->lines;
			return 1;
		}
		if (r->len - r->pos > PM_MAX_LINE) {
			/* Too long to be a line we would keep: drop it up to its newline. */
			r->skipping = 1;
			r->pos = r->len;
		}
		got = pm_fill(r);
		if (got < 0) {
			err_set(e, 0, "cannot read perf map: %s", strerror((int)-got));
			return (int)got;
		}
		if (got == 0)
			return 0;
	}
}

int pm_check_truncated(struct pm_reader *r)
{
	struct stat st;

	if (fstat(r->fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size >= r->buf_off + r->len)
		return 0;
	r->buf_off = 0;
	r->pos = r->len = 0;
	r->lines = r->malformed = 0;
	r->skipping = 0;
	return 1;
}

void pm_close(struct pm_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}
