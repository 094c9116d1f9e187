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

#endif
