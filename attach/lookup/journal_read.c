/* SPDX-License-Identifier: Apache-2.0 */
/*
 * journal_read.c - incremental, hostile-input-safe reader of jsym journals.
 *
 * The file is read through pread() into one buffer that holds the bytes from
 * the first unconsumed record on.  A record is handed out only when all its
 * `size` bytes are in the buffer; otherwise more bytes are read and, at end
 * of file, the call returns 0 with nothing consumed, so a record the agent is
 * still writing is read whole on a later call.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal_read.h"

#define JR_MAX_HEADER 4096
#define JR_MIN_BUF (64 * 1024)

int jr_parse_header(const unsigned char *buf, size_t len, struct jr_header *h,
		    struct err_text *e)
{
	if (len < JF_HEADER_SIZE) {
		err_set(e, 0, "journal header incomplete (%zu of %d bytes)", len,
		       JF_HEADER_SIZE);
		return -EAGAIN;
	}
	if (memcmp(buf + JF_H_MAGIC, JF_MAGIC, 8) != 0) {
		err_set(e, 0, "not a jsym journal (bad magic)");
		return -EPROTO;
	}
	memset(h, 0, sizeof(*h));
	h->version = jf_get16(buf + JF_H_VERSION);
	h->header_size = jf_get16(buf + JF_H_HEADER_SIZE);
	if (h->version == 0 || h->version > JF_VERSION) {
		err_set(e, 0, "journal version %u not supported (this jsym reads %d)",
		       h->version, JF_VERSION);
		return -EPROTO;
	}
	if (h->header_size < JF_HEADER_SIZE || h->header_size > JR_MAX_HEADER ||
	    h->header_size % JF_ALIGN) {
		err_set(e, 0, "bad journal header size %u", h->header_size);
		return -EPROTO;
	}
	h->flags = jf_get32(buf + JF_H_FLAGS);
	h->pid = jf_get32(buf + JF_H_PID);
	h->start_realtime_ns = jf_get64(buf + JF_H_START_REALTIME_NS);
	h->proc_starttime = jf_get64(buf + JF_H_PROC_STARTTIME);
	memcpy(h->agent_version, buf + JF_H_AGENT_VERSION, JF_AGENT_VERSION_LEN);
	h->agent_version[JF_AGENT_VERSION_LEN] = '\0';
	return 0;
}

/* Point s at `len` bytes at *pos inside body[0..blen); 0, or -1 if out of bounds. */
static int take_str(const unsigned char *body, size_t blen, size_t *pos, uint16_t len,
		    struct jr_str *s)
{
	if (len > blen - *pos)
		return -1;
	s->p = (const char *)body + *pos;
	s->len = len;
	*pos += len;
	return 0;
}

/* id, code_start, code_size: the first 24 body bytes of LOAD, INLINE, STUB. */
static int parse_range(const unsigned char *b, size_t blen, size_t fixed, struct jr_record *rec)
{
	if (blen < fixed)
		return -1;
	rec->id = jf_get64(b);
	rec->code_start = jf_get64(b + 8);
	rec->code_size = jf_get64(b + 16);
	return rec->code_start + rec->code_size >= rec->code_start ? 0 : -1;
}

static int parse_load(const unsigned char *b, size_t blen, struct jr_record *rec)
{
	size_t pos = JF_LOAD_FIXED;

	if (parse_range(b, blen, JF_LOAD_FIXED, rec) < 0 ||
	    take_str(b, blen, &pos, jf_get16(b + 24), &rec->class_name) ||
	    take_str(b, blen, &pos, jf_get16(b + 26), &rec->method) ||
	    take_str(b, blen, &pos, jf_get16(b + 28), &rec->signature) ||
	    take_str(b, blen, &pos, jf_get16(b + 30), &rec->name))
		return -1;
	return 0;
}

static int parse_stub(const unsigned char *b, size_t blen, struct jr_record *rec)
{
	size_t pos = JF_STUB_FIXED;

	if (parse_range(b, blen, JF_STUB_FIXED, rec) < 0)
		return -1;
	return take_str(b, blen, &pos, jf_get16(b + 24), &rec->name);
}

static int parse_body(const unsigned char *b, size_t blen, struct jr_record *rec)
{
	switch (rec->type) {
	case JF_LOAD:
	case JF_INLINE:
		return parse_load(b, blen, rec);
	case JF_STUB:
		return parse_stub(b, blen, rec);
	case JF_UNLOAD:
		if (blen < JF_UNLOAD_BODY)
			return -1;
		rec->id = jf_get64(b);
		rec->code_start = jf_get64(b + 8);
		return 0;
	case JF_EPOCH:
		if (blen < JF_EPOCH_BODY)
			return -1;
		rec->reason = jf_get64(b);
		return 0;
	case JF_FRAMES:
		/* the tables are checked by jr_frames_parse (frames_read.c) */
		if (blen < JF_FRAMES_FIXED)
			return -1;
		rec->id = jf_get64(b);
		rec->code_start = jf_get64(b + 8);
		rec->body = b;
		rec->body_len = (uint32_t)blen;
		return 0;
	default:
		return 0; /* unknown type: the caller skips it by size */
	}
}

long jr_parse_record(const unsigned char *buf, size_t len, uint64_t offset,
		     struct jr_record *rec, struct err_text *e)
{
	uint32_t size;

	if (len < JF_PREFIX_SIZE)
		return 0;
	size = jf_get32(buf + 4);
	if (size < JF_PREFIX_SIZE || size % JF_ALIGN || size > JF_MAX_RECORD) {
		err_set(e, 0,
		       "corrupt journal record at offset %llu: size %u (must be a multiple of %d in [%d, %u])",
		       (unsigned long long)offset, size, JF_ALIGN, JF_PREFIX_SIZE,
		       JF_MAX_RECORD);
		return -EBADMSG;
	}
	if (len < size)
		return 0;
	memset(rec, 0, sizeof(*rec));
	rec->offset = offset;
	rec->type = jf_get16(buf);
	rec->flags = jf_get16(buf + 2);
	rec->size = size;
	rec->timestamp = jf_get64(buf + 8);
	if (parse_body(buf + JF_PREFIX_SIZE, size - JF_PREFIX_SIZE, rec) < 0)
		rec->type = JR_BAD;
	return size;
}

int jr_open_fd(struct jr_reader *r, int fd)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	return 0;
}

/* Make room for `need` unconsumed bytes; drop consumed ones.  0 or -ENOMEM. */
static int jr_make_room(struct jr_reader *r, size_t need)
{
	size_t keep = r->buf_len - r->buf_pos;

	if (r->buf_pos) {
		memmove(r->buf, r->buf + r->buf_pos, keep);
		r->buf_off += r->buf_pos;
		r->buf_len = keep;
		r->buf_pos = 0;
	}
	if (need < JR_MIN_BUF)
		need = JR_MIN_BUF;
	if (r->buf_cap < need) {
		unsigned char *nb = realloc(r->buf, need);

		if (!nb)
			return -ENOMEM;
		r->buf = nb;
		r->buf_cap = need;
	}
	return 0;
}

/* Append file bytes after the buffered ones.  Bytes read (0 at EOF) or -errno. */
static ssize_t jr_fill(struct jr_reader *r)
{
	ssize_t n;

	do
		n = pread(r->fd, r->buf + r->buf_len, r->buf_cap - r->buf_len,
			  (off_t)(r->buf_off + r->buf_len));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	r->buf_len += (size_t)n;
	return n;
}

static int jr_read_header(struct jr_reader *r, struct err_text *e)
{
	unsigned char hb[JF_HEADER_SIZE];
	ssize_t n;
	int rc;

	do
		n = pread(r->fd, hb, sizeof(hb), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		rc = -errno;
		err_set(e, 0, "cannot read journal header: %s", strerror(-rc));
		return rc;
	}
	rc = jr_parse_header(hb, (size_t)n, &r->hdr, e);
	if (rc == -EPROTO)
		r->failed = rc;
	if (rc)
		return rc;
	memcpy(r->raw_hdr, hb, sizeof(hb));
	r->have_header = 1;
	r->offset = r->buf_off = r->hdr.header_size;
	r->buf_pos = r->buf_len = 0;
	return 0;
}

int jr_next(struct jr_reader *r, struct jr_record *rec, struct err_text *e)
{
	int rc;

	if (r->failed) {
		err_set(e, 0, "journal reader stopped after an earlier error");
		return r->failed;
	}
	if (!r->have_header && (rc = jr_read_header(r, e)) < 0)
		return rc;
	for (;;) {
		size_t avail = r->buf_len - r->buf_pos;
		const unsigned char *p = avail ? r->buf + r->buf_pos : NULL;
		long n = avail ? jr_parse_record(p, avail, r->offset, rec, e) : 0;
		size_t need;
		ssize_t got;

		if (n < 0) {
			r->failed = (int)n;
			return (int)n;
		}
		if (n > 0) {
			r->buf_pos += (size_t)n;
			r->offset += (uint64_t)n;
			return 1;
		}
		/* Incomplete: read more, keeping what we have. */
		need = avail < JF_PREFIX_SIZE ? JF_PREFIX_SIZE : jf_get32(p + 4);
		if ((rc = jr_make_room(r, need)) < 0) {
			err_set(e, 0, "out of memory reading the journal");
			return rc;
		}
		got = jr_fill(r);
		if (got < 0) {
			err_set(e, 0, "cannot read journal at offset %llu: %s",
			       (unsigned long long)(r->buf_off + r->buf_len),
			       strerror((int)-got));
			return (int)got;
		}
		if (got == 0)
			return 0;
	}
}

void jr_unread(struct jr_reader *r, const struct jr_record *rec)
{
	if (rec->offset + rec->size == r->offset && r->buf_pos >= rec->size) {
		r->buf_pos -= rec->size;
		r->offset = rec->offset;
	}
}

int jr_check_replaced(struct jr_reader *r)
{
	unsigned char hb[JF_HEADER_SIZE];
	struct stat st;
	ssize_t n;

	if (!r->have_header)
		return 0;
	if (fstat(r->fd, &st) < 0)
		return -errno;
	do
		n = pread(r->fd, hb, sizeof(hb), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((uint64_t)st.st_size >= r->offset && n == (ssize_t)sizeof(hb) &&
	    memcmp(hb, r->raw_hdr, sizeof(hb)) == 0)
		return 0;
	r->have_header = 0;
	r->failed = 0;
	r->offset = r->buf_off = 0;
	r->buf_pos = r->buf_len = 0;
	return 1;
}

void jr_close(struct jr_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}
