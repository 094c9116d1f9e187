/* SPDX-License-Identifier: Apache-2.0 */
/* errtext.c - err_set()/err_add(): see errtext.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "errtext.h"

int err_set(struct err_text *e, int rc, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return rc;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return rc;
}

int err_add(struct err_text *e, int rc, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (!e)
		return rc;
	n = strnlen(e->msg, sizeof(e->msg));
	if (n >= sizeof(e->msg) - 1)
		return rc;
	va_start(ap, fmt);
	vsnprintf(e->msg + n, sizeof(e->msg) - n, fmt, ap);
	va_end(ap);
	return rc;
}
