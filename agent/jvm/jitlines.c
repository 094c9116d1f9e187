/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jitlines.c - JIT_CODE_DEBUG_INFO entries from the inline chains
 * (jitlines.h).
 */
#include "jitlines.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump.h"

#define PATH_CAP (2 * FRAMES_MAX_STR + 2)

void jitlines_path(const char *cls, const char *file, char *out, size_t cap)
{
	const char *dot = cls ? strrchr(cls, '.') : NULL;
	size_t n = 0, dir = dot ? (size_t)(dot - cls) : 0;

	if (!cap)
		return;
	out[0] = '\0';
	if (!file || !file[0])
		return;
	for (size_t i = 0; i < dir && n + 1 < cap; i++)
		out[n++] = cls[i] == '.' ? '/' : cls[i];
	if (dir && n + 1 < cap)
		out[n++] = '/';
	snprintf(out + n, cap - n, "%s", file);
}

/* The line of one frame, 0 when unknown (frames.c's rule: no bci is the
 * method's entry, the line of its first bytecode). */
static uint32_t frame_line(const struct unfold_frame *f, const struct frames_method *m)
{
	const struct frames_method *mm = &m[f->method];

	return frames_line_of(mm->lines, mm->n_lines, f->bci == UNFOLD_NO_BCI ? 0 : f->bci);
}

int jitlines_encode(struct bbuf *b, uint64_t ts, uint64_t code_start,
		    const struct unfold_info *u, const struct frames_method *m)
{
	struct jitdump_line *e = NULL;
	char **paths = NULL;
	size_t n = 0, known = 0;
	uint32_t end = 0;
	int rc = -ENOMEM;

	if (!u->n_ranges)
		return 0;
	e = malloc((u->n_ranges + 1) * sizeof(*e));
	paths = calloc(u->n_methods, sizeof(*paths));
	if (!e || !paths)
		goto out;
	for (uint32_t i = 0; i < u->n_ranges; i++) {
		const struct unfold_range *r = &u->ranges[i];
		const struct unfold_frame *f = NULL;
		uint32_t line = 0;

		/* innermost frame with a line; else the compiled method, line 0 */
		for (uint32_t k = r->depth; k > 0 && !line; k--) {
			f = &u->frames[r->first + k - 1];
			line = frame_line(f, m);
		}
		if (!line)
			f = &u->frames[r->first];
		if (!paths[f->method]) {
			if (!(paths[f->method] = malloc(PATH_CAP)))
				goto out;
			jitlines_path(m[f->method].cls, m[f->method].file, paths[f->method],
				      PATH_CAP);
		}
		end = r->off + r->size;
		if (n && e[n - 1].line == line && strcmp(e[n - 1].file, paths[f->method]) == 0)
			continue;   /* the same line goes on */
		e[n++] = (struct jitdump_line){ code_start + r->off, line, paths[f->method] };
		known += line != 0;
	}
	if (!known) {
		rc = 0;
		goto out;
	}
	e[n] = e[n - 1];
	e[n++].addr = code_start + end;
	rc = jitdump_put_debug_info(b, ts, code_start, e, n);
	if (rc == 0)
		rc = (int)n;
out:
	for (uint32_t i = 0; paths && i < u->n_methods; i++)
		free(paths[i]);
	free(paths);
	free(e);
	return rc;
}
