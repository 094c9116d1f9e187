/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jsym_lookup_int.h - inside the public API (include/jsym/lookup.h).
 */
#ifndef JSYM_LOOKUP_PUB_INT_H
#define JSYM_LOOKUP_PUB_INT_H

#include <stddef.h>

#include "errtext.h"
#include "jsym/lookup.h"

#define JSYM_API __attribute__((visibility("default")))

/* Open DIR/jsym-NSPID.journal, else DIR/perf-NSPID.map, of host pid `pid`
 * inside its root (jsym_lookup_open.c).  An fd and *is_journal, or -errno
 * with a reason in why (may be NULL). */
int lk_open_pid_files(int pid, const char *dir, int *is_journal, struct err_text *why);

#endif
