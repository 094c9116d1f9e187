/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pool.h - run one job per item in forked workers, at most `jobs` at once.
 *
 * Each job runs in its own child process (so it may enter namespaces and
 * change ids freely) and returns a fixed-size result, copied back through a
 * pipe.  A job that hangs delays only its own slot: each job bounds itself
 * (its attach timeouts), and a worker still running after limit_ms (a job
 * stuck where no timeout reaches: a FUSE file system in a container) is
 * killed and its item marked failed.
 */
#ifndef JSYM_POOL_H
#define JSYM_POOL_H

#include <stddef.h>

/* Fill result (result_size bytes, zeroed) for item idx; runs in a child. */
typedef void (*pool_job_fn)(int idx, void *result, void *ctx);
/* Called in the parent after each job ends (done of total). */
typedef void (*pool_progress_fn)(int done, int running, int total, void *ctx);

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
 * not NULL, gets each group's worker time).  Otherwise as pool_run.
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
