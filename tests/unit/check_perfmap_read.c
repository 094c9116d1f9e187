/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_perfmap_read.c - perf-map line parsing and the incremental reader:
 * 0x or not, names with spaces, malformed lines, torn last line at every
 * split point, over-long lines.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perfmap_read.h"

extern Suite *perfmap_read_suite(void); /* listed in the runner by tests/tests.mk */

static int parse(const char *s, struct pm_line *l)
{
	return pm_parse_line(s, strlen(s), l);
}

static int name_is(const struct pm_line *l, const char *want)
{
	return l->name_len == strlen(want) && memcmp(l->name, want, l->name_len) == 0;
}

START_TEST(good_lines)
{
	struct pm_line l;

	ck_assert_int_eq(parse("7f0012340000 1a0 long Busy.heavyCompute(int)", &l), 0);
	ck_assert_uint_eq(l.start, 0x7f0012340000ULL);
	ck_assert_uint_eq(l.size, 0x1a0);
	ck_assert(name_is(&l, "long Busy.heavyCompute(int)"));
	/* JDK Compiler.perfmap style: 0x and zero padding */
	ck_assert_int_eq(parse("0x00007f0012340000 0x00000000000001a0 void A.b(java.lang.String, int)", &l), 0);
	ck_assert_uint_eq(l.start, 0x7f0012340000ULL);
	ck_assert_uint_eq(l.size, 0x1a0);
	ck_assert(name_is(&l, "void A.b(java.lang.String, int)"));
	ck_assert_int_eq(parse("  0XABC\t0X10\t\tname  with  spaces \r", &l), 0);
	ck_assert_uint_eq(l.start, 0xabc);
	ck_assert(name_is(&l, "name  with  spaces "));
	ck_assert_int_eq(parse("ffffffffffffff00 ff top", &l), 0); /* ends at 2^64 - 1 */
	ck_assert_int_eq(parse("ffffffffffffff00 100 top", &l), -EINVAL); /* end not representable */
	ck_assert_int_eq(parse("FFFFFFFFFFFFFFF0 1 x", &l), 0);
	ck_assert_uint_eq(l.start, 0xfffffffffffffff0ULL);
}
END_TEST

START_TEST(malformed_lines)
{
	static const char *bad[] = {
		"", " ", "7f00", "7f00 10", "7f00 10 ", "7f00 10\t \r", "zz 10 n", "7f00 zz n",
		"7f00 0 n", "0x 10 n", "7f00x 10 n", "7f00 10n", "10000000000000000 10 n",
		"7f00 00000000000000010 n", "ffffffffffffffff 2 wraps", "-10 10 n", "0x0x10 1 n",
	};
	struct pm_line l;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(parse(bad[i], &l) == -EINVAL, "accepted '%s'", bad[i]);
	ck_assert_int_eq(pm_parse_line("10 10 a\0b", 9, &l), -EINVAL); /* NUL inside */
}
END_TEST

START_TEST(hex_helper)
{
	uint64_t v;
	size_t used;

	ck_assert_int_eq(pm_parse_hex("0x1fz", 5, &used, &v), 0);
	ck_assert_uint_eq(v, 0x1f);
	ck_assert_uint_eq(used, 4);
	ck_assert_int_eq(pm_parse_hex("x1", 2, &used, &v), -EINVAL);
	ck_assert_int_eq(pm_parse_hex("0x", 2, &used, &v), -EINVAL);
	ck_assert_int_eq(pm_parse_hex("ffffffffffffffff", 16, &used, &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
}
END_TEST

static const char sample[] =
	"1000 100 first\n"
	"garbage line\n"
	"0x2000 0x20 second with space\n"
	"\n"
	"3000 30 third\n";

/* Split the file at every point: what is read before + after is always the same. */
START_TEST(torn_at_every_split)
{
	size_t len = strlen(sample);

	for (size_t cut = 0; cut <= len; cut++) {
		int fd = memfd_create("jsym-check", MFD_CLOEXEC);
		struct pm_reader r;
		struct pm_line l;
		uint64_t starts[4];
		size_t n = 0;

		ck_assert_int_eq(pwrite(fd, sample, cut, 0), (ssize_t)cut);
		pm_open_fd(&r, fd);
		while (pm_next(&r, &l, NULL) == 1)
			starts[n++] = l.start;
		ck_assert_uint_eq(pm_offset(&r) + pm_pending(&r), cut);
		ck_assert_int_eq(pwrite(fd, sample + cut, len - cut, (off_t)cut), (ssize_t)(len - cut));
		while (pm_next(&r, &l, NULL) == 1) {
			ck_assert_uint_lt(n, 3);
			starts[n++] = l.start;
		}
		ck_assert_uint_eq(n, 3);
		ck_assert_uint_eq(starts[0], 0x1000);
		ck_assert_uint_eq(starts[1], 0x2000);
		ck_assert_uint_eq(starts[2], 0x3000);
		ck_assert_uint_eq(r.malformed, 2);
		ck_assert_uint_eq(r.lines, 5);
		ck_assert_uint_eq(pm_pending(&r), 0);
		pm_close(&r);
	}
}
END_TEST

/* A line longer than PM_MAX_LINE is dropped whole; the next one is read. */
START_TEST(overlong_line)
{
	size_t big = PM_MAX_LINE * 3;
	char *buf = malloc(big + 64);
	int fd = memfd_create("jsym-check", MFD_CLOEXEC);
	struct pm_reader r;
	struct pm_line l;
	size_t n;

	memcpy(buf, "1000 10 ", 8);
	memset(buf + 8, 'x', big - 8);
	n = big + (size_t)snprintf(buf + big, 64, "\n2000 10 after\n");
	ck_assert_int_eq(pwrite(fd, buf, n, 0), (ssize_t)n);
	pm_open_fd(&r, fd);
	ck_assert_int_eq(pm_next(&r, &l, NULL), 1);
	ck_assert_uint_eq(l.start, 0x2000);
	ck_assert(name_is(&l, "after"));
	ck_assert_uint_eq(l.lineno, 2);
	ck_assert_uint_eq(r.malformed, 1);
	ck_assert_int_eq(pm_next(&r, &l, NULL), 0);
	pm_close(&r);
	pm_close(&r);
	free(buf);
}
END_TEST

Suite *perfmap_read_suite(void)
{
	Suite *s = suite_create("perfmap_read");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, good_lines);
	tcase_add_test(tc, malformed_lines);
	tcase_add_test(tc, hex_helper);
	tcase_add_test(tc, torn_at_every_split);
	tcase_add_test(tc, overlong_line);
	suite_add_tcase(s, tc);
	return s;
}
