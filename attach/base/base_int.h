/* SPDX-License-Identifier: Apache-2.0 */
/*
 * base_int.h - inside attach/base: the UTF-8 steps text.c offers
 * termtext.c; the layers above use base.h, the entry.
 */
#ifndef JSYM_BASE_INT_H
#define JSYM_BASE_INT_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
