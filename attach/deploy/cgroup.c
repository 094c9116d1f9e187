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
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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

/* <mnt>/<rel> opened a component at a time, never through a symbolic
 * link or "..": an O_RDONLY directory fd or -errno.  rel is cut up.  Each
 * level below the mount is shown to each(dfd, ctx) when each is set. */
static int open_cgroup(int mnt, char *rel, void (*each)(int dfd, void *ctx), void *ctx)
{
	char *save = NULL, *comp;
	int dfd = dup(mnt);

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
		if (each)
			each(dfd, ctx);
	}
	return dfd;
}

/* Write "0" (the writer itself) to dfd's cgroup.procs: 0 or -errno. */
static int join_dir(int dfd)
{
	int fd = openat(dfd, "cgroup.procs", O_WRONLY | O_NOFOLLOW | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, "0", 1) != 1)
		rc = -errno;
	close(fd);
	return rc;
}

/* The same for <mnt>/<rel>: 0 or -errno. */
static int join_one(int mnt, char *rel)
{
	int dfd = open_cgroup(mnt, rel, NULL, NULL), rc;

	if (dfd < 0)
		return dfd;
	rc = join_dir(dfd);
	close(dfd);
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
	ssize_t n;
	int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = fdio_read_buf(fd, mine, sizeof(mine), 0);
	close(fd);
	return n == (ssize_t)len && memcmp(mine, text, len) == 0;
}

/* /proc/<pid>/cgroup of t, checked: each line's controllers and path. */
struct cg_lines {
	char buf[CG_FILE_MAX];
	char *ctrls[CG_MAX_LINES], *path[CG_MAX_LINES];
	int n;
	bool ours;              /* exactly jsym's own */
};

/* Read and check the cgroup file of /proc/<pid> (procfd) into c: 0 or
 * -errno (-EPROTO: forged). */
static int read_lines(int procfd, struct cg_lines *c)
{
	char seen[CG_MAX_LINES][72], *save = NULL, *line;
	size_t len;
	ssize_t r;
	int fd;

	c->n = 0;
	fd = confine_proc(procfd, "cgroup", O_RDONLY);
	if (fd < 0)
		return fd;
	r = fdio_read_buf(fd, c->buf, sizeof(c->buf) - 1, 0);
	close(fd);
	if (r < 0)
		return (int)r;
	len = (size_t)r;
	if (len == sizeof(c->buf) - 1)
		return -E2BIG;
	c->buf[len] = '\0';
	c->ours = same_as_ours(c->buf, len);
	/* "ID:CONTROLLERS:PATH" per line; check them all before acting */
	for (line = strtok_r(c->buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		int n = c->n;

		if (!c2 || c2[1] != '/' || n == CG_MAX_LINES || c2 - line >= 72)
			return -EPROTO;
		snprintf(seen[n], sizeof(seen[n]), "%.*s", (int)(c2 - line), line);
		for (int i = 0; i < n; i++)
			if (!strcmp(seen[i], seen[n]) ||
			    !strncmp(seen[i], line, (size_t)(c1 - line + 1)) ||
			    !strcmp(strchr(seen[i], ':'), strchr(seen[n], ':')))
				return -EPROTO;   /* a hierarchy twice: forged */
		*c2 = '\0';
		c->ctrls[n] = c1 + 1;
		c->path[n] = c2 + 1;
		c->n++;
	}
	return 0;
}

int deploy_cgroup_join(const struct target *t)
{
	struct cg_lines c;
	int joined = 0, rc = read_lines(t->proc_fd, &c);

	/* already there (a host JVM of our own session): moving costs a
	 * cgroup migration, which waits for the kernel's global lock */
	if (rc || c.ours)
		return rc;
	rc = -ENOENT;
	for (int i = 0; i < c.n; i++) {
		int mnt = mount_of(c.ctrls[i]), one;

		if (mnt < 0)
			continue;
		one = join_one(mnt, c.path[i]);
		close(mnt);
		if (one == 0)
			joined++;
		else
			rc = one;
	}
	return joined ? 0 : rc;
}

/* Does the controller list ("cpu,cpuacct") name `memory`? */
static bool has_memory(const char *ctrls)
{
	size_t n = strlen("memory");

	for (const char *p = ctrls; (p = strstr(p, "memory")); p += n)
		if ((p == ctrls || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* The line of t's memory controller: v1's `memory` hierarchy, else the
 * unified one (v2).  Its index in c, or -ENOENT. */
static int memory_line(const struct cg_lines *c, bool *v2)
{
	for (int i = 0; i < c->n; i++)
		if (has_memory(c->ctrls[i])) {
			*v2 = false;
			return i;
		}
	for (int i = 0; i < c->n; i++)
		if (!c->ctrls[i][0]) {
			*v2 = true;
			return i;
		}
	return -ENOENT;
}

/* The directory of the memory cgroup that /proc/<pid> (procfd) is in,
 * opened without a move (-EXDEV: outside our cgroup namespace), into *dfd;
 * *ours when that file is exactly jsym's own.  0 or -errno. */
static int memory_dir_of(int procfd, int *dfd, bool *ours)
{
	struct cg_lines c;
	bool v2;
	int rc = read_lines(procfd, &c), i, mnt;

	*dfd = -1;
	*ours = false;
	if (rc)
		return rc;
	*ours = c.ours;
	i = memory_line(&c, &v2);
	if (i < 0)
		return i;
	mnt = mount_of(c.ctrls[i]);
	if (mnt < 0)
		return -ENOENT;
	rc = open_cgroup(mnt, c.path[i], NULL, NULL);
	close(mnt);
	if (rc < 0)
		return rc;
	*dfd = rc;
	return 0;
}

int deploy_cgroup_join_memory(const struct target *t, int *back)
{
	bool ours;
	int self, dfd, rc;

	/* Where we are now, opened before the move: read after it,
	 * /proc/self/cgroup would name the JVM's cgroup, and "going back"
	 * would leave us there for the rest of the load (issue 24 row 4).
	 * Without a way back we do not move at all. */
	*back = -1;
	self = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (self < 0)
		return -errno;
	rc = memory_dir_of(self, back, &ours);
	close(self);
	if (rc)
		return rc;
	rc = memory_dir_of(t->proc_fd, &dfd, &ours);
	if (rc == 0 && ours) {
		close(dfd);      /* already there: nothing to come back from */
		dfd = -1;
	}
	if (rc == 0 && dfd >= 0) {
		rc = join_dir(dfd);
		close(dfd);
		if (rc == 0)
			return 0;
	}
	close(*back);
	*back = -1;
	return rc;
}

int deploy_cgroup_return_memory(int back)
{
	int rc;

	if (back < 0)
		return 0;
	rc = join_dir(back);
	close(back);
	return rc;
}

/* A cgroup file's text (one read: the kernel makes it whole) into
 * buf[cap], NUL-terminated: 0 or -errno. */
static int read_text_at(int dfd, const char *name, char *buf, size_t cap)
{
	ssize_t n;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EPROTO;
	buf[n] = '\0';
	return 0;
}

/* A cgroup file holding one number, or "max" (UINT64_MAX): 0 or -errno. */
static int read_u64_at(int dfd, const char *name, uint64_t *v)
{
	char buf[32], *end;
	int rc = read_text_at(dfd, name, buf, sizeof(buf));

	if (rc)
		return rc;
	if (!strncmp(buf, "max", 3)) {
		*v = UINT64_MAX;
		return 0;
	}
	if (buf[0] < '0' || buf[0] > '9')
		return -EPROTO;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return errno || (*end != '\n' && *end) ? -EPROTO : 0;
}

/* The room below one level's own limit, kept when it is the least so far
 * (ctx: struct room). */
struct room {
	bool v2;
	uint64_t least;
};

/* The value of `key` in dfd's memory.stat ("key value" lines): 0 or -errno. */
static int read_stat_at(int dfd, const char *key, uint64_t *v)
{
	char buf[8192], *line, *save = NULL;
	size_t klen = strlen(key);
	int rc = read_text_at(dfd, "memory.stat", buf, sizeof(buf));

	if (rc)
		return rc;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, key, klen) && line[klen] == ' ') {
			char *end;

			errno = 0;
			*v = strtoull(line + klen + 1, &end, 10);
			return errno || *end ? -EPROTO : 0;
		}
	return -ENOENT;
}

static void level_room(int dfd, void *ctx)
{
	struct room *r = ctx;
	uint64_t limit, usage, cache = 0, room;

	if (read_u64_at(dfd, r->v2 ? "memory.max" : "memory.limit_in_bytes", &limit) ||
	    read_u64_at(dfd, r->v2 ? "memory.current" : "memory.usage_in_bytes", &usage))
		return;
	/* v1 writes "no limit" as the largest page-aligned long */
	if (limit >= (UINT64_MAX >> 2))
		return;
	/* the inactive page cache is what the kernel reclaims first, before
	 * any OOM kill (the kubelet's working set leaves it out too) */
	if (read_stat_at(dfd, r->v2 ? "inactive_file" : "total_inactive_file", &cache) == 0 &&
	    cache < usage)
		usage -= cache;
	room = usage >= limit ? 0 : limit - usage;
	if (room < r->least)
		r->least = room;
}

int deploy_cgroup_memory_room(const struct target *t, uint64_t *room)
{
	struct cg_lines c;
	struct room r = { .least = UINT64_MAX };
	int rc = read_lines(t->proc_fd, &c), i, mnt, dfd;

	*room = UINT64_MAX;
	if (rc)
		return rc;
	i = memory_line(&c, &r.v2);
	if (i < 0)
		return i;
	mnt = mount_of(c.ctrls[i]);
	if (mnt < 0)
		return -ENOENT;
	/* every level down to the JVM's: a pod's limit sits above its
	 * containers' */
	dfd = open_cgroup(mnt, c.path[i], level_room, &r);
	close(mnt);
	if (dfd < 0)
		return dfd;
	close(dfd);
	*room = r.least;
	return 0;
}
