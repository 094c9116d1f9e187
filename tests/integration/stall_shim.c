/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stall_shim.c - an LD_PRELOAD library that makes jsym's look at one
 * process never end, as a read of its /proc files can when the kernel waits
 * on that process (its mmap lock held by a fault on a file system that
 * never answers): an openat of "cmdline" below /proc/$JSYM_STALL_PID never
 * returns.  39-confined-open loads jsym with it to show that `jsym list`
 * lists that process as stalled within its budget and goes on.  Every
 * other openat is the real one.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int stalls(int dirfd, const char *name)
{
	const char *pid = getenv("JSYM_STALL_PID");
	char link[64], want[64], self[64];
	ssize_t n;

	if (!pid || !name || strcmp(name, "cmdline") != 0)
		return 0;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", dirfd);
	n = readlink(self, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	snprintf(want, sizeof(want), "/proc/%s", pid);
	return strcmp(link, want) == 0;
}

static int call(const char *sym, int dirfd, const char *name, int flags, mode_t mode)
{
	int (*real)(int, const char *, int, ...) =
		(int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, sym);

	if (stalls(dirfd, name))
		for (;;)
			pause();
	return real ? real(dirfd, name, flags, mode) : -1;
}

int openat(int dirfd, const char *name, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	return call("openat", dirfd, name, flags, mode);
}

int openat64(int dirfd, const char *name, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	return call("openat64", dirfd, name, flags, mode);
}
