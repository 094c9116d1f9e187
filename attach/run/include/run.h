/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run.h - one attach command, run in a forked child (attach/run/run.c),
 * and the pool of such workers (pool.c).
 *
 * The layer between the use cases and the protocols (docs/architecture.md):
 * attach/attaching's load and `jsym exec` say what to run; this picks the
 * protocol from the target's kind (the protocols[] table of run.c) and runs
 * it where the protocol needs to be (namespaces, credentials).  The pool
 * runs attach/attaching's workers; the kind names are what attach, exec
 * and list print.
 */
#ifndef JSYM_RUN_H
#define JSYM_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "base.h"

struct target;

#define RUN_MAX_ARGS 64

/* One jattach-style command: `load LIB true OPTS`, `properties`, ... */
struct run_request {
	const char *cmd;
	const char *const *args;
	int nargs;              /* <= RUN_MAX_ARGS */
	int protocol;           /* HotSpot: 0 auto, 1 or 2 */
	int timeout_ms;         /* socket wait and connection, > 0 (base.h) */
	int read_timeout_ms;    /* the whole reply's deadline; 0: no limit
	                           (base.h) */
};

struct run_result {
	int rc;                 /* 0: the JVM answered; else -errno */
	struct attach_reply reply;
	struct err_text err;
};

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

/*
 * The pool (pool.c): run one job per item in forked workers, at most `jobs`
 * at once.  Each job runs in its own child process (so it may enter
 * namespaces and change ids freely) and returns a fixed-size result, copied
 * back through a pipe.  A job that hangs delays only its own slot: each job
 * bounds itself (its attach timeouts), and a worker still running after
 * limit_ms (a job stuck where no timeout reaches: a FUSE file system in a
 * container) is killed and its item marked failed.
 */

/* Fill result (result_size bytes, zeroed) for item idx; runs in a child. */
typedef void (*pool_job_fn)(int idx, void *result, void *ctx);
/* Called in the parent after each job ends (done of total). */
typedef void (*pool_progress_fn)(int done, int running, int total, void *ctx);

/* What failed[idx] says after pool_run_groups. */
enum pool_item_fate {
	POOL_DONE = 0,          /* its worker gave a result */
	POOL_FAILED = 1,        /* its worker died, was killed at limit_ms, or
	                           could not be started */
	POOL_SKIPPED = 2,       /* not started: its group had spent budget_ms */
};

/*
 * Items in groups that share the workers fairly (one group per container:
 * attach/attaching).  group[idx] is item idx's group, 0..ngroups-1.  A free
 * worker takes the next item (in index order) of the group that runs the
 * fewest, and a group runs at most ceil(jobs / groups with items waiting)
 * at once, so a group of many slow items cannot hold every worker while
 * another group waits.  budget_ms > 0 bounds a group's worker time: once
 * its ended and running workers have taken that long, its items still
 * waiting are not started (failed[idx] = POOL_SKIPPED; spent_ms[g], when
 * not NULL, gets each group's worker time).  Otherwise as pool_run
 * (run_int.h).
 */
struct pool_groups {
	const int *group;
	int ngroups;
	long budget_ms;         /* <= 0: no budget */
	long *spent_ms;         /* ngroups entries, or NULL */
};

int pool_run_groups(int n, int jobs, int limit_ms, const struct pool_groups *g,
		    pool_job_fn job, size_t result_size, void *results, char *failed,
		    pool_progress_fn progress, void *ctx);

#endif
