/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jsym_lookup_open.c - find and open a JVM's symbol files for the public
 * API (include/jsym/lookup.h), treating the JVM's filesystem as hostile.
 *
 * The files live in the JVM's own mount namespace, reached through
 * /proc/PID/root, named with the pid the JVM sees (the last NStgid value).
 * A path inside that root is resolved with openat2(RESOLVE_IN_ROOT) so an
 * absolute symlink in a container cannot lead into the host; kernels before
 * 5.6 get a walk that refuses every symlink and "..".  The file is opened
 * O_NOFOLLOW|O_NONBLOCK (a planted FIFO cannot hang us) and must be regular.
 * `jsym resolve` (attach/cli/cli_resolve_files.c) does the same and, as a CLI,
 * also switches ids for sidecars; a library never changes its caller's ids.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jsym_lookup_int.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#define JL_RESOLVE_NO_MAGICLINKS 0x02
#define JL_RESOLVE_IN_ROOT 0x10

struct jl_open_how {
	uint64_t flags, mode, resolve;
};

#define FILE_FLAGS (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)

/* rel (no leading '/') under dirfd, one component at a time, no symlinks, no "..". */
static int walk(int dirfd, const char *rel)
{
	char part[256];
	int fd = dup(dirfd);

	if (fd < 0)
		return -errno;
	while (*rel) {
		size_t n = strcspn(rel, "/");
		int next;

		if (n == 0 || (n == 1 && rel[0] == '.')) {
			rel += n + (rel[n] == '/');
			continue;
		}
		if (n >= sizeof(part) || (n == 2 && rel[0] == '.' && rel[1] == '.')) {
			close(fd);
			return -EINVAL;
		}
		memcpy(part, rel, n);
		part[n] = '\0';
		rel += n;
		rel += *rel == '/';
		next = openat(fd, part, *rel ? O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
					     : FILE_FLAGS);
		close(fd);
		if (next < 0)
			return errno == ELOOP ? -ELOOP : -errno;
		fd = next;
	}
	return fd;
}

static int open_in_root(int rootfd, const char *rel)
{
	struct jl_open_how how = { FILE_FLAGS, 0, JL_RESOLVE_IN_ROOT | JL_RESOLVE_NO_MAGICLINKS };
	long fd = syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));

	if (fd >= 0)
		return (int)fd;
	if (errno != ENOSYS && errno != EPERM) /* EPERM: seccomp of an old runtime */
		return -errno;
	return walk(rootfd, rel);
}

/* The pid `pid` has in its own pid namespace (last NStgid), or pid itself
 * on kernels without NStgid.  -errno when /proc/PID/status is unreadable. */
static long ns_pid(int pid)
{
	char path[64], line[256];
	long v = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (!(f = fopen(path, "re")))
		return errno == ENOENT ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "NStgid:", 7) == 0) {
			char *p = line + 7, *end;

			for (;;) {
				long x = strtol(p, &end, 10);

				if (end == p)
					break;
				v = x;
				p = end;
			}
		}
	fclose(f);
	return v;
}

static int regular(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	return S_ISREG(st.st_mode) ? 0 : -EINVAL;
}

int lk_open_pid_files(int pid, const char *dir, int *is_journal, char *why, size_t whylen)
{
	char path[64], rel[4096];
	long nspid = ns_pid(pid);
	int rootfd, fd = -ENOENT;

	if (nspid < 0) {
		snprintf(why, whylen, "cannot read /proc/%d/status: %s", pid, strerror((int)-nspid));
		return (int)nspid;
	}
	snprintf(path, sizeof(path), "/proc/%d/root", pid);
	rootfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		int e = errno;

		snprintf(why, whylen, "cannot open %s: %s (needs the JVM's uid or CAP_SYS_PTRACE)",
			 path, strerror(e));
		return -e;
	}
	while (*dir == '/')
		dir++;
	for (int journal = 1; journal >= 0; journal--) {
		snprintf(rel, sizeof(rel), "%s%s%s-%ld.%s", dir, *dir ? "/" : "",
			 journal ? "jsym" : "perf", nspid, journal ? "journal" : "map");
		fd = open_in_root(rootfd, rel);
		if (fd >= 0 && regular(fd) < 0) {
			close(fd);
			fd = -EINVAL;
		}
		if (fd >= 0) {
			*is_journal = journal;
			break;
		}
		if (fd != -ENOENT)
			break;
	}
	close(rootfd);
	if (fd < 0)
		snprintf(why, whylen, "no usable symbol file for JVM %d in %s/%s (jsym-%ld.journal, "
			 "perf-%ld.map): %s", pid, path, dir, nspid, nspid, strerror(-fd));
	return fd;
}
