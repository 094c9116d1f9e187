/* SPDX-License-Identifier: Apache-2.0 */
/*
 * text.h - strict number parsing and JSON string output for the attach side
 * and its command line.
 */
#ifndef JSYM_TEXT_H
#define JSYM_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * Strict decimal: the whole of s is digits (no sign, no blanks, no
 * suffix).  text_parse_int takes min..max (min >= 0), text_parse_pid
 * 1..INT_MAX, text_parse_ms 0..24 h.  Returns 0 with the value stored, or
 * -EINVAL (NULL, garbage, out of range) with *out unchanged.  A count
 * (--jobs) is a text_parse_int, never a text_parse_ms.
 */
int text_parse_int(const char *s, int min, int max, int *out);
int text_parse_pid(const char *s, pid_t *out);
int text_parse_ms(const char *s, int *out);

/*
 * Write s (n bytes, NULs allowed) to f as a JSON string literal, quotes
 * included: '"' and '\\' escaped, \n and \t as such, other control bytes
 * as \u00XX, well-formed UTF-8 as is, and every byte that does not start
 * well-formed UTF-8 (overlong forms, surrogates, above U+10FFFF) as
 * \ufffd, so the output is valid JSON whatever the input.
 */
void text_json_str(FILE *f, const char *s, size_t n);

/*
 * Length (2..4) of the well-formed UTF-8 sequence at s (n bytes left): no
 * overlong form, surrogate or code point beyond U+10FFFF; 0 if none.
 */
size_t text_utf8_len(const unsigned char *s, size_t n);

/*
 * Is the well-formed sequence s of len bytes (text_utf8_len's length) an
 * invisible character that changes what is shown: a format character
 * (Unicode category Cf: the bidi embeddings, overrides and isolates
 * U+202A..U+202E and U+2066..U+2069, zero-width characters, the soft
 * hyphen, tags) or a line or paragraph separator?
 */
bool text_utf8_invisible(const unsigned char *s, size_t len);

/*
 * Make the malloc'd *buf (of *cap bytes, 0 for none yet) hold need bytes:
 * its capacity doubled from `first` until it does, at most 2 GiB.  0, or
 * -ENOMEM with *buf and *cap as they were.
 */
int text_reserve(char **buf, size_t *cap, size_t need, size_t first);

#endif
