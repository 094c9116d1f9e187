/* SPDX-License-Identifier: Apache-2.0 */
/* text.c - strict decimal parsers and the JSON string writer (base.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "base.h"
#include "base_int.h"

#define PID_MAX_VALUE 0x7fffffffL
#define MS_MAX_VALUE (24L * 3600 * 1000)

static int parse_decimal(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int text_parse_int(const char *s, int min, int max, int *out)
{
	long v;
	int rc = parse_decimal(s, min, max, &v);

	if (rc == 0)
		*out = (int)v;
	return rc;
}

int text_parse_pid(const char *s, pid_t *out)
{
	long v;
	int rc = parse_decimal(s, 1, PID_MAX_VALUE, &v);

	if (rc == 0)
		*out = (pid_t)v;
	return rc;
}

int text_parse_ms(const char *s, int *out)
{
	return text_parse_int(s, 0, MS_MAX_VALUE, out);
}

size_t text_utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned min, cp;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	if (n < len)
		return 0;
	cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	min = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* The code point of the well-formed sequence s of len bytes (from
 * text_utf8_len). */
static unsigned utf8_cp(const unsigned char *s, size_t len)
{
	unsigned cp = s[0] & (0x7f >> len);

	for (size_t i = 1; i < len; i++)
		cp = (cp << 6) | (s[i] & 0x3f);
	return cp;
}

/*
 * Unicode's format characters (general category Cf, Unicode 15) and the
 * line and paragraph separators: invisible, yet they reorder or hide what
 * a terminal or an editor shows (U+202E turns "exe.txt" around; a zero
 * width space splits a name that looks whole), so jsym shows them
 * escaped like the controls.
 */
static const struct { unsigned lo, hi; } invisible[] = {
	{ 0x00ad, 0x00ad }, { 0x0600, 0x0605 }, { 0x061c, 0x061c }, { 0x06dd, 0x06dd },
	{ 0x070f, 0x070f }, { 0x0890, 0x0891 }, { 0x08e2, 0x08e2 }, { 0x180e, 0x180e },
	{ 0x200b, 0x200f }, { 0x2028, 0x202e }, { 0x2060, 0x2064 }, { 0x2066, 0x206f },
	{ 0xfeff, 0xfeff }, { 0xfff9, 0xfffb }, { 0x110bd, 0x110bd }, { 0x110cd, 0x110cd },
	{ 0x13430, 0x1343f }, { 0x1bca0, 0x1bca3 }, { 0x1d173, 0x1d17a },
	{ 0xe0001, 0xe0001 }, { 0xe0020, 0xe007f },
};

bool text_utf8_invisible(const unsigned char *s, size_t len)
{
	unsigned cp = utf8_cp(s, len);

	for (size_t i = 0; i < sizeof(invisible) / sizeof(invisible[0]); i++)
		if (cp >= invisible[i].lo && cp <= invisible[i].hi)
			return true;
	return false;
}

void text_json_str(FILE *f, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = u[i];
		size_t k;

		if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
		} else if (c == '\n') {
			fputs("\\n", f);
		} else if (c == '\t') {
			fputs("\\t", f);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
		} else if (c < 0x80) {
			fputc(c, f);
		} else if ((k = text_utf8_len(u + i, n - i)) == 0) {
			fputs("\\ufffd", f);   /* keep the JSON valid */
		} else if (k == 2 && c == 0xc2 && u[i + 1] < 0xa0) {
			/* a C1 control (U+0080..U+009F, CSI among them) is
			 * valid JSON, but not for a terminal showing it */
			fprintf(f, "\\u%04x", u[i + 1]);
			i++;
		} else if (text_utf8_invisible(u + i, k)) {
			/* valid JSON too, but reorders or hides what a
			 * terminal shows (a surrogate pair beyond the BMP) */
			unsigned cp = utf8_cp(u + i, k);

			if (cp >= 0x10000)
				fprintf(f, "\\u%04x\\u%04x", 0xd800 + ((cp - 0x10000) >> 10),
					0xdc00 + ((cp - 0x10000) & 0x3ff));
			else
				fprintf(f, "\\u%04x", cp);
			i += k - 1;
		} else {
			fwrite(u + i, 1, k, f);
			i += k - 1;
		}
	}
	fputc('"', f);
}

int text_reserve(char **buf, size_t *cap, size_t need, size_t first)
{
	size_t c = *cap ? *cap : first ? first : 1;
	char *p;

	if (need <= *cap)
		return 0;
	while (c < need && c <= (1u << 30))
		c *= 2;
	if (c < need || !(p = realloc(*buf, c)))
		return -ENOMEM;
	*buf = p;
	*cap = c;
	return 0;
}
