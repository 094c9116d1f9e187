/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lock.c - one jsym at a time per containerized JVM, from deciding what it
 * loads to the load's reply: otherwise two could both see no agent mapped
 * and hand over two memfds, or a memfd and a copy, i.e. two agents
 * (docs/protocols.md E5, E8).
 *
 * A flock is taken by anyone who can open the file, so the lock must be
 * on a file only jsym can open.  It used to be the container's root
 * directory, which every process of the container can open: `flock /` as
 * uid 65534 made every attach of that container give up (issue 24 row 6).
 * The lock is now a file of jsym's own, outside the container, named by
 * the identity of the container's root (device and inode, the same for
 * every mount namespace that sees it): /run/jsym/root-<dev>-<ino>.lock,
 * else (a read-only /run: the DaemonSet) /tmp/.jsym-locks-<euid>/.  Its
 * directory must be a real directory of our euid that nobody else can
 * write, and the file a regular one of ours with one link; anything else
 * there is refused, not used.
 *
 * jsyms in other mount namespaces (a sidecar, a DaemonSet pod, the host)
 * do not share that directory; for them the container's root directory
 * is flocked as well, as before, but only for a short while
 * (ROOT_WAIT_MS): a holder that keeps it longer than any attach takes is
 * not a jsym at work, and the attach goes on without it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "confine.h"
#include "deploy.h"
#include "deploy_int.h"
#include "target.h"

#define ROOT_WAIT_MS 1000

/* dir, made if missing (0700), when it is ours alone: an O_PATH dirfd or
 * -errno. */
static int own_dir(const char *dir)
{
	struct stat st;
	int fd;

	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -errno;
	fd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		close(fd);
		return -EPERM;  /* another user's, or writable by others */
	}
	return fd;
}

/* The lock file of the root (dev, ino) in the first usable directory:
 * an fd or -errno. */
static int open_lock_file(dev_t dev, ino_t ino, char *path, size_t cap)
{
	char tmp[64], name[80];
	const char *dirs[] = { "/run/jsym", tmp };
	int rc = -ENOENT;

	snprintf(tmp, sizeof(tmp), "/tmp/.jsym-locks-%u", (unsigned)geteuid());
	snprintf(name, sizeof(name), "root-%llx-%llx.lock", (unsigned long long)dev,
		 (unsigned long long)ino);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		struct stat st;
		int dfd = own_dir(dirs[i]), fd;

		if (dfd < 0) {
			rc = dfd;
			continue;
		}
		fd = openat(dfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
			    0600);
		close(dfd);
		if (fd < 0) {
			rc = -errno;
			continue;
		}
		if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
		    st.st_nlink != 1) {
			close(fd);
			rc = -EPERM;
			continue;
		}
		snprintf(path, cap, "%s/%s", dirs[i], name);
		return fd;
	}
	return rc;
}

int deploy_lock_jvm(const struct target *t, int timeout_ms, int fds[2],
		    const struct attach_log *log, struct err_text *e)
{
	char path[160];
	struct stat st;
	long deadline = clock_ms() + timeout_ms;
	int fd, rc;

	fds[0] = fds[1] = -1;
	if (!t->ns[TNS_MNT].known || !t->ns[TNS_MNT].differs || t->root_fd < 0)
		return 0;
	if (fstat(t->root_fd, &st) != 0)
		return 0;       /* cannot see its /: nothing to serialise on */
	fd = open_lock_file(st.st_dev, st.st_ino, path, sizeof(path));
	if (fd < 0) {
		attach_step(log, "no lock of jsym's own for this container (/run/jsym, "
			    "/tmp/.jsym-locks-%u: %s): only the container's / is locked",
			    (unsigned)geteuid(), strerror(-fd));
	} else {
		rc = fdio_lock_until(fd, FDIO_FLOCK, deadline);
		if (rc) {
			close(fd);
			return err_set(e, rc, "another jsym has been attaching this JVM's "
				       "container for %d ms (it holds %s): %s", timeout_ms,
				       path, strerror(-rc));
		}
		fds[0] = fd;
		attach_step(log, "locked %s against concurrent jsyms", path);
	}
	/* jsyms of other mount namespaces: bounded, then without it (with no
	 * lock of our own it is the only one, and waited for as before) */
	fd = confine_open(t->proc_fd, t->root_fd, ".", O_RDONLY | O_DIRECTORY, 0, NULL);
	if (fd < 0)
		return 0;       /* cannot read its / (or it may stall): nothing to serialise on */
	if (fds[0] >= 0 && deadline > clock_ms() + ROOT_WAIT_MS)
		deadline = clock_ms() + ROOT_WAIT_MS;
	rc = fdio_lock_until(fd, FDIO_FLOCK, deadline);
	if (rc && fds[0] < 0) {
		close(fd);
		return err_set(e, rc, "another jsym has been attaching this JVM's "
			       "container for %d ms (or a process in it holds the lock "
			       "on its /): %s", timeout_ms, strerror(-rc));
	}
	if (rc) {
		close(fd);
		attach_step(log, "the container's / stayed locked for %d ms (a jsym in "
			    "another mount namespace, or a process of the container): "
			    "going on without that lock", ROOT_WAIT_MS);
		return 0;
	}
	fds[1] = fd;
	attach_step(log, "locked the container's / against jsyms of other mount "
		    "namespaces");
	return 0;
}
