/* SPDX-License-Identifier: Apache-2.0 */
/*
 * perfmap.h - the perf map: "START SIZE name\n", lowercase hex, no 0x
 * (tools/perf/Documentation/jit-interface.txt).  See docs/perf-map.md for
 * how the agent keeps the file equal to the live code.
 */
#ifndef JSYM_PERFMAP_H
#define JSYM_PERFMAP_H

#include <stdint.h>

#include "bbuf.h"
#include "codetable.h"
#include "errtext.h"

/* Append one line.  Newlines in the name become spaces (one entry, one
 * line).  0, -ENOMEM or -ENOBUFS (buffer unchanged). */
int perfmap_put_line(struct bbuf *b, uint64_t start, uint64_t size, const char *name);

/* Append the lines of every entry of `t`, sorted by address.  0 or -errno
 * (the buffer may hold a prefix on error). */
int perfmap_render(const struct code_table *t, struct bbuf *out);

/*
 * Replace `name` in dirfd atomically with data[0..len): write `tmpname`
 * (created fresh, 0644), then renameat over `name`.  Refuses (-EPERM /
 * -ELOOP) when `name` exists and is not a regular file.  On success
 * returns the fd of the new file, positioned at its end, for appends.
 * why (may be NULL) gets a one-line reason on error.
 */
int perfmap_replace(int dirfd, const char *name, const char *tmpname, const void *data,
		    size_t len, struct err_text *why);

#endif
