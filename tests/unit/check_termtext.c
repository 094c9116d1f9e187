/* SPDX-License-Identifier: Apache-2.0 */
/* check_termtext.c - term_escape(): target text made safe for a terminal. */
#include <check.h>
#include <string.h>

#include "base.h"

extern Suite *termtext_suite(void); /* listed in the runner by tests/tests.mk */

static const char *esc(const char *s, size_t n, unsigned flags)
{
	static char out[256];

	return term_escape(out, sizeof(out), s, n, flags);
}

START_TEST(controls_become_hex)
{
	ck_assert_str_eq(esc("17\x1b[31mEVIL", 11, 0), "17\\x1b[31mEVIL");
	ck_assert_str_eq(esc("a\x07" "b\x7f", 4, 0), "a\\x07b\\x7f");
	ck_assert_str_eq(esc("a\nb\tc", 5, 0), "a\\x0ab\\x09c");
	ck_assert_str_eq(esc("a\nb\tc", 5, TERM_KEEP_NL), "a\nb\tc");
	ck_assert_str_eq(esc("a\0b", 3, 0), "a\\x00b");
}
END_TEST

START_TEST(utf8_printable_kept_c1_and_invalid_escaped)
{
	ck_assert_str_eq(esc("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14, 0),
			 "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	/* CSI (U+009B) and NEL (U+0085): C1 controls, valid UTF-8 */
	ck_assert_str_eq(esc("\xc2\x9b" "1m\xc2\x85", 6, 0), "\\xc2\\x9b1m\\xc2\\x85");
	ck_assert_str_eq(esc("\xc2\xa0", 2, 0), "\xc2\xa0");   /* NBSP: printable */
	ck_assert_str_eq(esc("\x9b\xff\xc0\xaf", 4, 0), "\\x9b\\xff\\xc0\\xaf");
	ck_assert_str_eq(esc("\xed\xa0\x80", 3, 0), "\\xed\\xa0\\x80");   /* surrogate */
	ck_assert_str_eq(esc("\xe2\x82", 2, 0), "\\xe2\\x82");           /* cut short */
}
END_TEST

/* Issue 24 row 8: a bidi override (U+202E), an isolate (U+2066), a zero
 * width space (U+200B), a BOM (U+FEFF) and a tag (U+E0041) reorder or hide
 * what a terminal shows; the letters around them stay. */
START_TEST(bidi_and_format_characters_escaped)
{
	ck_assert_str_eq(esc("A\xe2\x80\xae" "cba", 7, 0), "A\\xe2\\x80\\xaecba");
	ck_assert_str_eq(esc("\xe2\x81\xa6x\xe2\x81\xa9", 7, 0),
			 "\\xe2\\x81\\xa6x\\xe2\\x81\\xa9");
	ck_assert_str_eq(esc("a\xe2\x80\x8b" "b\xef\xbb\xbf", 8, 0),
			 "a\\xe2\\x80\\x8bb\\xef\\xbb\\xbf");
	ck_assert_str_eq(esc("\xf3\xa0\x81\x81", 4, 0), "\\xf3\\xa0\\x81\\x81");
	ck_assert_str_eq(esc("\xc2\xad", 2, 0), "\\xc2\\xad");         /* soft hyphen */
	/* their neighbours are visible: kept */
	ck_assert_str_eq(esc("\xe2\x80\xa6\xe2\x80\xb0", 6, 0), "\xe2\x80\xa6\xe2\x80\xb0");
}
END_TEST

START_TEST(idempotent_and_bounded)
{
	char once[64], twice[64], small[8];

	term_str(once, sizeof(once), "x\x1b]0;t\x07y\\z");
	ck_assert_str_eq(once, "x\\x1b]0;t\\x07y\\z");
	term_str(twice, sizeof(twice), once);
	ck_assert_str_eq(twice, once);
	/* never half an escape: "ab" + "\x1b" needs 6 bytes and a NUL */
	ck_assert_str_eq(term_escape(small, 6, "ab\x1b", 3, 0), "ab");
	ck_assert_str_eq(term_escape(small, 7, "ab\x1b", 3, 0), "ab\\x1b");
	ck_assert_str_eq(term_escape(small, 3, "a\xc3\xa9", 3, 0), "a");
	ck_assert_str_eq(term_str(small, sizeof(small), NULL), "");
}
END_TEST

Suite *termtext_suite(void)
{
	Suite *s = suite_create("termtext");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, controls_become_hex);
	tcase_add_test(tc, utf8_printable_kept_c1_and_invalid_escaped);
	tcase_add_test(tc, bidi_and_format_characters_escaped);
	tcase_add_test(tc, idempotent_and_bounded);
	suite_add_tcase(s, tc);
	return s;
}
