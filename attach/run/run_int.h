/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run_int.h - inside attach/run: the protocol table's rows (run.c) and
 * the pool without groups (pool.c), for the folder and the unit tests;
 * the layers above use run.h, the entry.
 */
#ifndef JSYM_RUN_INT_H
#define JSYM_RUN_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "run.h"

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

/*
 * Run job for items 0..n-1 with at most jobs (>= 1) workers, each for at
 * most limit_ms (<= 0: no limit); results is an
 * array of n results of result_size bytes.  A worker that dies without a
 * result leaves its result zeroed and sets failed[idx] (if failed is not
 * NULL).  Returns 0 or -errno (pipe/fork failure: the remaining items are
 * marked failed).
 */
int pool_run(int n, int jobs, int limit_ms, pool_job_fn job, size_t result_size,
	     void *results, char *failed, pool_progress_fn progress, void *ctx);

#endif
