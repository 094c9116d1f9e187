/* cli_util.c - logging, error output, number parsing, JSON strings. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "hs_io.h"

void cli_log_init(struct cli_log *l, bool on)
{
	l->on = on;
	l->start_ms = hs_now_ms();
}

void cli_step(void *ctx, const char *line)
{
	struct cli_log *l = ctx;

	if (!l || !l->on)
		return;
	/* one write per line: the attach child logs to the same stderr */
	dprintf(STDERR_FILENO, "jsym: [%ld ms] %s\n", hs_now_ms() - l->start_ms,
		line);
}

void cli_err(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	dprintf(STDERR_FILENO, "jsym: %s\n", buf);
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

void cli_json_str(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}
