/* SPDX-License-Identifier: Apache-2.0 */
/*
 * proc_span.h - bounded views over /proc file contents, shared by proc.c
 * and proc_opts.c (private to them).  Nothing relies on NUL termination.
 */
#ifndef JSYM_PROC_SPAN_H
#define JSYM_PROC_SPAN_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* A [p, end) view; nothing here relies on NUL termination. */
struct span {
	const char *p;
	const char *end;
};

/* Next element of s ending at `delim` (or at the end); false at the end. */
static inline bool next_until(struct span *s, char delim, struct span *el)
{
	const char *d;

	if (s->p >= s->end)
		return false;
	d = memchr(s->p, delim, (size_t)(s->end - s->p));
	el->p = s->p;
	el->end = d ? d : s->end;
	s->p = d ? d + 1 : s->end;
	return true;
}

static inline bool next_line(struct span *s, struct span *line)
{
	return next_until(s, '\n', line);
}

/* NUL-separated argv/environ element; the last may lack its NUL. */
static inline bool next_elem(struct span *s, struct span *el)
{
	return next_until(s, '\0', el);
}

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline void skip_blanks(struct span *s)
{
	while (s->p < s->end && is_blank(*s->p))
		s->p++;
}

/* Does the span start with the word `w`?  Advances past it if so. */
static inline bool eat_prefix(struct span *s, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n) != 0)
		return false;
	s->p += n;
	return true;
}

static inline bool span_equals(struct span s, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(s.end - s.p) == n && memcmp(s.p, w, n) == 0;
}

/* Unsigned decimal ≤ max; advances.  -ERANGE on overflow, -EPROTO if none. */
static inline int eat_udec(struct span *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	const char *start = s->p;

	while (s->p < s->end && *s->p >= '0' && *s->p <= '9') {
		unsigned d = (unsigned)(*s->p - '0');

		if (v > (max - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
		s->p++;
	}
	if (s->p == start)
		return -EPROTO;
	*out = v;
	return 0;
}

#endif
