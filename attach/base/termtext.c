/* termtext.c - term_escape(): see termtext.h. */
#include <string.h>

#include "termtext.h"

/* Length of the valid UTF-8 sequence at s (n bytes left) of a code point
 * >= U+00A0, or 0 (invalid, overlong, a surrogate, beyond U+10FFFF, or a C1
 * control). */
static size_t printable_utf8(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned cp, min;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	if (n < len)
		return 0;
	cp = s[0] & (0x7fu >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3fu);
	}
	min = len == 2 ? 0xa0 : len == 3 ? 0x800 : 0x10000;
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
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
		size_t k = 1;

		if ((c >= 0x20 && c < 0x7f) ||
		    ((flags & TERM_KEEP_NL) && (c == '\n' || c == '\t'))) {
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
