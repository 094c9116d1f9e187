/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_journal_read.c - the journal reader against the real writer
 * (agent/format/journal.h): round trips, a torn record at every byte offset,
 * corrupt sizes, unknown types, strings that do not fit, odd headers.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "journal.h"
#include "journal_read.h"

extern Suite *journal_read_suite(void); /* listed in the runner by tests/tests.mk */

static const struct journal_method m_busy = {
	.code_start = 0x7f0000001000ULL,
	.code_size = 0x120,
	.class_name = "Busy",
	.method_name = "heavyCompute",
	.signature = "(I)J",
	.display = "long Busy.heavyCompute(int)",
};

static const struct journal_method m_inl = {
	.code_start = 0x7f0000001010ULL,
	.code_size = 0x20,
	.class_name = "java.lang.Math",
	.method_name = "max",
	.signature = "(II)I",
	.display = "int java.lang.Math.max(int, int)",
};

/* Header + LOAD 1 + INLINE(1) + STUB 2 + UNLOAD 1 + EPOCH into b. */
static void build_sample(struct bbuf *b)
{
	ck_assert_int_eq(journal_put_header(b, 4242, 1, 2, "test"), 0);
	ck_assert_int_eq(journal_put_method(b, JF_LOAD, 10, 1, &m_busy), 0);
	ck_assert_int_eq(journal_put_method(b, JF_INLINE, 11, 1, &m_inl), 0);
	ck_assert_int_eq(journal_put_stub(b, 12, 2, 0x7f0000002000ULL, 0x40, "Interpreter"), 0);
	ck_assert_int_eq(journal_put_unload(b, 13, 1, m_busy.code_start), 0);
	ck_assert_int_eq(journal_put_epoch(b, 14, JF_EPOCH_ATTACHED), 0);
}

static int mem_file(const void *data, size_t len)
{
	int fd = memfd_create("jsym-check", MFD_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, data, len, 0), (ssize_t)len);
	return fd;
}

static int str_is(struct jr_str s, const char *want)
{
	return s.len == strlen(want) && memcmp(s.p, want, s.len) == 0;
}

START_TEST(header_round_trip)
{
	struct bbuf b = { 0 };
	struct jr_header h;
	struct err_text err;

	ck_assert_int_eq(journal_put_header(&b, 4242, 77, 99, "agent-1.0"), 0);
	ck_assert_int_eq(jr_parse_header(b.data, b.len, &h, &err), 0);
	ck_assert_uint_eq(h.version, JF_VERSION);
	ck_assert_uint_eq(h.header_size, JF_HEADER_SIZE);
	ck_assert_uint_eq(h.pid, 4242);
	ck_assert_uint_eq(h.start_realtime_ns, 77);
	ck_assert_uint_eq(h.proc_starttime, 99);
	ck_assert_str_eq(h.agent_version, "agent-1.0");
	ck_assert_int_eq(jr_parse_header(b.data, 63, &h, &err), -EAGAIN);
	bbuf_free(&b);
}
END_TEST

START_TEST(header_rejects_bad)
{
	struct bbuf b = { 0 };
	struct jr_header h;
	struct err_text err;
	unsigned char x[JF_HEADER_SIZE];
	static const uint16_t bad_sizes[] = { 0, 56, 63, 66, 8192 };

	ck_assert_int_eq(journal_put_header(&b, 1, 0, 0, NULL), 0);
	memcpy(x, b.data, sizeof(x));
	x[0] = 'X';
	ck_assert_int_eq(jr_parse_header(x, sizeof(x), &h, &err), -EPROTO);
	ck_assert_ptr_nonnull(strstr(err.msg, "magic"));
	memcpy(x, b.data, sizeof(x));
	jf_put16(x + JF_H_VERSION, JF_VERSION + 1);
	ck_assert_int_eq(jr_parse_header(x, sizeof(x), &h, &err), -EPROTO);
	jf_put16(x + JF_H_VERSION, 0);
	ck_assert_int_eq(jr_parse_header(x, sizeof(x), &h, &err), -EPROTO);
	for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
		memcpy(x, b.data, sizeof(x));
		jf_put16(x + JF_H_HEADER_SIZE, bad_sizes[i]);
		ck_assert_int_eq(jr_parse_header(x, sizeof(x), &h, &err), -EPROTO);
	}
	bbuf_free(&b);
}
END_TEST

/* A header longer than 64 bytes: records start where header_size says. */
START_TEST(header_size_is_honoured)
{
	struct bbuf b = { 0 };
	unsigned char pad[64] = { 0 };
	struct jr_reader r;
	struct jr_record rec;

	ck_assert_int_eq(journal_put_header(&b, 1, 0, 0, NULL), 0);
	jf_put16(b.data + JF_H_HEADER_SIZE, 128);
	ck_assert_int_eq(bbuf_append(&b, pad, sizeof(pad)), 0);
	ck_assert_int_eq(journal_put_stub(&b, 1, 5, 0x1000, 0x10, "s"), 0);
	jr_open_fd(&r, mem_file(b.data, b.len));
	ck_assert_int_eq(jr_next(&r, &rec, NULL), 1);
	ck_assert_uint_eq(rec.offset, 128);
	ck_assert_uint_eq(rec.id, 5);
	ck_assert_int_eq(jr_next(&r, &rec, NULL), 0);
	jr_close(&r);
	bbuf_free(&b);
}
END_TEST

START_TEST(records_round_trip)
{
	struct bbuf b = { 0 };
	struct jr_reader r;
	struct jr_record rec;
	struct err_text err;

	build_sample(&b);
	jr_open_fd(&r, mem_file(b.data, b.len));
	ck_assert_int_eq(jr_next(&r, &rec, &err), 1);
	ck_assert_uint_eq(rec.type, JF_LOAD);
	ck_assert_uint_eq(rec.offset, JF_HEADER_SIZE);
	ck_assert_uint_eq(rec.timestamp, 10);
	ck_assert_uint_eq(rec.id, 1);
	ck_assert_uint_eq(rec.code_start, m_busy.code_start);
	ck_assert_uint_eq(rec.code_size, m_busy.code_size);
	ck_assert(str_is(rec.class_name, "Busy"));
	ck_assert(str_is(rec.method, "heavyCompute"));
	ck_assert(str_is(rec.signature, "(I)J"));
	ck_assert(str_is(rec.name, "long Busy.heavyCompute(int)"));
	ck_assert_int_eq(jr_next(&r, &rec, &err), 1);
	ck_assert_uint_eq(rec.type, JF_INLINE);
	ck_assert_uint_eq(rec.id, 1);
	ck_assert(str_is(rec.name, m_inl.display));
	ck_assert_int_eq(jr_next(&r, &rec, &err), 1);
	ck_assert_uint_eq(rec.type, JF_STUB);
	ck_assert_uint_eq(rec.id, 2);
	ck_assert_uint_eq(rec.code_size, 0x40);
	ck_assert(str_is(rec.name, "Interpreter"));
	ck_assert_int_eq(jr_next(&r, &rec, &err), 1);
	ck_assert_uint_eq(rec.type, JF_UNLOAD);
	ck_assert_uint_eq(rec.id, 1);
	ck_assert_uint_eq(rec.code_start, m_busy.code_start);
	ck_assert_int_eq(jr_next(&r, &rec, &err), 1);
	ck_assert_uint_eq(rec.type, JF_EPOCH);
	ck_assert_uint_eq(rec.reason, 1);
	ck_assert_int_eq(jr_next(&r, &rec, &err), 0);
	ck_assert_uint_eq(r.offset, b.len);
	ck_assert_uint_eq(r.hdr.pid, 4242);
	jr_close(&r);
	jr_close(&r); /* harmless twice */
	bbuf_free(&b);
}
END_TEST

/*
 * The file grows one byte at a time: after every byte the reader must hand
 * out exactly the records that are complete, never fail, and resume from
 * where it stopped.  Then the same for every single cut point.
 */
START_TEST(torn_at_every_offset)
{
	struct bbuf b = { 0 };
	struct jr_reader r;
	struct jr_record rec;
	size_t ends[8], n_rec = 0, seen = 0;
	int fd = memfd_create("jsym-check", MFD_CLOEXEC);
	struct err_text err;

	build_sample(&b);
	for (size_t off = JF_HEADER_SIZE; off < b.len; off += jf_get32(b.data + off + 4))
		ends[n_rec++] = off + jf_get32(b.data + off + 4);
	jr_open_fd(&r, fd);
	for (size_t len = 1; len <= b.len; len++) {
		int rc;

		ck_assert_int_eq(pwrite(fd, b.data + len - 1, 1, (off_t)len - 1), 1);
		while ((rc = jr_next(&r, &rec, &err)) == 1) {
			ck_assert_uint_eq(rec.offset + rec.size, ends[seen]);
			seen++;
		}
		ck_assert_int_eq(rc, len < JF_HEADER_SIZE ? -EAGAIN : 0);
		/* every record complete at this length was handed out, nothing more */
		ck_assert_msg(seen == n_rec || ends[seen] > len, "record %zu missing at %zu", seen, len);
		ck_assert_uint_eq(r.offset, seen ? ends[seen - 1] : len < JF_HEADER_SIZE ? 0 : JF_HEADER_SIZE);
	}
	ck_assert_uint_eq(seen, n_rec);
	jr_close(&r);

	for (size_t cut = 0; cut <= b.len; cut++) {
		size_t got = 0;

		fd = mem_file(b.data, cut);
		jr_open_fd(&r, fd);
		while (jr_next(&r, &rec, NULL) == 1)
			got++;
		ck_assert_int_eq(pwrite(fd, b.data + cut, b.len - cut, (off_t)cut),
				 (ssize_t)(b.len - cut));
		while (jr_next(&r, &rec, NULL) == 1)
			got++;
		ck_assert_uint_eq(got, n_rec);
		jr_close(&r);
	}
	bbuf_free(&b);
}
END_TEST

/* Corrupt a record size; the reader keeps what came before and reports the offset. */
static void check_bad_size(uint32_t size)
{
	struct bbuf b = { 0 };
	struct jr_reader r;
	struct jr_record rec;
	struct err_text err = { "" };
	char want[32];
	size_t second;

	build_sample(&b);
	second = JF_HEADER_SIZE + jf_get32(b.data + JF_HEADER_SIZE + 4);
	jf_put32(b.data + second + 4, size);
	jr_open_fd(&r, mem_file(b.data, b.len));
	ck_assert_int_eq(jr_next(&r, &rec, &err), 1);
	ck_assert_int_eq(jr_next(&r, &rec, &err), -EBADMSG);
	snprintf(want, sizeof(want), "offset %zu", second);
	ck_assert_msg(strstr(err.msg, want), "error '%s' lacks '%s'", err.msg, want);
	ck_assert_int_eq(jr_next(&r, &rec, &err), -EBADMSG);
	jr_close(&r);
	bbuf_free(&b);
}

START_TEST(corrupt_sizes)
{
	static const uint32_t bad[] = { 0, 8, 15, 17, 20, 36, JF_MAX_RECORD + 8, 0xfffffff8u };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check_bad_size(bad[i]);
}
END_TEST

START_TEST(unknown_type_skipped_and_bad_strings)
{
	struct bbuf b = { 0 };
	unsigned char unk[40] = { 0 };
	struct jr_reader r;
	struct jr_record rec;
	size_t load_at;

	ck_assert_int_eq(journal_put_header(&b, 1, 0, 0, NULL), 0);
	jf_put16(unk, 99);
	jf_put32(unk + 4, sizeof(unk));
	ck_assert_int_eq(bbuf_append(&b, unk, sizeof(unk)), 0);
	load_at = b.len;
	ck_assert_int_eq(journal_put_method(&b, JF_LOAD, 1, 7, &m_busy), 0);
	ck_assert_int_eq(journal_put_stub(&b, 1, 8, 0x1000, 0x10, "stub"), 0);
	/* the LOAD's display-name length now runs past its record */
	jf_put16(b.data + load_at + JF_PREFIX_SIZE + 30, 0xffff);
	jr_open_fd(&r, mem_file(b.data, b.len));
	ck_assert_int_eq(jr_next(&r, &rec, NULL), 1);
	ck_assert_uint_eq(rec.type, 99);
	ck_assert_int_eq(jr_next(&r, &rec, NULL), 1);
	ck_assert_uint_eq(rec.type, JR_BAD);
	ck_assert_int_eq(jr_next(&r, &rec, NULL), 1);
	ck_assert_uint_eq(rec.type, JF_STUB);
	ck_assert_uint_eq(rec.id, 8);
	jr_close(&r);
	bbuf_free(&b);
}
END_TEST

/* Bodies too short for their type, and ranges that wrap, are JR_BAD. */
START_TEST(short_bodies_are_bad)
{
	static const uint16_t types[] = { JF_LOAD, JF_UNLOAD, JF_STUB, JF_INLINE, JF_EPOCH };
	unsigned char rec_buf[JF_PREFIX_SIZE] = { 0 };
	unsigned char wrap[JF_PREFIX_SIZE + JF_STUB_FIXED] = { 0 };
	struct jr_record rec;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		jf_put16(rec_buf, types[i]);
		jf_put32(rec_buf + 4, JF_PREFIX_SIZE);
		ck_assert_int_eq(jr_parse_record(rec_buf, sizeof(rec_buf), 0, &rec, NULL),
				 JF_PREFIX_SIZE);
		ck_assert_uint_eq(rec.type, JR_BAD);
	}
	jf_put16(wrap, JF_STUB);
	jf_put32(wrap + 4, sizeof(wrap));
	jf_put64(wrap + JF_PREFIX_SIZE + 8, UINT64_MAX - 4);
	jf_put64(wrap + JF_PREFIX_SIZE + 16, 16);
	ck_assert_int_eq(jr_parse_record(wrap, sizeof(wrap), 0, &rec, NULL), (long)sizeof(wrap));
	ck_assert_uint_eq(rec.type, JR_BAD);
}
END_TEST

/* The fd writer, flushed in pieces while the reader follows. */
START_TEST(writer_file_round_trip)
{
	struct journal_writer w;
	struct jr_reader r;
	struct jr_record rec;
	int fd = memfd_create("jsym-check", MFD_CLOEXEC);
	uint64_t id = 0, total = 0;

	ck_assert_int_eq(journal_open(&w, dup(fd), 55, 0), 0);
	jr_open_fd(&r, fd);
	for (int round = 0; round < 5; round++) {
		int n = 0;

		for (int i = 0; i < 100; i++) {
			struct journal_method m = m_busy;

			m.code_start += (uint64_t)(round * 100 + i) * 0x200;
			ck_assert_int_eq(journal_append_load(&w, 0, &m, &id), 0);
		}
		ck_assert_int_eq(journal_flush(&w), 0);
		while (jr_next(&r, &rec, NULL) == 1) {
			ck_assert_uint_eq(rec.type, JF_LOAD);
			ck_assert_uint_eq(rec.id, ++total);
			n++;
		}
		ck_assert_int_eq(n, 100);
	}
	ck_assert_uint_eq(id, 500);
	ck_assert_int_eq(journal_close(&w), 0);
	jr_close(&r);
}
END_TEST

Suite *journal_read_suite(void)
{
	Suite *s = suite_create("journal_read");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, header_round_trip);
	tcase_add_test(tc, header_rejects_bad);
	tcase_add_test(tc, header_size_is_honoured);
	tcase_add_test(tc, records_round_trip);
	tcase_add_test(tc, torn_at_every_offset);
	tcase_add_test(tc, corrupt_sizes);
	tcase_add_test(tc, unknown_type_skipped_and_bad_strings);
	tcase_add_test(tc, short_bodies_are_bad);
	tcase_add_test(tc, writer_file_round_trip);
	suite_add_tcase(s, tc);
	return s;
}
