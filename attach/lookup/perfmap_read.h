/* SPDX-License-Identifier: Apache-2.0 */
/*
 * perfmap_read.h - parse perf map files (/tmp/perf-<pid>.map), incrementally.
 *
 * A line is `START SIZE name\n`: START and SIZE in hex, with or without a
 * 0x/0X prefix, separated by blanks (spaces or tabs); the name is the rest of
 * the line and may contain spaces (a trailing \r is dropped).  The file comes
 * from a JVM we do not trust: a malformed line (bad hex, more than 16 digits,
 * size 0, a range whose end is past 2^64 - 1, no name, a NUL byte, longer than
 * PM_MAX_LINE) is skipped and counted, never fatal.  A last line without its
 * newline is still being written: it is left for the next call.
 *
 * Overlapping lines are not resolved here; the caller applies "the later line
 * wins" (lookup_lib.h does, with the line number as the id).
 */
#ifndef JSYM_PERFMAP_READ_H
#define JSYM_PERFMAP_READ_H

#include <stddef.h>
#include <stdint.h>

#include "errtext.h"

#define PM_MAX_LINE (64 * 1024)

struct pm_line {
	uint64_t start, size;
	const char *name; /* not NUL-terminated; valid until the next pm_next/pm_close */
	size_t name_len;
	uint64_t lineno;  /* 1-based line number in the file */
};

/*
 * Parse a hex number at s[0..len): optional 0x/0X, 1 to 16 digits, stopping at
 * the first non-digit.  0 with *used = bytes taken, or -EINVAL.
 */
int pm_parse_hex(const char *s, size_t len, size_t *used, uint64_t *out);

/* Parse one line without its newline.  0, or -EINVAL when it is malformed. */
int pm_parse_line(const char *line, size_t len, struct pm_line *out);

struct pm_reader {
	int fd;              /* owned: closed by pm_close */
	char *buf;           /* owned */
	size_t cap, pos, len;
	uint64_t buf_off;    /* file offset of buf[0] */
	uint64_t lines;      /* complete lines seen, good or bad */
	uint64_t malformed;  /* lines skipped as malformed */
	int skipping;        /* inside an over-long line, dropping bytes up to its newline */
};

/* Start reading the map open on fd (ownership of fd passes to the reader). 0. */
int pm_open_fd(struct pm_reader *r, int fd);

/*
 * Next well-formed line.  Returns 1 (*line filled), 0 when nothing more for
 * now (end of file, or a last line without newline), -ENOMEM, or the -errno
 * of pread (reason in e, which may be NULL).
 */
int pm_next(struct pm_reader *r, struct pm_line *line, struct err_text *e);

/* File offset of the first byte not consumed yet (start of a torn line). */
static inline uint64_t pm_offset(const struct pm_reader *r)
{
	return r->buf_off + r->pos;
}

/* Bytes of an unterminated last line currently held back. */
static inline size_t pm_pending(const struct pm_reader *r)
{
	return r->len - r->pos;
}

/*
 * Was the file truncated below what was read (a writer that rewrites its map
 * in place)?  Returns 1 and rewinds the reader to offset 0 (the caller must
 * forget what it read), 0 if not, or -errno from fstat.
 */
int pm_check_truncated(struct pm_reader *r);

/* Close the fd and free the buffer; leaves fd = -1, so a second call is harmless. */
void pm_close(struct pm_reader *r);

#endif
