/* SPDX-License-Identifier: Apache-2.0 */
/* pool.c - bounded parallel jobs in forked workers (declared in run.h). */
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
#include "run.h"
#include "run_int.h"

struct worker {
	pid_t pid;
	long deadline;          /* clock_ms() after which it is killed */
	int fd;                 /* read end of its result pipe */
	int idx;
	int group;
	long started;           /* clock_ms() at its start */
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
	int running, done;
	/* the groups: their items in index order (order[first[g]...]), the
	 * next one to start, how many wait, run and have started, and the
	 * worker time spent by those that ended */
	int ngroups;
	long budget_ms;
	int *order, *first, *next, *waiting, *running_in, *started;
	long *spent;
};

/* Group g's worker time so far: its ended workers' and its running ones'. */
static long group_spent(const struct pool *p, int g)
{
	long now = clock_ms(), t = p->spent[g];

	for (int s = 0; s < p->jobs; s++)
		if (p->w[s].pid > 0 && p->w[s].group == g)
			t += now - p->w[s].started;
	return t;
}

/* A group past its budget: its waiting items skipped, not started. */
static void skip_spent_groups(struct pool *p)
{
	for (int g = 0; p->budget_ms > 0 && g < p->ngroups; g++) {
		if (!p->waiting[g] || group_spent(p, g) < p->budget_ms)
			continue;
		for (; p->waiting[g] > 0; p->waiting[g]--) {
			if (p->failed)
				p->failed[p->order[p->next[g]++]] = POOL_SKIPPED;
			p->done++;
			if (p->progress)
				p->progress(p->done, p->running, p->n, p->ctx);
		}
	}
}

/* The group whose next item starts now: among those with items waiting and
 * fewer than their share running, the one running the fewest (then the one
 * that started the fewest).  -1 when none may start one. */
static int pick_group(const struct pool *p)
{
	int waiting = 0, share, best = -1;

	for (int g = 0; g < p->ngroups; g++)
		waiting += p->waiting[g] > 0;
	if (!waiting)
		return -1;
	share = (p->jobs + waiting - 1) / waiting;
	for (int g = 0; g < p->ngroups; g++) {
		if (!p->waiting[g] || p->running_in[g] >= share)
			continue;
		if (best < 0 || p->running_in[g] < p->running_in[best] ||
		    (p->running_in[g] == p->running_in[best] &&
		     p->started[g] < p->started[best]))
			best = g;
	}
	return best;
}

/* Workers started for the next items while a slot is free.  0, or the
 * -errno of a pipe or fork that failed (no further worker is started). */
static int fill_slots(struct pool *p)
{
	int rc = 0, g;

	skip_spent_groups(p);
	while (p->running < p->jobs && rc == 0 && (g = pick_group(p)) >= 0) {
		struct worker *w = p->w;

		while (w->pid > 0)
			w++;
		rc = start(w, p->order[p->next[g]], p->job, p->size, p->ctx);
		if (rc) {
			w->pid = 0;
			break;
		}
		w->started = clock_ms();
		w->deadline = p->limit_ms > 0 ? w->started + p->limit_ms : 0;
		w->group = g;
		p->next[g]++;
		p->waiting[g]--;
		p->running_in[g]++;
		p->started[g]++;
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
	p->spent[w->group] += clock_ms() - w->started;
	p->running_in[w->group]--;
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

/* The groups' lists: items in index order within each group. */
static int group_items(struct pool *p, const struct pool_groups *g)
{
	int ng = g && g->ngroups > 0 ? g->ngroups : 1, *ints;

	ints = calloc((size_t)(p->n + 5 * ng + 1), sizeof(int));
	p->spent = calloc((size_t)ng, sizeof(long));
	if (!ints || !p->spent) {
		free(ints);
		free(p->spent);
		return -ENOMEM;
	}
	p->order = ints;
	p->first = ints + p->n;
	p->next = p->first + ng + 1;
	p->waiting = p->next + ng;
	p->running_in = p->waiting + ng;
	p->started = p->running_in + ng;
	p->ngroups = ng;
	for (int i = 0; i < p->n; i++)
		p->first[(g && g->ngroups > 0 ? g->group[i] : 0) + 1]++;
	for (int k = 0; k < ng; k++) {
		p->waiting[k] = p->first[k + 1];
		p->first[k + 1] += p->first[k];
		p->next[k] = p->first[k];
	}
	for (int i = 0; i < p->n; i++)
		p->order[p->next[g && g->ngroups > 0 ? g->group[i] : 0]++] = i;
	for (int k = 0; k < ng; k++)
		p->next[k] = p->first[k];
	return 0;
}

int pool_run_groups(int n, int jobs, int limit_ms, const struct pool_groups *g,
		    pool_job_fn job, size_t size, void *results, char *failed,
		    pool_progress_fn progress, void *ctx)
{
	struct pool p = {
		.n = n, .jobs = jobs < 1 ? 1 : jobs, .limit_ms = limit_ms, .job = job,
		.size = size, .results = results, .failed = failed,
		.progress = progress, .ctx = ctx, .budget_ms = g ? g->budget_ms : 0,
	};
	int rc = 0;

	if (g && g->ngroups > 0)
		for (int i = 0; i < n; i++)
			if (g->group[i] < 0 || g->group[i] >= g->ngroups)
				return -EINVAL;
	p.w = calloc((size_t)p.jobs, sizeof(*p.w));
	p.pf = calloc((size_t)p.jobs, sizeof(*p.pf));
	if (!p.w || !p.pf || group_items(&p, g) != 0) {
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
	for (int k = 0; k < p.ngroups; k++)
		for (; p.waiting[k] > 0; p.waiting[k]--)
			if (failed)
				failed[p.order[p.next[k]++]] = POOL_FAILED;
	if (g && g->spent_ms)
		memcpy(g->spent_ms, p.spent, sizeof(long) * (size_t)p.ngroups);
	free(p.order);
	free(p.spent);
	free(p.w);
	free(p.pf);
	return rc;
}

int pool_run(int n, int jobs, int limit_ms, pool_job_fn job, size_t size,
	     void *results, char *failed, pool_progress_fn progress, void *ctx)
{
	return pool_run_groups(n, jobs, limit_ms, NULL, job, size, results, failed,
			       progress, ctx);
}
