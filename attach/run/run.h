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

#include <stdbool.h>

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
 * One attach protocol: a row of the protocol table (run.c's protocols[]).
 * run_attach picks the row of the target's kind, enters its namespaces in
 * the child, takes the JVM's ids when the row says so, and calls exec
 * there; the CLI prints name (attach, exec, list).  A new protocol is its
 * folder (attach/NAME/ with NAME_exec), one PROC_* kind that target_open
 * recognises, and one row.
 */
struct run_protocol {
	int kind;               /* the enum proc_jvm_kind it serves */
	const char *name;       /* "HotSpot", "OpenJ9" */
	unsigned namespaces;    /* NS_ENTER_* the child enters before exec */
	bool jvm_ids;           /* the child takes the JVM's uid/gid before
	                           exec (and, as root, goes on as root where the
	                           JVM accepts root: JDK 11+); false: the
	                           protocol takes them itself */
	/* In the child: rq against t, the JVM's output to out_fd; 0 or -errno
	 * with res->err set, the reply in res->reply. */
	int (*exec)(const struct run_request *rq, const struct target *t,
		    int out_fd, const struct attach_log *log, struct run_result *res);
};

/* The protocol of a JVM kind (enum proc_jvm_kind), or NULL: not a JVM. */
const struct run_protocol *run_protocol_of(int kind);

/* The protocol's name of a kind, or "not a JVM". */
const char *run_kind_name(int kind);

/* The same for t, or "unknown (maps unreadable)" when its kind is unknown. */
const char *run_target_kind_name(const struct target *t);

/*
 * Run rq against t (opened with TARGET_FDS and prechecked) in a child; the
 * JVM's output goes to out_fd.  Returns res->rc: 0 when the JVM answered
 * (see res->reply), or -errno with res->err set: the protocol's codes
 * (hotspot_exec, openj9_exec), -EINTR when the child was interrupted (its
 * trigger file removed), -EIO when it died without a result, -ENOEXEC
 * when t's kind has no protocol.
 */
int run_attach(const struct target *t, const struct run_request *rq,
	       int out_fd, const struct attach_log *log, struct run_result *res);

#endif
