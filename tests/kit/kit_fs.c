/* SPDX-License-Identifier: Apache-2.0 */
/* tests/kit/kit_fs.c - a container's filesystem: overlay root, /proc, /dev,
 * private /tmp, bind mounts, pivot_root.  See kit_helper.h. */
#include "kit_helper.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Format the reason, return -e (e is a positive errno saved by the caller). */
static int fs_fail(char *err, size_t errlen, int e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fs_fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	n = strlen(err);
	snprintf(err + n, errlen - n, ": %s", strerror(e));
	return -e;
}

static int fs_mount(const char *src, const char *dst, const char *type,
		    unsigned long flags, const char *data, char *err, size_t errlen)
{
	if (mount(src, dst, type, flags, data) == 0)
		return 0;
	return fs_fail(err, errlen, errno, "cannot mount %s on %s (%s)",
		       src ? src : "(none)", dst, data ? data : type ? type : "bind");
}

/* buf = a + b; -ENAMETOOLONG if it does not fit. */
static int fs_join(char *buf, size_t len, const char *a, const char *b, char *err, size_t errlen)
{
	int n = snprintf(buf, len, "%s%s", a, b);

	if (n < 0 || (size_t)n >= len)
		return fs_fail(err, errlen, ENAMETOOLONG, "path too long: %s%s", a, b);
	return 0;
}

/* mkdir -p below base; components come from a trusted rootfs. */
static int fs_mkdirs(const char *base, const char *rel, char *err, size_t errlen)
{
	char path[PATH_MAX];
	size_t n;

	if (snprintf(path, sizeof(path), "%s/%s", base, rel) >= (int)sizeof(path))
		return fs_fail(err, errlen, ENAMETOOLONG, "path too long: %s", rel);
	n = strlen(base) + 1;
	for (char *p = path + n; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			if (mkdir(path, 0755) < 0 && errno != EEXIST)
				return fs_fail(err, errlen, errno, "cannot create %s", path);
			*p = c;
			if (c == '\0')
				break;
		}
	}
	return 0;
}

/* An empty file to bind a file over (parent directories created). */
static int fs_touch(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);

	if (fd < 0)
		return fs_fail(err, errlen, errno, "cannot create %s", path);
	close(fd);
	return 0;
}

/*
 * Rootless only: the bind mountpoints, made in the overlay's upper layer
 * before the overlay is mounted.  The cached tree belongs to host root,
 * which a user namespace does not map, so its root cannot create anything
 * in a lower directory (no capability applies to an unmapped owner); a
 * directory already in the upper layer makes the merged one its own.  Each
 * directory takes the lower one's mode where that exists.
 */
static int fs_upper_mountpoints(const struct kit_fs *fs, const char *upper,
				char *err, size_t errlen)
{
	char rel[PATH_MAX], lower[PATH_MAX], path[PATH_MAX];
	struct stat st;

	for (int i = 0; i < fs->nbinds; i++) {
		const char *ct = fs->binds[i].ct + 1;
		char *end;
		int r;

		if (snprintf(rel, sizeof(rel), "%s", ct) >= (int)sizeof(rel))
			return fs_fail(err, errlen, ENAMETOOLONG, "path too long: /%s", ct);
		/* A file's mountpoint is made by fs_bind; its parents here. */
		if (stat(fs->binds[i].host, &st) == 0 && !S_ISDIR(st.st_mode)) {
			end = strrchr(rel, '/');
			if (!end)
				continue;
			*end = '\0';
		}
		if ((r = fs_mkdirs(upper, rel, err, errlen)) < 0)
			return r;
		/* Each component, shortest first: the lower directory's mode. */
		for (end = rel; ; end++) {
			char c = *end;

			if (c != '/' && c != '\0')
				continue;
			*end = '\0';
			if (snprintf(lower, sizeof(lower), "%s/%s", fs->rootfs, rel) < (int)sizeof(lower) &&
			    snprintf(path, sizeof(path), "%s/%s", upper, rel) < (int)sizeof(path) &&
			    stat(lower, &st) == 0 && S_ISDIR(st.st_mode) &&
			    chmod(path, st.st_mode & 07777) < 0)
				return fs_fail(err, errlen, errno, "cannot chmod %s", path);
			*end = c;
			if (c == '\0')
				break;
		}
	}
	return 0;
}

static int fs_overlay_root(const struct kit_fs *fs, char *root, size_t rootlen,
			   char *err, size_t errlen)
{
	char rw[PATH_MAX], opts[3 * PATH_MAX + 64];
	int r;

	if ((r = fs_join(root, rootlen, fs->state, "/root", err, errlen)) < 0 ||
	    (r = fs_join(rw, sizeof(rw), fs->state, "/rw", err, errlen)) < 0)
		return r;
	if ((r = fs_mkdirs(fs->state, "root", err, errlen)) < 0 ||
	    (r = fs_mkdirs(fs->state, "rw", err, errlen)) < 0)
		return r;
	/* The writable layer lives in memory and dies with the namespace, so
	 * the cached tree is never modified by a container. */
	r = fs_mount("jsym-kit-rw", rw, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755", err, errlen);
	if (r < 0)
		return r;
	if ((r = fs_mkdirs(rw, "upper", err, errlen)) < 0 ||
	    (r = fs_mkdirs(rw, "work", err, errlen)) < 0)
		return r;
	if (fs->userns) {
		char upper[PATH_MAX];

		if ((r = fs_join(upper, sizeof(upper), rw, "/upper", err, errlen)) < 0 ||
		    (r = fs_upper_mountpoints(fs, upper, err, errlen)) < 0)
			return r;
	}
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s/upper,workdir=%s/work",
		 fs->rootfs, rw, rw);
	if (mount("jsym-kit-root", root, "overlay", 0, opts) == 0)
		return 0;
	if (errno != ENODEV)
		return fs_fail(err, errlen, errno, "cannot mount an overlay of %s on %s",
			       fs->rootfs, root);
	/* No overlayfs in this kernel: a read-only bind of the tree keeps it
	 * unmodified; /proc, /dev, /tmp still get their own mounts on top. */
	if ((r = fs_mount(fs->rootfs, root, NULL, MS_BIND | MS_REC, NULL, err, errlen)) < 0)
		return r;
	return fs_mount(NULL, root, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL, err, errlen);
}

static int fs_dev(const char *root, char *err, size_t errlen)
{
	static const char *const nodes[] = { "null", "zero", "full", "urandom", "random", "tty" };
	static const char *const links[][2] = {
		{ "/proc/self/fd", "fd" }, { "/proc/self/fd/0", "stdin" },
		{ "/proc/self/fd/1", "stdout" }, { "/proc/self/fd/2", "stderr" },
	};
	char dev[PATH_MAX], path[PATH_MAX + 16], host[32];
	int r;

	if ((r = fs_join(dev, sizeof(dev), root, "/dev", err, errlen)) < 0 ||
	    (r = fs_mkdirs(root, "dev", err, errlen)) < 0)
		return r;
	r = fs_mount("jsym-kit-dev", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k",
		     err, errlen);
	if (r < 0)
		return r;
	/* Device nodes are bound from the host: mknod would need more than a
	 * test kit should assume, and binds carry the real devices. */
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dev, nodes[i]);
		snprintf(host, sizeof(host), "/dev/%s", nodes[i]);
		if ((r = fs_touch(path, err, errlen)) < 0 ||
		    (r = fs_mount(host, path, NULL, MS_BIND, NULL, err, errlen)) < 0)
			return r;
	}
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dev, links[i][1]);
		if (symlink(links[i][0], path) < 0)
			return fs_fail(err, errlen, errno, "cannot create %s", path);
	}
	if ((r = fs_mkdirs(dev, "shm", err, errlen)) < 0)
		return r;
	snprintf(path, sizeof(path), "%s/shm", dev);
	return fs_mount("jsym-kit-shm", path, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777",
			err, errlen);
}

static int fs_tmp(const struct kit_fs *fs, const char *root, char *err, size_t errlen)
{
	char path[PATH_MAX], opts[128];
	int r;

	if ((r = fs_mkdirs(root, "tmp", err, errlen)) < 0)
		return r;
	if ((r = fs_join(path, sizeof(path), root, "/tmp", err, errlen)) < 0)
		return r;
	if (fs->tmp_size)
		snprintf(opts, sizeof(opts), "mode=1777,size=%s", fs->tmp_size);
	else
		snprintf(opts, sizeof(opts), "mode=1777");
	return fs_mount("jsym-kit-tmp", path, "tmpfs", MS_NOSUID | MS_NODEV |
			(fs->tmp_noexec ? MS_NOEXEC : 0), opts, err, errlen);
}

static int fs_bind(const struct kit_bind *b, const char *root, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct stat st;
	int r;

	if (stat(b->host, &st) < 0)
		return fs_fail(err, errlen, errno, "cannot bind %s", b->host);
	if ((r = fs_join(path, sizeof(path), root, b->ct, err, errlen)) < 0)
		return r;
	if (S_ISDIR(st.st_mode)) {
		r = fs_mkdirs(root, b->ct + 1, err, errlen);
	} else {
		char *slash = strrchr(path, '/');

		*slash = '\0';
		r = fs_mkdirs(root, path + strlen(root) + 1, err, errlen);
		*slash = '/';
		if (r == 0 && access(path, F_OK) < 0)
			r = fs_touch(path, err, errlen);
	}
	if (r < 0)
		return r;
	if ((r = fs_mount(b->host, path, NULL, MS_BIND | MS_REC, NULL, err, errlen)) < 0)
		return r;
	/* A bind mount ignores MS_RDONLY until it is remounted. */
	if (b->ro)
		r = fs_mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL, err, errlen);
	return r;
}

int kit_fs_enter(const struct kit_fs *fs, char *err, size_t errlen)
{
	char root[PATH_MAX], path[PATH_MAX + 8];
	int r;

	/* Everything below must stay in this namespace: cut propagation to the
	 * host before the first mount. */
	if ((r = fs_mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL, err, errlen)) < 0)
		return r;
	if ((r = fs_overlay_root(fs, root, sizeof(root), err, errlen)) < 0)
		return r;
	if ((r = fs_mkdirs(root, "proc", err, errlen)) < 0)
		return r;
	if ((r = fs_join(path, sizeof(path), root, "/proc", err, errlen)) < 0)
		return r;
	/* proc shows the pid namespace of the mounting process: ours. */
	r = fs_mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL, err, errlen);
	if (r < 0)
		return r;
	if ((r = fs_dev(root, err, errlen)) < 0 || (r = fs_tmp(fs, root, err, errlen)) < 0)
		return r;
	for (int i = 0; i < fs->nbinds; i++)
		if ((r = fs_bind(&fs->binds[i], root, err, errlen)) < 0)
			return r;
	/* Read-only /tmp is applied last so binds below /tmp still get their
	 * mountpoints created. */
	if (fs->tmp_ro) {
		if ((r = fs_join(path, sizeof(path), root, "/tmp", err, errlen)) < 0)
			return r;
		r = fs_mount(NULL, path, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV |
			     (fs->tmp_noexec ? MS_NOEXEC : 0), NULL, err, errlen);
		if (r < 0)
			return r;
	}
	/* pivot_root(".", ".") stacks the old root under the new one; detaching
	 * it leaves the container's tree as the namespace root, so anyone who
	 * later joins this mount namespace (nsenter, setns) lands in it too,
	 * which chroot would not give. */
	if (chdir(root) < 0)
		return fs_fail(err, errlen, errno, "cannot chdir to %s", root);
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		return fs_fail(err, errlen, errno, "pivot_root into %s failed", root);
	if (umount2(".", MNT_DETACH) < 0)
		return fs_fail(err, errlen, errno, "cannot detach the old root");
	if (chdir("/") < 0)
		return fs_fail(err, errlen, errno, "cannot chdir to the new root");
	return 0;
}

int kit_net_lo_up(char *err, size_t errlen)
{
	struct ifreq ifr;
	int fd, e;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fs_fail(err, errlen, errno, "cannot open a socket to configure lo");
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		goto fail;
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		goto fail;
	close(fd);
	return 0;
fail:
	e = errno;
	close(fd);
	return fs_fail(err, errlen, e, "cannot bring lo up");
}
