/* SPDX-License-Identifier: Apache-2.0 */
/* steplog.c - attach_step(): verbose step lines for the CLI to show. */
#include <stdarg.h>
#include <stdio.h>

#include "base.h"

void attach_step(const struct attach_log *log, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!log || !log->fn)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log->fn(log->ctx, line);
}
