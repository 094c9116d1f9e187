/* SPDX-License-Identifier: Apache-2.0 */
/* pool.c - bounded parallel jobs in forked workers (pool.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"
#include "pool.h"

struct worker {
	pid_t pid;
	long deadline;          /* clock_ms() after which it is killed */
	int fd;                 /* read end of its result pipe */
	int idx;
	size_t got;
};

static int start(struct worker *w, int idx, pool_job_fn job, size_t size,
		 void *ctx)
{
	int p[2];
	pid_t parent = getpid();

	if (pipe2(p, O_CLOEXEC) != 0)
		return -errno;
	fflush(NULL);
	w->pid = fork();
	if (w->pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (w->pid == 0) {
		unsigned char *res = calloc(1, size);

		close(p[0]);
		if (!res || prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
			_exit(3);
		job(idx, res, ctx);
		_exit(fdio_write_all(p[1], res, size, 0) == 0 ? 0 : 3);
	}
	close(p[1]);
	w->fd = p[0];
	w->idx = idx;
	w->got = 0;
	return 0;
}

/* Milliseconds until the first running worker's deadline (-1: none). */
static int next_deadline(const struct worker *w, int jobs)
{
	long now = clock_ms(), best = -1;

	for (int s = 0; s < jobs; s++)
		if (w[s].pid > 0 && w[s].deadline > 0 &&
		    (best < 0 || w[s].deadline - now < best))
			best = w[s].deadline > now ? w[s].deadline - now : 0;
	return (int)best;
}

/* One pool_run: its arguments, its workers and its counts. */
struct pool {
	int n, jobs, limit_ms;
	pool_job_fn job;
	size_t size;
	unsigned char *results;
	char *failed;
	pool_progress_fn progress;
	void *ctx;
	struct worker *w;
	struct pollfd *pf;
	int next, running, done;
};

/* Workers started for the next items while a slot is free.  0, or the
 * -errno of a pipe or fork that failed (no further worker is started). */
static int fill_slots(struct pool *p)
{
	int rc = 0;

	while (p->running < p->jobs && p->next < p->n && rc == 0) {
		int slot = 0;

		while (p->w[slot].pid > 0)
			slot++;
		rc = start(&p->w[slot], p->next, p->job, p->size, p->ctx);
		if (rc) {
			p->w[slot].pid = 0;
			break;
		}
		p->w[slot].deadline = p->limit_ms > 0 ? clock_ms() + p->limit_ms : 0;
		p->next++;
		p->running++;
	}
	return rc;
}

/* Wait until a worker's pipe has something or a deadline passes.  -1 when
 * poll failed for another reason than a signal. */
static int wait_workers(struct pool *p)
{
	for (int s = 0; s < p->jobs; s++) {
		p->pf[s].fd = p->w[s].pid > 0 ? p->w[s].fd : -1;
		p->pf[s].events = POLLIN;
		p->pf[s].revents = 0;
	}
	if (poll(p->pf, (nfds_t)p->jobs, next_deadline(p->w, p->jobs)) < 0 && errno != EINTR)
		return -1;
	return 0;
}

/* Slot s is free again; its item failed (result zeroed) unless ok. */
static void end_worker(struct pool *p, int s, bool ok)
{
	struct worker *w = &p->w[s];

	if (!ok) {
		memset(p->results + p->size * (size_t)w->idx, 0, p->size);
		if (p->failed)
			p->failed[w->idx] = 1;
	}
	w->pid = 0;
	p->running--;
	p->done++;
	if (p->progress)
		p->progress(p->done, p->running, p->n, p->ctx);
}

/* Past its deadline: our own worker, killed, its item failed; not waited
 * for (stuck in the kernel, it dies when it can). */
static void kill_overdue(struct pool *p)
{
	for (int s = 0; s < p->jobs; s++) {
		struct worker *w = &p->w[s];

		if (w->pid <= 0 || w->deadline <= 0 || clock_ms() < w->deadline)
			continue;
		kill(w->pid, SIGKILL);
		(void)waitpid(w->pid, NULL, WNOHANG);
		close(w->fd);
		p->pf[s].revents = 0;
		end_worker(p, s, false);
	}
}

/* What the workers' pipes hold read into their results; a worker whose
 * result is complete, or whose pipe ended before, is reaped. */
static void collect(struct pool *p)
{
	for (int s = 0; s < p->jobs; s++) {
		struct worker *w = &p->w[s];
		unsigned char *res;
		ssize_t got;
		int status;

		if (w->pid <= 0 || !(p->pf[s].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		res = p->results + p->size * (size_t)w->idx;
		got = read(w->fd, res + w->got, p->size - w->got);
		if (got < 0 && errno == EINTR)
			continue;
		if (got > 0) {
			w->got += (size_t)got;
			if (w->got < p->size)
				continue;
		}
		/* complete, or EOF/error before it was */
		close(w->fd);
		while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
			;
		end_worker(p, s, w->got == p->size);
	}
}

int pool_run(int n, int jobs, int limit_ms, pool_job_fn job, size_t size,
	     void *results, char *failed, pool_progress_fn progress, void *ctx)
{
	struct pool p = {
		.n = n, .jobs = jobs < 1 ? 1 : jobs, .limit_ms = limit_ms, .job = job,
		.size = size, .results = results, .failed = failed,
		.progress = progress, .ctx = ctx,
	};
	int rc = 0;

	p.w = calloc((size_t)p.jobs, sizeof(*p.w));
	p.pf = calloc((size_t)p.jobs, sizeof(*p.pf));
	if (!p.w || !p.pf) {
		free(p.w);
		free(p.pf);
		return -ENOMEM;
	}
	memset(results, 0, size * (size_t)n);
	for (;;) {
		if (rc == 0)
			rc = fill_slots(&p);
		if (p.running == 0 || wait_workers(&p) < 0)
			break;
		kill_overdue(&p);
		collect(&p);
	}
	for (; p.next < n; p.next++)
		if (failed)
			failed[p.next] = 1;
	free(p.w);
	free(p.pf);
	return rc;
}
