/* SPDX-License-Identifier: Apache-2.0 */
/*
 * visit.c - look at one process within a time budget (target.h,
 * target_visit_bounded).
 *
 * Reading a process's /proc files and the files of its root can block in
 * the kernel for ever: a FUSE server that never answers, a network file
 * system gone away.  The confined open refuses the file systems it knows
 * can stall, but a scan of every process on a node (`list`, `attach
 * --all`, the DaemonSet's loop) must go on whatever one process does.  So
 * the look happens in a child: the parent waits for its verdict until the
 * budget runs out, then kills it and goes on.  A child stuck in D state
 * cannot even be killed; it is left behind (it stays a zombie-to-be of
 * this process, reaped if it ever ends) rather than waited for.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"
#include "target.h"

int target_visit_bounded(pid_t pid, int budget_ms,
			 int (*fn)(struct target *t, void *out), void *out, size_t out_len)
{
	void *shared;
	int p[2], status, rc;
	pid_t child;
	char c;

	shared = mmap(NULL, out_len ? out_len : 1, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return -errno;
	if (out_len)
		memcpy(shared, out, out_len);
	if (pipe2(p, O_CLOEXEC) != 0) {
		rc = -errno;
		munmap(shared, out_len ? out_len : 1);
		return rc;
	}
	/* what the child prints must not be printed twice */
	fflush(stdout);
	fflush(stderr);
	child = fork();
	if (child < 0) {
		rc = -errno;
		close(p[0]);
		close(p[1]);
		munmap(shared, out_len ? out_len : 1);
		return rc;
	}
	if (child == 0) {
		struct target t;
		char r = 0;

		close(p[0]);
		if (target_open(pid, 0, &t, NULL) == 0) {
			r = fn(&t, shared) ? 1 : 0;
			target_close(&t);
		} else {
			r = 2;  /* gone meanwhile */
		}
		fflush(stdout);
		fflush(stderr);
		(void)!write(p[1], &r, 1);
		_exit(0);
	}
	close(p[1]);
	/* its verdict, or nothing by the deadline (EOF: it died) */
	if (fdio_wait(p[0], POLLIN, budget_ms) == 0 && read(p[0], &c, 1) == 1) {
		close(p[0]);
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
		if (out_len && c != 2)
			memcpy(out, shared, out_len);
		munmap(shared, out_len ? out_len : 1);
		return c == 2 ? TARGET_VISIT_GONE : c ? TARGET_VISIT_STOP : TARGET_VISIT_DONE;
	}
	close(p[0]);
	kill(child, SIGKILL);
	/* reaped if it can die now; else it stays a child until we exit */
	(void)waitpid(child, &status, WNOHANG);
	munmap(shared, out_len ? out_len : 1);
	return TARGET_VISIT_STALLED;
}
