/* cli_util.c - the verbose step log and error output of the command line. */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "clock.h"
#include "cli.h"

void cli_log_init(struct cli_log *l, bool on)
{
	l->on = on;
	l->start_ms = clock_ms();
}

void cli_step(void *ctx, const char *line)
{
	struct cli_log *l = ctx;

	if (!l || !l->on)
		return;
	/* one write per line: the attach child logs to the same stderr */
	dprintf(STDERR_FILENO, "jsym: [%ld ms] %s\n", clock_ms() - l->start_ms,
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
