/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_resolve_files.c - where `jsym resolve` finds a JVM's symbol files, opened
 * so that nothing planted in the target's filesystem can redirect or stall us
 * (contract in cli_resolve_files.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "cli_resolve_files.h"
#include "target.h"

/* Open rel relative to src->rootfd: inside the root, or from our own root
 * and cwd for AT_FDCWD.  The JVM's perf map or journal: whatever the
 * container put there, opened only when it is a plain file of a local file
 * system (confine.h); in a root, a symlink at the file's own name is
 * refused too (the agent writes files, never links).  fd, or -1 with
 * errno. */
static int open_rel(const struct resolve_source *src)
{
	int fd = confine_open(src->mntfd, src->rootfd, src->rel, src->rootfd == AT_FDCWD ?
			      O_RDONLY : O_RDONLY | O_NOFOLLOW, 0, NULL);

	return fd < 0 ? -1 : fd;
}

/* Accept only regular files: a FIFO or device planted there must not hang us. */
static int check_regular(struct resolve_source *src)
{
	struct stat st;

	if (fstat(src->fd, &st) == 0 && S_ISREG(st.st_mode)) {
		src->dev = st.st_dev;
		src->ino = st.st_ino;
		return 0;
	}
	cli_err("%s is not a regular file, refusing to read it", src->path);
	close(src->fd);
	src->fd = -1;
	return -1;
}

/*
 * The JVM's facts and a dirfd of its root, from attach/proc/target.c: the pid it
 * has in its own namespace, and /proc/PID/root even for root without
 * CAP_SYS_PTRACE (a kubectl debug sidecar with the default profile), which
 * target_open() opens as the JVM's own uid and gid when it must.  Returns
 * the dirfd (ours to close) or -1 after saying why.
 */
static int open_target_root(long pid, const char *root, int verbose, long *nspid,
			    int *mntfd, char *out_dir, size_t cap)
{
	struct target t;
	struct err_text e;
	int fd;

	if (target_open((pid_t)pid, 0, &t, &e) != 0) {
		cli_err("%s", e.msg);
		return -1;
	}
	*nspid = t.st.nspid;
	snprintf(out_dir, cap, "%s", target_out_dir(&t));
	fd = t.root_fd;
	t.root_fd = -1;         /* taken over: target_close leaves it open */
	*mntfd = t.proc_fd;
	t.proc_fd = -1;
	if (fd < 0)
		cli_err("cannot open %s: %s (run as the JVM's user or as root "
				"with CAP_SYS_PTRACE, e.g. kubectl debug --profile=general)",
			root, strerror(-t.root_err));
	else if (t.opened_as_owner && verbose)
		cli_err("%s refused to root without CAP_SYS_PTRACE; opened it "
				"as the JVM's uid %lu", root, (unsigned long)t.st.uid[1]);
	target_close(&t);
	return fd;
}

int resolve_open_pid(long pid, const char *dir, int verbose, struct resolve_source *src)
{
	char root[64], out_dir[128];
	long nspid = 0;
	int err = 0;

	src->fd = -1;
	src->mntfd = -1;
	snprintf(root, sizeof(root), "/proc/%ld/root", pid);
	src->rootfd = open_target_root(pid, root, verbose, &nspid, &src->mntfd, out_dir,
				       sizeof(out_dir));
	if (src->rootfd < 0)
		return -1;
	if (!dir)
		dir = out_dir;  /* where the agent writes by default */
	while (*dir == '/')
		dir++;
	for (int j = 1; j >= 0 && src->fd < 0; j--) {
		snprintf(src->rel, sizeof(src->rel), "%s%s%s-%ld.%s", dir, *dir ? "/" : "",
			 j ? "jsym" : "perf", nspid, j ? "journal" : "map");
		snprintf(src->path, sizeof(src->path), "%s/%s", root, src->rel);
		src->is_journal = j;
		src->fd = open_rel(src);
		if (src->fd >= 0)
			break;
		if (errno != ENOENT) {
			err = errno;
			if (err == EINVAL)      /* confine_open: a FIFO, device... */
				cli_err("%s is not a regular file, refusing to read it",
					src->path);
			else if (err == EREMOTE || err == EPERM)
				cli_err("%s is not on a local file system that stores "
					"files, refusing to read it: %s", src->path,
					strerror(err));
			else
				cli_err("cannot open %s: %s", src->path, strerror(err));
		} else if (j && verbose) {
			cli_err("no journal %s, trying the perf map", src->path);
		}
	}
	if (src->fd < 0) {
		if (!err)
			cli_err(
				"no symbol files for JVM %ld in %s/%s (looked for jsym-%ld.journal "
				"and perf-%ld.map): attach the agent first (jsym exec %ld load ...), "
				"or give --dir if it writes elsewhere",
				pid, root, dir, nspid, nspid, pid);
		return -1;
	}
	if (verbose && !src->is_journal)
		cli_err("no journal, using the perf map %s (it has no unloads: "
				"addresses of unloaded code may be named wrongly)", src->path);
	return check_regular(src);
}

int resolve_open_file(const char *file, int is_journal, struct resolve_source *src)
{
	src->rootfd = AT_FDCWD;
	src->mntfd = -1;
	src->is_journal = is_journal;
	snprintf(src->rel, sizeof(src->rel), "%s", file);
	snprintf(src->path, sizeof(src->path), "%s", file);
	src->fd = open_rel(src);
	if (src->fd < 0) {
		cli_err("cannot open %s: %s", file, strerror(errno));
		return -1;
	}
	return check_regular(src);
}

int resolve_reopen_if_replaced(struct resolve_source *src)
{
	struct stat st;
	int fd = open_rel(src);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (st.st_dev == src->dev && st.st_ino == src->ino)) {
		close(fd);
		return -1;
	}
	src->dev = st.st_dev;
	src->ino = st.st_ino;
	return fd;
}

void resolve_close(struct resolve_source *src)
{
	if (src->rootfd >= 0)
		close(src->rootfd);
	if (src->mntfd >= 0)
		close(src->mntfd);
	src->rootfd = src->mntfd = -1;
}

/* SECONDS[.FRACTION] -> ns; 0 or -1.  Time 0 is refused: it means "no limit". */
int resolve_parse_seconds(const char *s, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000ULL;
	const char *p = s;

	for (; *p >= '0' && *p <= '9'; p++) {
		if (sec > (UINT64_MAX / 1000000000ULL - 9) / 10)
			return -1;
		sec = sec * 10 + (uint64_t)(*p - '0');
	}
	if (p == s || (*p && *p != '.'))
		return -1;
	if (*p == '.')
		for (p++; *p; p++) {
			if (*p < '0' || *p > '9')
				return -1;
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(*p - '0') * scale;
			}
		}
	*ns = sec * 1000000000ULL + frac;
	return *ns ? 0 : -1;
}

/* The limit of one read of the file fd: CLI_LOOK_MS, and a second more for each
 * RESOLVE_READ_MIB_S MiB it holds (a journal may hold 1 GiB, and a pod's
 * CPU limit slows the parse), so a big file is not taken for a stalled
 * one; a file system that never answers is still given up on. */
#define RESOLVE_READ_MIB_S 8
int resolve_read_limit_ms(int fd)
{
	struct stat st;
	long long mib;

	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0)
		return CLI_LOOK_MS;
	mib = (long long)(st.st_size >> 20);
	if (mib > 16LL * 1024)
		mib = 16LL * 1024;
	return CLI_LOOK_MS + (int)(mib * 1000 / RESOLVE_READ_MIB_S);
}
