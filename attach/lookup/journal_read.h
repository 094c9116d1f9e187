/* SPDX-License-Identifier: Apache-2.0 */
/*
 * journal_read.h - read a jsym journal (agent/format/journal_format.h), incrementally.
 *
 * The journal is written by a JVM we do not trust, and may be read while it is
 * being written.  The reader therefore:
 *   - validates the header (magic, version, header size) before anything else;
 *   - hands out one complete record at a time, from a saved file offset;
 *   - leaves a record with fewer bytes on disk than its `size` for the next
 *     call (it is still being written): never an error, never consumed;
 *   - treats a size < 16, not a multiple of 8, or > JF_MAX_RECORD as
 *     corruption (-EBADMSG, with the offset in the error text); after that the
 *     reader stays failed, because nothing after a bad size can be framed;
 *   - skips records of unknown type (returned with type set, body unparsed);
 *   - bounds-checks every string against its record; a LOAD/STUB/INLINE whose
 *     strings do not fit is returned as JR_BAD (the caller skips it).
 *
 * Strings in a struct jr_record point into the reader's buffer: they are NOT
 * NUL-terminated (use the _len fields) and stay valid only until the next
 * jr_next() / jr_close() on the same reader.
 */
#ifndef JSYM_JOURNAL_READ_H
#define JSYM_JOURNAL_READ_H

#include <stddef.h>
#include <stdint.h>

#include "errtext.h"
#include "journal_format.h"

#define JR_BAD 0xffff /* jr_record.type of a known-type record whose body is malformed */

struct jr_header {
	uint16_t version;
	uint16_t header_size;
	uint32_t flags;
	uint32_t pid;                   /* the JVM's pid in its own namespace */
	uint64_t start_realtime_ns;
	uint64_t proc_starttime;
	char agent_version[JF_AGENT_VERSION_LEN + 1]; /* NUL-terminated copy */
};

struct jr_str {
	const char *p; /* not NUL-terminated */
	uint16_t len;
};

struct jr_record {
	uint64_t offset;     /* file offset of the record */
	uint16_t type;       /* enum jf_type, JR_BAD, or an unknown value */
	uint16_t flags;
	uint32_t size;
	uint64_t timestamp;
	uint64_t id;         /* LOAD/STUB: own id; INLINE, FRAMES: parent id; UNLOAD: ended id */
	uint64_t code_start;
	uint64_t code_size;  /* 0 for UNLOAD */
	uint64_t reason;     /* EPOCH only */
	struct jr_str class_name, method, signature, name; /* STUB: name only */
	const unsigned char *body; /* FRAMES: the body after the prefix (jr_frames_parse) */
	uint32_t body_len;
};

/* A FRAMES record's tables, checked: every count fits the body, the depths
 * add up to n_frames, every method index is below n_methods and every
 * method's strings fit.  Pointers into the record's body. */
struct jr_frames {
	uint64_t id, code_start;
	uint32_t n_ranges, n_frames, n_methods, flags;
	const unsigned char *ranges;   /* n_ranges x JF_FRAMES_RANGE */
	const unsigned char *frames;   /* n_frames x JF_FRAMES_FRAME */
	const unsigned char *methods;  /* the method table */
	size_t methods_len;
};

/* Parse a FRAMES record's body (jr_record.body).  0, or -EBADMSG. */
int jr_frames_parse(const unsigned char *body, size_t len, struct jr_frames *f);

/* Method i's five strings (class, method, sig, name, file) of a parsed
 * record: walks the table, so call it in order from a saved position:
 * *pos starts at 0 and is advanced past method i.  0 or -EBADMSG. */
int jr_frames_method(const struct jr_frames *f, size_t *pos, struct jr_str out[5]);

/*
 * Parse the 64-byte header from buf[0..len).  Returns 0, -EAGAIN when len is
 * shorter than the header claims (the file is still being created), or
 * -EPROTO (bad magic, version 0 or newer than JF_VERSION, header size out of
 * [JF_HEADER_SIZE, 4096] or not a multiple of 8) with a reason in e.
 */
int jr_parse_header(const unsigned char *buf, size_t len, struct jr_header *h,
		    struct err_text *e);

/*
 * Parse one record at buf[0..len), which sits at file offset `offset`.
 * Returns the record size (> 0) and fills *rec; 0 when the record is
 * incomplete (fewer than 16 bytes, or fewer than its size); -EBADMSG for a
 * corrupt size, with the offset in e.
 */
long jr_parse_record(const unsigned char *buf, size_t len, uint64_t offset,
		     struct jr_record *rec, struct err_text *e);

struct jr_reader {
	int fd;              /* owned: closed by jr_close */
	uint64_t offset;     /* file offset of the next unread record */
	struct jr_header hdr;
	unsigned char raw_hdr[JF_HEADER_SIZE]; /* as read, to notice a new journal */
	int have_header;
	int failed;          /* sticky -errno after corruption */
	unsigned char *buf;  /* owned: bytes [buf_off, buf_off + buf_len) of the file */
	size_t buf_cap, buf_pos, buf_len;
	uint64_t buf_off;
};

/*
 * Start reading the journal open on fd (the reader takes ownership of fd
 * even on failure) at file offset 0.  No I/O happens until jr_next().
 * Returns 0.
 */
int jr_open_fd(struct jr_reader *r, int fd);

/*
 * Next complete record.  Returns 1 (*rec filled, strings valid until the next
 * call), 0 when there is nothing more for now (end of file or a partly
 * written record: call again later), -EAGAIN when the header is not complete
 * yet, -EPROTO for a bad header, -EBADMSG for corruption, -ENOMEM, or the
 * -errno of pread.  e (may be NULL) receives a reason on errors.
 */
int jr_next(struct jr_reader *r, struct jr_record *rec, struct err_text *e);

/*
 * Give back the record jr_next just returned: the next jr_next returns it
 * again (a caller that stops before it, e.g. at a time limit).  Only the
 * last record returned can be given back.
 */
void jr_unread(struct jr_reader *r, const struct jr_record *rec);

/*
 * Has the file been started over since the header was read (the agent of a
 * new process with the same pid truncates it and writes a new header)?
 * Returns 1 and rewinds the reader to offset 0 (the caller must forget what
 * it read), 0 when it is the same journal, or -errno from fstat/pread.
 */
int jr_check_replaced(struct jr_reader *r);

/* Close the fd and free the buffer; leaves fd = -1, so a second call is harmless. */
void jr_close(struct jr_reader *r);

#endif
