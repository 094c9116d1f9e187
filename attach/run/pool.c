/* SPDX-License-Identifier: Apache-2.0 */
/* pool.c - bounded parallel jobs in forked workers (pool.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "fdio.h"
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

int pool_run(int n, int jobs, int limit_ms, pool_job_fn job, size_t size,
	     void *results, char *failed, pool_progress_fn progress, void *ctx)
{
	struct worker *w = calloc((size_t)(jobs > 0 ? jobs : 1), sizeof(*w));
	struct pollfd *pf = calloc((size_t)(jobs > 0 ? jobs : 1), sizeof(*pf));
	int next = 0, running = 0, done = 0, rc = 0;

	if (!w || !pf) {
		free(w);
		free(pf);
		return -ENOMEM;
	}
	if (jobs < 1)
		jobs = 1;
	memset(results, 0, size * (size_t)n);
	for (;;) {
		while (running < jobs && next < n && rc == 0) {
			int slot = 0;

			while (w[slot].pid > 0)
				slot++;
			rc = start(&w[slot], next, job, size, ctx);
			if (rc) {
				w[slot].pid = 0;
				break;
			}
			w[slot].deadline = limit_ms > 0 ? clock_ms() + limit_ms : 0;
			next++;
			running++;
		}
		if (running == 0)
			break;
		for (int s = 0; s < jobs; s++) {
			pf[s].fd = w[s].pid > 0 ? w[s].fd : -1;
			pf[s].events = POLLIN;
			pf[s].revents = 0;
		}
		if (poll(pf, (nfds_t)jobs, next_deadline(w, jobs)) < 0 && errno != EINTR)
			break;
		/* past its deadline: our own worker, killed, its item failed; not
		 * waited for (stuck in the kernel, it dies when it can) */
		for (int s = 0; s < jobs; s++) {
			if (w[s].pid <= 0 || w[s].deadline <= 0 || clock_ms() < w[s].deadline)
				continue;
			kill(w[s].pid, SIGKILL);
			(void)waitpid(w[s].pid, NULL, WNOHANG);
			close(w[s].fd);
			memset((unsigned char *)results + size * (size_t)w[s].idx, 0, size);
			if (failed)
				failed[w[s].idx] = 1;
			w[s].pid = 0;
			pf[s].revents = 0;
			running--;
			done++;
			if (progress)
				progress(done, running, n, ctx);
		}
		for (int s = 0; s < jobs; s++) {
			unsigned char *res;
			ssize_t got;
			int status;

			if (w[s].pid <= 0 || !(pf[s].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			res = (unsigned char *)results + size * (size_t)w[s].idx;
			got = read(w[s].fd, res + w[s].got, size - w[s].got);
			if (got < 0 && errno == EINTR)
				continue;
			if (got > 0) {
				w[s].got += (size_t)got;
				if (w[s].got < size)
					continue;
			}
			/* complete, or EOF/error before it was */
			close(w[s].fd);
			while (waitpid(w[s].pid, &status, 0) < 0 && errno == EINTR)
				;
			if (w[s].got < size) {
				memset(res, 0, size);
				if (failed)
					failed[w[s].idx] = 1;
			}
			w[s].pid = 0;
			running--;
			done++;
			if (progress)
				progress(done, running, n, ctx);
		}
	}
	for (; next < n; next++)
		if (failed)
			failed[next] = 1;
	free(w);
	free(pf);
	return rc;
}
