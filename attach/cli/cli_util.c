/* cli_util.c - logging, error output, number parsing, JSON strings. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "cli.h"
#include "termtext.h"

void cli_log_init(struct cli_log *l, bool on)
{
	l->on = on;
	l->start_ms = clock_ms();
}

void cli_step(void *ctx, const char *line)
{
	struct cli_log *l = ctx;

	char safe[2048];

	if (!l || !l->on)
		return;
	/* one write per line: the attach child logs to the same stderr */
	dprintf(STDERR_FILENO, "jsym: [%ld ms] %s\n", clock_ms() - l->start_ms,
		term_str(safe, sizeof(safe), line));
}

void cli_err(const char *fmt, ...)
{
	char buf[1024], safe[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* Messages embed target text (comm, paths, the JVM's own message);
	 * whatever a caller did not escape is escaped here. */
	dprintf(STDERR_FILENO, "jsym: %s\n", term_escape(safe, sizeof(safe), buf,
							  strlen(buf), TERM_KEEP_NL));
}

static int parse_long(const char *s, long min, long max, long *out)
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

int cli_parse_pid(const char *s, pid_t *pid)
{
	long v;
	int rc = parse_long(s, 1, 0x7fffffff, &v);

	if (rc == 0)
		*pid = (pid_t)v;
	return rc;
}

int cli_parse_ms(const char *s, int *ms)
{
	long v;
	int rc = parse_long(s, 0, 24L * 3600 * 1000, &v);

	if (rc == 0)
		*ms = (int)v;
	return rc;
}

/* Length of a valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
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

void cli_json_str(FILE *f, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = u[i];

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
		} else {
			size_t k = utf8_len(u + i, n - i);

			if (k == 0) {
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
	}
	fputc('"', f);
}
