/* SPDX-License-Identifier: Apache-2.0 */
/*
 * agentlog.c - the agent's own log file.
 */
#include "agentlog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "outfile.h"

static int log_fd = -1;
/* set by the thread that loads the agent, read by the sink's flush thread:
 * relaxed atomics (a note may go to stderr or not around the change) */
static bool log_verbose;
static char log_dir[1024] = "/tmp";

static void log_name(char *buf, size_t len)
{
	snprintf(buf, len, "jsym-%d.log", (int)getpid());
}

int agentlog_open(int dirfd, const char *dir, bool verbose)
{
	struct err_text why = { "" };
	char name[64];
	int fd;

	log_name(name, sizeof(name));
	fd = outfile_open(dirfd, name, O_APPEND, &why);
	if (fd < 0)
		return fd;
	if (log_fd >= 0)
		close(log_fd);
	log_fd = fd;
	__atomic_store_n(&log_verbose, verbose, __ATOMIC_RELAXED);
	snprintf(log_dir, sizeof(log_dir), "%s", dir);
	return 0;
}

void agentlog_set_verbose(bool verbose)
{
	__atomic_store_n(&log_verbose, verbose, __ATOMIC_RELAXED);
}

void agentlog_close(void)
{
	int fd = log_fd;

	log_fd = -1;
	if (fd >= 0)
		close(fd);
}

/* When no log is open (stopped, or the output dir itself failed), the line
 * still goes somewhere a user will look: the last output dir, else /tmp. */
static int fallback_fd(void)
{
	struct err_text why = { "" };
	char name[64];
	int dfd = outfile_open_dir(log_dir);
	int fd;

	if (dfd < 0)
		dfd = outfile_open_dir("/tmp");
	if (dfd < 0)
		return -1;
	log_name(name, sizeof(name));
	fd = outfile_open(dfd, name, O_APPEND, &why);
	close(dfd);
	return fd;
}

void agentlog(const char *fmt, ...)
{
	char line[1024];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int n, m, fd;
	int saved = errno;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = snprintf(line, sizeof(line), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ jsym-agent[%d]: ",
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		     tm.tm_sec, ts.tv_nsec / 1000000, (int)getpid());
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		m = 0;
	n += m;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	fd = log_fd;
	if (fd >= 0) {
		(void)!write(fd, line, (size_t)n);
	} else {
		fd = fallback_fd();
		if (fd >= 0) {
			(void)!write(fd, line, (size_t)n);
			close(fd);
		}
	}
	if (__atomic_load_n(&log_verbose, __ATOMIC_RELAXED))
		(void)!write(STDERR_FILENO, line, (size_t)n);
	errno = saved;
}
