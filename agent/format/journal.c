/* SPDX-License-Identifier: Apache-2.0 */
/*
 * journal.c - encode journal records (journal_format.h) and write them.
 *
 * Every encoder reserves the whole record first, zero-fills it, then
 * fills fields, so a failure leaves the buffer unchanged and the padding
 * is always zero (the file is byte-for-byte reproducible).
 */
#include "journal.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

uint64_t journal_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t journal_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Length of s cut to JOURNAL_MAX_STR without splitting a UTF-8 sequence. */
static uint16_t str_len(const char *s)
{
	size_t n;

	if (!s)
		return 0;
	n = strlen(s);
	if (n <= JOURNAL_MAX_STR)
		return (uint16_t)n;
	n = JOURNAL_MAX_STR;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return (uint16_t)n;
}

/* Reserve a zeroed record of `size` bytes with its prefix filled. */
static unsigned char *put_record(struct bbuf *b, uint16_t type, uint32_t size, uint64_t ts,
				 int *err)
{
	unsigned char *p = bbuf_reserve(b, size, err);

	if (!p)
		return NULL;
	memset(p, 0, size);
	jf_put16(p, type);
	jf_put16(p + 2, 0);
	jf_put32(p + 4, size);
	jf_put64(p + 8, ts);
	return p;
}

int journal_put_header(struct bbuf *b, uint32_t pid, uint64_t realtime_ns,
		       uint64_t proc_starttime, const char *agent_version)
{
	const char *v = agent_version ? agent_version : "jsym-agent";
	size_t vlen = strlen(v);
	int err = 0;
	unsigned char *p = bbuf_reserve(b, JF_HEADER_SIZE, &err);

	if (!p)
		return err;
	memset(p, 0, JF_HEADER_SIZE);
	memcpy(p + JF_H_MAGIC, JF_MAGIC, 8);
	jf_put16(p + JF_H_VERSION, JF_VERSION);
	jf_put16(p + JF_H_HEADER_SIZE, JF_HEADER_SIZE);
	jf_put32(p + JF_H_FLAGS, 0);
	jf_put32(p + JF_H_PID, pid);
	jf_put64(p + JF_H_START_REALTIME_NS, realtime_ns);
	jf_put64(p + JF_H_PROC_STARTTIME, proc_starttime);
	if (vlen > JF_AGENT_VERSION_LEN)
		vlen = JF_AGENT_VERSION_LEN;
	memcpy(p + JF_H_AGENT_VERSION, v, vlen);
	b->len += JF_HEADER_SIZE;
	return 0;
}

int journal_put_method(struct bbuf *b, uint16_t type, uint64_t ts, uint64_t id,
		       const struct journal_method *m)
{
	const char *str[4] = { m->class_name, m->method_name, m->signature, m->display };
	uint16_t len[4];
	uint32_t size = JF_PREFIX_SIZE + JF_LOAD_FIXED;
	unsigned char *p, *s;
	int err = 0;

	if (type != JF_LOAD && type != JF_INLINE)
		return -EINVAL;
	for (int i = 0; i < 4; i++) {
		len[i] = str_len(str[i]);
		size += len[i];
	}
	size = jf_align(size);
	p = put_record(b, type, size, ts, &err);
	if (!p)
		return err;
	s = p + JF_PREFIX_SIZE;
	jf_put64(s, id);
	jf_put64(s + 8, m->code_start);
	jf_put64(s + 16, m->code_size);
	s += 24;
	for (int i = 0; i < 4; i++)
		jf_put16(s + 2 * i, len[i]);
	s += 8;
	for (int i = 0; i < 4; i++) {
		if (len[i])
			memcpy(s, str[i], len[i]);
		s += len[i];
	}
	b->len += size;
	return 0;
}

int journal_put_unload(struct bbuf *b, uint64_t ts, uint64_t id, uint64_t code_start)
{
	int err = 0;
	unsigned char *p = put_record(b, JF_UNLOAD, JF_PREFIX_SIZE + JF_UNLOAD_BODY, ts, &err);

	if (!p)
		return err;
	jf_put64(p + JF_PREFIX_SIZE, id);
	jf_put64(p + JF_PREFIX_SIZE + 8, code_start);
	b->len += JF_PREFIX_SIZE + JF_UNLOAD_BODY;
	return 0;
}

int journal_put_stub(struct bbuf *b, uint64_t ts, uint64_t id, uint64_t code_start,
		     uint64_t code_size, const char *name)
{
	uint16_t nlen = str_len(name);
	uint32_t size = jf_align(JF_PREFIX_SIZE + JF_STUB_FIXED + nlen);
	int err = 0;
	unsigned char *p = put_record(b, JF_STUB, size, ts, &err);

	if (!p)
		return err;
	p += JF_PREFIX_SIZE;
	jf_put64(p, id);
	jf_put64(p + 8, code_start);
	jf_put64(p + 16, code_size);
	jf_put16(p + 24, nlen);
	if (nlen)
		memcpy(p + JF_STUB_FIXED, name, nlen);
	b->len += size;
	return 0;
}

int journal_put_epoch(struct bbuf *b, uint64_t ts, uint64_t reason)
{
	int err = 0;
	unsigned char *p = put_record(b, JF_EPOCH, JF_PREFIX_SIZE + JF_EPOCH_BODY, ts, &err);

	if (!p)
		return err;
	jf_put64(p + JF_PREFIX_SIZE, reason);
	b->len += JF_PREFIX_SIZE + JF_EPOCH_BODY;
	return 0;
}

/* ---- fd-level writer ------------------------------------------------------ */
static uint64_t ts_or_now(uint64_t ts)
{
	return ts ? ts : journal_now();
}

int journal_open(struct journal_writer *w, int fd, uint32_t pid, uint64_t proc_starttime)
{
	return journal_open_as(w, fd, pid, proc_starttime, NULL);
}

int journal_open_as(struct journal_writer *w, int fd, uint32_t pid, uint64_t proc_starttime,
		    const char *writer)
{
	if (fd < 0)
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->next_id = 1;
	return journal_put_header(&w->buf, pid, journal_realtime_ns(), proc_starttime, writer);
}

int journal_append_load(struct journal_writer *w, uint64_t ts, const struct journal_method *m,
			uint64_t *id_out)
{
	int rc = journal_put_method(&w->buf, JF_LOAD, ts_or_now(ts), w->next_id, m);

	if (rc == 0) {
		if (id_out)
			*id_out = w->next_id;
		w->next_id++;
	}
	return rc;
}

int journal_append_unload(struct journal_writer *w, uint64_t ts, uint64_t id, uint64_t code_start)
{
	return journal_put_unload(&w->buf, ts_or_now(ts), id, code_start);
}

int journal_append_stub(struct journal_writer *w, uint64_t ts, uint64_t code_start,
			uint64_t code_size, const char *name, uint64_t *id_out)
{
	int rc = journal_put_stub(&w->buf, ts_or_now(ts), w->next_id, code_start, code_size, name);

	if (rc == 0) {
		if (id_out)
			*id_out = w->next_id;
		w->next_id++;
	}
	return rc;
}

int journal_append_epoch(struct journal_writer *w, uint64_t ts, uint64_t reason)
{
	return journal_put_epoch(&w->buf, ts_or_now(ts), reason);
}

int journal_flush(struct journal_writer *w)
{
	int rc;

	if (w->buf.len == 0)
		return 0;
	rc = write_all(w->fd, w->buf.data, w->buf.len);
	bbuf_clear(&w->buf);
	return rc;
}

int journal_close(struct journal_writer *w)
{
	int rc = journal_flush(w);

	if (w->fd >= 0 && close(w->fd) < 0 && rc == 0)
		rc = -errno;
	w->fd = -1;
	bbuf_free(&w->buf);
	return rc;
}
