/* SPDX-License-Identifier: Apache-2.0 */
/* cli_util.c - the verbose step log, error output and escaped target text of
 * the command line. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"
#include "cli.h"
#include "target.h"

void cli_log_init(struct cli_log *l, bool on)
{
	l->on = on;
	l->start_ms = clock_ms();
}

void cli_step(void *ctx, const char *line)
{
	struct cli_log *l = ctx;

	char safe[2048];

	if (!l || !l->on)
		return;
	/* one write per line: the attach child logs to the same stderr */
	dprintf(STDERR_FILENO, "jsym: [%ld ms] %s\n", clock_ms() - l->start_ms,
		term_str(safe, sizeof(safe), line));
}

void cli_err(const char *fmt, ...)
{
	char buf[1024], safe[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* Messages embed target text (comm, paths, the JVM's own message);
	 * whatever a caller did not escape is escaped here. */
	dprintf(STDERR_FILENO, "jsym: %s\n", term_escape(safe, sizeof(safe), buf,
							  strlen(buf), TERM_KEEP_NL));
}

void cli_put_text(FILE *f, const char *s)
{
	size_t n = strlen(s), cap = 4 * n + 1; /* an escape is 4 bytes for 1 */
	char small[1024], *buf = cap <= sizeof(small) ? small : malloc(cap);

	if (!buf) {
		fputs("(out of memory)", f);
		return;
	}
	fputs(term_escape(buf, cap, s, n, 0), f);
	if (buf != small)
		free(buf);
}

int cli_timeout_opt(int c, const char *arg, int *timeout_ms, int *read_timeout_ms)
{
	if (c == 't') {
		if (text_parse_ms(arg, timeout_ms) || !*timeout_ms) {
			cli_err("--timeout wants milliseconds > 0, not '%s'", arg);
			return -EINVAL;
		}
		return 0;
	}
	if (c == 'r') {
		if (text_parse_ms(arg, read_timeout_ms)) {
			cli_err("--read-timeout wants milliseconds, not '%s'", arg);
			return -EINVAL;
		}
		return 0;
	}
	return 1;
}

int cli_each_process(int (*fn)(struct target *t, void *ctx), void *ctx)
{
	DIR *d = opendir("/proc");
	pid_t self = getpid(), pid;
	struct dirent *de;
	int stop = 0;

	if (!d) {
		int err = errno;

		cli_err("cannot read /proc: %s", strerror(err));
		return -err;
	}
	while (!stop && (de = readdir(d)) != NULL) {
		struct target t;

		if (text_parse_pid(de->d_name, &pid) || pid == self)
			continue;
		if (target_open(pid, 0, &t, NULL) != 0)
			continue;       /* exited meanwhile */
		stop = fn(&t, ctx);
		target_close(&t);
	}
	closedir(d);
	return 0;
}

/* One process in a child within budget_ms: 1 done, 0 stalled (the child
 * killed and left behind), -errno when no child could be made. */
static int one_bounded(pid_t pid, int (*fn)(struct target *t, void *ctx), void *shared,
		       int budget_ms, int *stop)
{
	int p[2], status;
	pid_t child;
	char c;

	if (pipe2(p, O_CLOEXEC) != 0)
		return -errno;
	fflush(stdout);
	fflush(stderr);
	child = fork();
	if (child < 0) {
		int err = -errno;

		close(p[0]);
		close(p[1]);
		return err;
	}
	if (child == 0) {
		struct target t;
		char r = 0;

		close(p[0]);
		if (target_open(pid, 0, &t, NULL) == 0) {
			r = fn(&t, shared) ? 1 : 0;
			target_close(&t);
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
		*stop = c;
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
		return 1;
	}
	close(p[0]);
	kill(child, SIGKILL);
	/* reaped if it can die now; else it stays a child until jsym exits */
	(void)waitpid(child, &status, WNOHANG);
	return 0;
}

int cli_each_process_bounded(int (*fn)(struct target *t, void *ctx), void *ctx,
			     size_t ctx_len, int budget_ms,
			     void (*stalled)(pid_t pid, void *ctx))
{
	DIR *d = opendir("/proc");
	pid_t self = getpid(), pid;
	struct dirent *de;
	void *shared;
	int stop = 0, rc = 0;

	if (!d) {
		int err = errno;

		cli_err("cannot read /proc: %s", strerror(err));
		return -err;
	}
	shared = mmap(NULL, ctx_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED) {
		int err = errno;

		closedir(d);
		cli_err("cannot map memory for the scan: %s", strerror(err));
		return -err;
	}
	memcpy(shared, ctx, ctx_len);
	while (!stop && (de = readdir(d)) != NULL) {
		int r;

		if (text_parse_pid(de->d_name, &pid) || pid == self)
			continue;
		r = one_bounded(pid, fn, shared, budget_ms, &stop);
		if (r < 0) {
			cli_err("cannot fork to inspect process %d: %s", (int)pid, strerror(-r));
			rc = r;
			break;
		}
		if (r == 0 && stalled) {
			memcpy(ctx, shared, ctx_len);
			stalled(pid, ctx);
			memcpy(shared, ctx, ctx_len);
		}
	}
	memcpy(ctx, shared, ctx_len);
	munmap(shared, ctx_len);
	closedir(d);
	return rc;
}
