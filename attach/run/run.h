/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run.h - one attach command, run in a forked child (attach/run/run.c).
 *
 * The layer between the CLI and the protocols: the CLI says what to run,
 * this picks HotSpot or OpenJ9 from the target's facts and runs it where
 * the protocol needs to be (namespaces, credentials).
 */
#ifndef JSYM_RUN_H
#define JSYM_RUN_H

#include "base.h"
#include "pool.h"        /* the bounded pool of workers for --all */

struct target;

#define RUN_MAX_ARGS 64

/* One jattach-style command: `load LIB true OPTS`, `properties`, ... */
struct run_request {
	const char *cmd;
	const char *const *args;
	int nargs;              /* <= RUN_MAX_ARGS */
	int protocol;           /* HotSpot: 0 auto, 1 or 2 */
	int timeout_ms;         /* socket wait and connect (> 0) */
	int read_timeout_ms;    /* longest silence while reading; 0: no limit */
};

struct run_result {
	int rc;                 /* 0: the JVM answered; else -errno */
	struct attach_reply reply;
	struct err_text err;
};

/*
 * Run rq against t (opened with TARGET_FDS and prechecked) in a child; the
 * JVM's output goes to out_fd.  Returns res->rc: 0 when the JVM answered
 * (see res->reply), or -errno with res->err set: the protocol's codes
 * (hotspot_exec, openj9_exec), -EINTR when the child was interrupted (its
 * trigger file removed), -EIO when it died without a result.
 */
int run_attach(const struct target *t, const struct run_request *rq,
	       int out_fd, const struct attach_log *log, struct run_result *res);

#endif
