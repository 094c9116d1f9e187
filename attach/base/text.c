/* SPDX-License-Identifier: Apache-2.0 */
/* text.c - strict decimal parsers and the JSON string writer (text.h). */
#include <errno.h>
#include <stdlib.h>

#include "text.h"

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
