/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cgroup.c - move the calling process into the JVM's cgroups, so that what
 * the container's code starts in the libc probe counts against the pod's
 * memory and pids limits, as the container's own processes do.
 *
 * The paths come from /proc/<pid>/cgroup, which the kernel writes but the
 * container names: a cgroup name may hold a newline (a fake line follows)
 * or be long.  So the file is read bounded, a hierarchy seen twice refuses
 * it all, a path with "." or ".." components (a cgroup outside our cgroup
 * namespace shows as "/../x") is skipped, and each component is opened
 * below the mount with O_NOFOLLOW | O_DIRECTORY, never as one path string.
 * The mounts themselves are ours (/sys/fs/cgroup in jsym's mount
 * namespace), so this runs before the mount namespace changes.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "deploy.h"
#include "deploy_int.h"
#include "target.h"

#define CG_FILE_MAX 16384
#define CG_MAX_LINES 32
#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* A directory of ours that is a cgroup file system of that kind, or -1. */
static int open_mount(const char *path, long magic)
{
	struct statfs sf;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstatfs(fd, &sf) != 0 || (long)sf.f_type != magic) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Write "0" (the writer itself) to <mnt>/<rel>/cgroup.procs: 0 or -errno. */
static int join_one(int mnt, char *rel)
{
	char *save = NULL, *comp;
	int dfd = dup(mnt), fd, rc = 0;

	if (dfd < 0)
		return -errno;
	for (comp = strtok_r(rel, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		int next;

		if (!strcmp(comp, ".") || !strcmp(comp, "..")) {
			close(dfd);
			return -EXDEV;
		}
		next = openat(dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(dfd);
		if (next < 0)
			return -errno;
		dfd = next;
	}
	fd = openat(dfd, "cgroup.procs", O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return -errno;
	if (write(fd, "0", 1) != 1)
		rc = -errno;
	close(fd);
	return rc;
}

/* The mount of one line's hierarchy: "" is the unified one (v2, or
 * /sys/fs/cgroup/unified on a hybrid host); a v1 controller list such as
 * "memory" or "cpu,cpuacct" (or "name=systemd") names a directory of
 * /sys/fs/cgroup.  The freezer is left alone: a frozen container would
 * freeze the probe, and a v1 freezer holds even SIGKILL. */
static int mount_of(const char *ctrls)
{
	char path[96];
	int fd;

	if (!ctrls[0]) {
		fd = open_mount("/sys/fs/cgroup", CGROUP2_SUPER_MAGIC);
		return fd >= 0 ? fd : open_mount("/sys/fs/cgroup/unified", CGROUP2_SUPER_MAGIC);
	}
	if (!strncmp(ctrls, "name=", 5))
		ctrls += 5;
	if (strlen(ctrls) > 64 || strspn(ctrls, "abcdefghijklmnopqrstuvwxyz0123456789_,") !=
	    strlen(ctrls) || strstr(ctrls, "freezer"))
		return -1;
	snprintf(path, sizeof(path), "/sys/fs/cgroup/%s", ctrls);
	return open_mount(path, CGROUP_SUPER_MAGIC);
}

/* Is text (len bytes) exactly what /proc/self/cgroup says? */
static bool same_as_ours(const char *text, size_t len)
{
	char mine[CG_FILE_MAX];
	size_t n = 0;
	ssize_t r;
	int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	while (n < sizeof(mine) && (r = read(fd, mine + n, sizeof(mine) - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	return n == len && memcmp(mine, text, len) == 0;
}

int deploy_cgroup_join(const struct target *t)
{
	char buf[CG_FILE_MAX], *lines[CG_MAX_LINES], *save = NULL, *line;
	char seen[CG_MAX_LINES][72];
	int n = 0, fd, joined = 0, rc = -ENOENT;
	size_t len = 0;
	ssize_t r;

	fd = openat(t->proc_fd, "cgroup", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < sizeof(buf) - 1 &&
	       (r = read(fd, buf + len, sizeof(buf) - 1 - len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			close(fd);
			return -errno;
		}
		len += (size_t)r;
	}
	close(fd);
	if (len == sizeof(buf) - 1)
		return -E2BIG;
	buf[len] = '\0';
	/* already there (a host JVM of our own session): moving costs a
	 * cgroup migration, which waits for the kernel's global lock */
	if (same_as_ours(buf, len))
		return 0;
	/* "ID:CONTROLLERS:PATH" per line; check them all before acting */
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2 || c2[1] != '/' || n == CG_MAX_LINES || c2 - line >= 72)
			return -EPROTO;
		snprintf(seen[n], sizeof(seen[n]), "%.*s", (int)(c2 - line), line);
		for (int i = 0; i < n; i++)
			if (!strcmp(seen[i], seen[n]) ||
			    !strncmp(seen[i], line, (size_t)(c1 - line + 1)) ||
			    !strcmp(strchr(seen[i], ':'), strchr(seen[n], ':')))
				return -EPROTO;   /* a hierarchy twice: forged */
		lines[n++] = line;
	}
	for (int i = 0; i < n; i++) {
		char *c1 = strchr(lines[i], ':'), *c2 = strchr(c1 + 1, ':');
		int mnt, one;

		*c2 = '\0';
		mnt = mount_of(c1 + 1);
		if (mnt < 0)
			continue;
		one = join_one(mnt, c2 + 1);
		close(mnt);
		if (one == 0)
			joined++;
		else
			rc = one;
	}
	return joined ? 0 : rc;
}
