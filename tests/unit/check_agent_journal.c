/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_agent_journal.c - the journal writer produces exactly the bytes
 * journal_format.h describes.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal.h"

extern Suite *agent_journal_suite(void); /* listed in the runner by tests/tests.mk */

/* prefix timestamp, id 7, code_start 0x7f0000001000, code_size 0x120 */
static const unsigned char load_fixed[] = {
	0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
	0x07, 0, 0, 0, 0, 0, 0, 0,
	0x00, 0x10, 0x00, 0x00, 0x00, 0x7f, 0, 0,
	0x20, 0x01, 0, 0, 0, 0, 0, 0,
};

START_TEST(test_load_bytes)
{
	struct bbuf b = { 0 };
	struct journal_method m = { 0x7f0000001000ull, 0x120, "A", "m", "()V", "void A.m()" };
	unsigned char *p;

	ck_assert_int_eq(journal_put_method(&b, JF_LOAD, 0x1122334455667788ull, 7, &m), 0);
	/* 16 + 32 + 1 + 1 + 3 + 10 = 63 -> 64 */
	ck_assert_uint_eq(b.len, 64);
	p = b.data;
	ck_assert_int_eq(memcmp(p, "\x01\x00\x00\x00\x40\x00\x00\x00", 8), 0);
	ck_assert_int_eq(memcmp(p + 8, load_fixed, sizeof(load_fixed)), 0);
	ck_assert_int_eq(memcmp(p + 40, "\x01\x00\x01\x00\x03\x00\x0a\x00", 8), 0);
	ck_assert_int_eq(memcmp(p + 48, "Am()Vvoid A.m()", 15), 0);
	ck_assert_int_eq(p[63], 0);
	bbuf_free(&b);
}
END_TEST

START_TEST(test_header_bytes)
{
	struct bbuf b = { 0 };
	unsigned char *p;

	ck_assert_int_eq(journal_put_header(&b, 4242, 0x0102030405060708ull, 99, "v1"), 0);
	ck_assert_uint_eq(b.len, JF_HEADER_SIZE);
	p = b.data;
	ck_assert_int_eq(memcmp(p, "JSYMJRN1", 8), 0);
	ck_assert_uint_eq(jf_get16(p + 8), 1);
	ck_assert_uint_eq(jf_get16(p + 10), 64);
	ck_assert_uint_eq(jf_get32(p + 12), 0);
	ck_assert_uint_eq(jf_get32(p + 16), 4242);
	ck_assert_uint_eq(jf_get32(p + 20), 0);
	ck_assert_int_eq(memcmp(p + 24, "\x08\x07\x06\x05\x04\x03\x02\x01", 8), 0);
	ck_assert_uint_eq(jf_get64(p + 32), 99);
	ck_assert_int_eq(memcmp(p + 40, "v1\0\0", 4), 0);
	for (int i = 42; i < 64; i++)
		ck_assert_int_eq(p[i], 0);
	bbuf_free(&b);
}
END_TEST

START_TEST(test_unload_stub_epoch_bytes)
{
	struct bbuf b = { 0 };
	unsigned char *p;

	ck_assert_int_eq(journal_put_unload(&b, 5, 3, 0xabc0), 0);
	ck_assert_int_eq(journal_put_stub(&b, 6, 4, 0x1000, 0x20, "Interpreter"), 0);
	ck_assert_int_eq(journal_put_epoch(&b, 7, JF_EPOCH_REFRESH), 0);
	p = b.data;
	ck_assert_int_eq(memcmp(p, "\x02\x00\x00\x00\x20\x00\x00\x00\x05\0\0\0\0\0\0\0", 16), 0);
	ck_assert_uint_eq(jf_get64(p + 16), 3);
	ck_assert_uint_eq(jf_get64(p + 24), 0xabc0);
	p += 32;
	/* stub: 16 + 32 + 11 = 59 -> 64 */
	ck_assert_uint_eq(jf_get16(p), JF_STUB);
	ck_assert_uint_eq(jf_get32(p + 4), 64);
	ck_assert_uint_eq(jf_get64(p + 16), 4);
	ck_assert_uint_eq(jf_get64(p + 24), 0x1000);
	ck_assert_uint_eq(jf_get64(p + 32), 0x20);
	ck_assert_uint_eq(jf_get16(p + 40), 11);
	ck_assert_int_eq(memcmp(p + 42, "\0\0\0\0\0\0", 6), 0);
	ck_assert_int_eq(memcmp(p + 48, "Interpreter\0\0\0\0\0", 16), 0);
	p += 64;
	ck_assert_uint_eq(jf_get16(p), JF_EPOCH);
	ck_assert_uint_eq(jf_get32(p + 4), 24);
	ck_assert_uint_eq(jf_get64(p + 16), 2);
	ck_assert_uint_eq(b.len, 32 + 64 + 24);
	bbuf_free(&b);
}
END_TEST

START_TEST(test_limit_keeps_whole_records)
{
	struct bbuf b = { .max = 40 };

	ck_assert_int_eq(journal_put_unload(&b, 1, 1, 1), 0);
	ck_assert_int_eq(journal_put_unload(&b, 1, 2, 2), -ENOBUFS);
	ck_assert_uint_eq(b.len, 32);
	bbuf_free(&b);
}
END_TEST

START_TEST(test_writer_ids_and_file)
{
	char path[] = "/tmp/jsym-check-journal-XXXXXX";
	int fd = mkstemp(path);
	struct journal_writer w;
	struct journal_method m = { 0x1000, 0x40, "A", "m", "()V", "void A.m()" };
	uint64_t id1 = 0, id2 = 0, id3 = 0;
	unsigned char buf[512];
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(journal_open(&w, fd, 77, 0), 0);
	ck_assert_int_eq(journal_append_load(&w, 1, &m, &id1), 0);
	ck_assert_int_eq(journal_append_stub(&w, 2, 0x2000, 0x10, "Interpreter", &id2), 0);
	ck_assert_int_eq(journal_append_unload(&w, 3, id1, 0x1000), 0);
	/* the same address reused by a newer LOAD gets a new id */
	ck_assert_int_eq(journal_append_load(&w, 4, &m, &id3), 0);
	ck_assert_uint_eq(id1, 1);
	ck_assert_uint_eq(id2, 2);
	ck_assert_uint_eq(id3, 3);
	ck_assert_int_eq(journal_flush(&w), 0);
	n = pread(fd, buf, sizeof(buf), 0);
	ck_assert_int_eq(n, 64 + 64 + 64 + 32 + 64);
	ck_assert_uint_eq(jf_get32(buf + 16), 77);
	ck_assert_uint_eq(jf_get16(buf + 64 + 64 + 64), JF_UNLOAD);
	ck_assert_uint_eq(jf_get64(buf + 64 + 64 + 64 + 16), 1);
	ck_assert_uint_eq(jf_get16(buf + 64 + 64 + 64 + 32), JF_LOAD);
	ck_assert_uint_eq(jf_get64(buf + 64 + 64 + 64 + 32 + 16), 3);
	ck_assert_int_eq(journal_close(&w), 0);
}
END_TEST

Suite *agent_journal_suite(void)
{
	Suite *s = suite_create("agent_journal");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_load_bytes);
	tcase_add_test(tc, test_header_bytes);
	tcase_add_test(tc, test_unload_stub_epoch_bytes);
	tcase_add_test(tc, test_limit_keeps_whole_records);
	tcase_add_test(tc, test_writer_ids_and_file);
	suite_add_tcase(s, tc);
	return s;
}
