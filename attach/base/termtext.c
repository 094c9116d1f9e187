/* SPDX-License-Identifier: Apache-2.0 */
/* termtext.c - term_escape(), declared in base.h. */
#include <string.h>

#include "base.h"
#include "base_int.h"

/* Length of the valid UTF-8 sequence at s (n bytes left) of a visible
 * code point >= U+00A0, or 0 (invalid, a C1 control U+0080..U+009F, or an
 * invisible format character such as a bidi override: text.c). */
static size_t printable_utf8(const unsigned char *s, size_t n)
{
	size_t len = text_utf8_len(s, n);

	if (len == 2 && s[0] == 0xc2 && s[1] < 0xa0)
		return 0;
	return len && text_utf8_invisible(s, len) ? 0 : len;
}

char *term_escape(char *dst, size_t cap, const char *s, size_t n, unsigned flags)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t o = 0;

	if (!cap)
		return dst;
	for (size_t i = 0; i < n;) {
		unsigned char c = u[i];
		size_t k = 1, run = i;

		/* a run of printable ASCII (most text) is copied at once, as
		 * much of it as fits */
		while (run < n && u[run] >= 0x20 && u[run] < 0x7f)
			run++;
		if (run > i) {
			k = run - i < cap - 1 - o ? run - i : cap - 1 - o;
			memcpy(dst + o, u + i, k);
			o += k;
			if (k < run - i)
				break;
			i = run;
			continue;
		}

		/* printable ASCII went in the run above */
		if ((flags & TERM_KEEP_NL) && (c == '\n' || c == '\t')) {
			if (o + 1 >= cap)
				break;
			dst[o++] = (char)c;
		} else if (c >= 0x80 && (k = printable_utf8(u + i, n - i)) != 0) {
			if (o + k >= cap)
				break;
			memcpy(dst + o, u + i, k);
			o += k;
		} else {
			k = 1;
			if (o + 4 >= cap)
				break;
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hex[c >> 4];
			dst[o++] = hex[c & 15];
		}
		i += k;
	}
	dst[o] = '\0';
	return dst;
}

char *term_str(char *dst, size_t cap, const char *s)
{
	return term_escape(dst, cap, s, s ? strlen(s) : 0, 0);
}
