/* SPDX-License-Identifier: Apache-2.0 */
/*
 * errtext.h - a caller-supplied buffer for "what failed, why, what to do":
 * common/, so the CLI's layers (through attach/base's base.h) and the agent
 * carry a reason the same way.  err_set formats with vsnprintf into the
 * caller's buffer: no allocation, so the agent may use it (never from a
 * signal handler).
 *
 * Modules return -errno and, when the errno alone would not tell a user
 * what to do, also describe the failure here (lower case, no "jsym:" prefix,
 * no trailing period).  Only the CLI prints it.
 */
#ifndef JSYM_ERRTEXT_H
#define JSYM_ERRTEXT_H

#include <stddef.h>

struct err_text {
	char msg[768];
};

/*
 * Format into e->msg (if e is not NULL) and return rc, so a module can write
 * `return err_set(e, -errno, "cannot open %s: %s", path, strerror(errno));`.
 * An existing message is replaced.
 */
int err_set(struct err_text *e, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Append to e->msg (truncating), returning rc. */
int err_add(struct err_text *e, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
