/*
 * resolve_files.c - where `jsym resolve` finds a JVM's symbol files, opened
 * so that nothing planted in the target's filesystem can redirect or stall us
 * (contract in resolve_files.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "inroot.h"
#include "proc.h"
#include "resolve_files.h"

#define FILE_FLAGS (O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)

/* Read and parse /proc/<pid>/status (attach/proc.c's parser).  0 or -errno. */
static int read_status(long pid, struct proc_status *st)
{
	char path[64], buf[16384];
	size_t len = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < sizeof(buf) &&
	       ((n = read(fd, buf + len, sizeof(buf) - len)) > 0 ||
		(n < 0 && errno == EINTR)))
		len += n > 0 ? (size_t)n : 0;
	close(fd);
	return proc_parse_status(buf, len, st);
}

/* Open rel relative to src->rootfd: inside the root, or plainly for AT_FDCWD. */
static int open_rel(const struct resolve_source *src)
{
	if (src->rootfd == AT_FDCWD)
		return open(src->rel, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	int fd = inroot_open(src->rootfd, src->rel, FILE_FLAGS, 0, NULL);

	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	return fd;
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
	fprintf(stderr, "jsym: %s is not a regular file, refusing to read it\n", src->path);
	close(src->fd);
	src->fd = -1;
	return -1;
}

/*
 * /proc/PID/root is open to the JVM's own user and to CAP_SYS_PTRACE.  Root
 * without that capability (a kubectl debug sidecar with the default profile)
 * is refused, but still holds CAP_SETUID/CAP_SETGID: borrow the JVM's uid and
 * gid as filesystem ids for this one open, then take ours back.  The
 * directory fd we get keeps working after that.
 */
static int open_root(const struct proc_status *st, const char *root, int verbose)
{
	int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC), err = errno;
	uid_t uid = st->uid[1], old_uid;
	gid_t gid = st->gid[1], old_gid;

	if (fd >= 0)
		return fd;
	if (err == EACCES && geteuid() == 0 && uid != 0) {
		old_gid = (gid_t)setfsgid(gid);
		old_uid = (uid_t)setfsuid(uid);
		fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		setfsuid(old_uid);
		setfsgid(old_gid);
		if (fd >= 0) {
			if (verbose)
				fprintf(stderr, "jsym: %s refused to root without CAP_SYS_PTRACE; "
						"opened it as the JVM's uid %lu\n", root, (unsigned long)uid);
			return fd;
		}
	}
	fprintf(stderr, "jsym: cannot open %s: %s (run as the JVM's user or as root with "
			"CAP_SYS_PTRACE, e.g. kubectl debug --profile=general)\n", root, strerror(err));
	return -1;
}

int resolve_open_pid(long pid, const char *dir, int verbose, struct resolve_source *src)
{
	char root[64];
	struct proc_status st;
	int err = read_status(pid, &st);
	long nspid;

	src->fd = -1;
	src->rootfd = -1;
	if (err < 0) {
		fprintf(stderr, "jsym: no process %ld (cannot read /proc/%ld/status: %s; give the "
				"pid as seen from here)\n", pid, pid, strerror(-err));
		return -1;
	}
	nspid = st.nspid;
	err = 0;
	snprintf(root, sizeof(root), "/proc/%ld/root", pid);
	src->rootfd = open_root(&st, root, verbose);
	if (src->rootfd < 0)
		return -1;
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
			fprintf(stderr, "jsym: cannot open %s: %s\n", src->path, strerror(err));
		} else if (j && verbose) {
			fprintf(stderr, "jsym: no journal %s, trying the perf map\n", src->path);
		}
	}
	if (src->fd < 0) {
		if (!err)
			fprintf(stderr,
				"jsym: no symbol files for JVM %ld in %s/%s (looked for jsym-%ld.journal "
				"and perf-%ld.map): attach the agent first (jsym exec %ld load ...), "
				"or give --dir if it writes elsewhere\n",
				pid, root, dir, nspid, nspid, pid);
		return -1;
	}
	if (verbose && !src->is_journal)
		fprintf(stderr, "jsym: no journal, using the perf map %s (it has no unloads: "
				"addresses of unloaded code may be named wrongly)\n", src->path);
	return check_regular(src);
}

int resolve_open_file(const char *file, int is_journal, struct resolve_source *src)
{
	src->rootfd = AT_FDCWD;
	src->is_journal = is_journal;
	snprintf(src->rel, sizeof(src->rel), "%s", file);
	snprintf(src->path, sizeof(src->path), "%s", file);
	src->fd = open_rel(src);
	if (src->fd < 0) {
		fprintf(stderr, "jsym: cannot open %s: %m\n", file);
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
	src->rootfd = -1;
}
