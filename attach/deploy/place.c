/* SPDX-License-Identifier: Apache-2.0 */
/*
 * place.c - copy both agent builds and their probes into the container:
 * <tmp>/jsym-<hash>-<nspid>-<starttime>/{glibc,musl}/{libjsym-agent.so,jsym-probe}.
 *
 * Everything in the container is untrusted.  The temp dir is opened from
 * the target's root dirfd by the confined open (common/confine.h: a walk
 * with RESOLVE_IN_ROOT's rules, no FUSE or network file system) and must
 * itself be a real directory (not a symlink), sticky if world-writable.
 * Below it every step
 * works on descriptors: mkdirat then openat(O_NOFOLLOW|O_DIRECTORY), files
 * looked at through O_PATH|O_NOFOLLOW (opening a FIFO or device for reading
 * could block or act), new files written through O_TMPFILE and linked in
 * with linkat (which never replaces), ownership set with fchown/fchmod on
 * the descriptor.  Existing files are reused only when they are regular,
 * singly linked, owned by the JVM's uid and byte-identical; anything else
 * planted there is refused with its name, never followed or changed.
 * Concurrent jsyms take turns on a flock of the directory, and a file the
 * JVM may already have mapped is never replaced (a new inode under the same
 * name would make the next `load` map a second agent).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "base.h"
#include "deploy.h"
#include "deploy_int.h"
#include "target.h"

#define RESERVE_MIN (1u << 20)  /* leave at least 1 MiB free ... */
#define RESERVE_PCT 5           /* ... and 5% of the filesystem */
#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif
#ifndef RAMFS_MAGIC
#define RAMFS_MAGIC 0x858458f6
#endif

struct place {
	const struct target *t;
	const struct deploy_builds *b;
	uid_t uid;
	gid_t gid;
	char where[PATH_MAX];   /* the directory, as the JVM names it */
	struct err_text *e;
	int cg_back;            /* while charging the JVM: our cgroup (-1: none) */
};

static const char *kind_of(mode_t m)
{
	return S_ISLNK(m) ? "a symlink" : S_ISFIFO(m) ? "a FIFO" :
	       S_ISCHR(m) || S_ISBLK(m) ? "a device" : S_ISSOCK(m) ? "a socket" :
	       S_ISDIR(m) ? "a directory" : "a file";
}

/* A directory jsym may use: a real directory owned by the JVM's uid (or by
 * us, between a racing jsym's mkdir and its fchown). */
static int check_dir(struct place *p, int fd, const char *path)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return err_set(p->e, -errno, "cannot stat %s in the container: %s",
			       path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return err_set(p->e, -ENOTDIR, "%s in the container is %s, not a "
			       "directory: refusing to use it (remove it)", path,
			       kind_of(st.st_mode));
	if (st.st_uid != p->uid && st.st_uid != geteuid())
		return err_set(p->e, -EPERM, "%s in the container belongs to uid %u, "
			       "not to the JVM's uid %u: refusing to use it (another "
			       "user could swap its files; remove it)", path,
			       (unsigned)st.st_uid, (unsigned)p->uid);
	return 0;
}

/*
 * Make fd (ours or the JVM's already) mode 0755 and the JVM's.  chmod
 * first, while we own it: once the file is the JVM's, changing its mode
 * would need CAP_FOWNER.  Nothing is done that is already so (a reused
 * directory of the JVM's needs no capability at all).
 */
static int give(struct place *p, int fd, const char *path)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return err_set(p->e, -errno, "cannot stat %s: %s", path, strerror(errno));
	if ((st.st_mode & 07777) != 0755 && fchmod(fd, 0755) != 0)
		return err_set(p->e, -errno, "cannot chmod %s in the container: %s%s", path,
			       strerror(errno), errno == EPERM ? " (needs CAP_FOWNER: it "
			       "belongs to another user)" : "");
	if ((st.st_uid != p->uid || st.st_gid != p->gid) &&
	    fchown(fd, p->uid, p->gid) != 0)
		return err_set(p->e, -errno, "cannot give %s to uid %u gid %u: %s%s", path,
			       (unsigned)p->uid, (unsigned)p->gid, strerror(errno),
			       errno == EPERM ? " (needs CAP_CHOWN)" : "");
	return 0;
}

/* The error for a directory confine_open(O_DIRECTORY|O_NOFOLLOW) refused
 * (errno): nothing more is asked of what is there, which may be a mount
 * of a file system that never answers. */
static int refuse_open_dir(struct place *p, const char *path)
{
	int err = errno;

	if (err == ELOOP || err == ENOTDIR)
		return err_set(p->e, -ELOOP, "%s in the container is %s, not a "
			       "directory: refusing to follow or replace it "
			       "(remove it)", path, err == ELOOP ? "a symlink" :
			       "not a directory");
	return err_set(p->e, -err, "cannot open %s in the container: %s", path,
		       strerror(err));
}

/* Open (creating when missing) the directory `name` below dirfd. */
static int open_dir(struct place *p, int dirfd, const char *name,
		    const char *path, bool *created)
{
	int fd, rc;

	if (created)
		*created = false;
	fd = confine_open(p->t->proc_fd, dirfd, name, O_DIRECTORY | O_NOFOLLOW, 0, NULL);
	if (fd < 0 && errno == ENOENT) {
		if (mkdirat(dirfd, name, 0700) == 0) {
			if (created)
				*created = true;
		} else if (errno != EEXIST) {
			return err_set(p->e, -errno, "cannot create %s in the container: %s",
				       path, strerror(errno));
		}
		fd = confine_open(p->t->proc_fd, dirfd, name, O_DIRECTORY | O_NOFOLLOW, 0, NULL);
	}
	if (fd < 0)
		return refuse_open_dir(p, path);
	rc = check_dir(p, fd, path);
	if (rc == 0)
		rc = give(p, fd, path);
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

/*
 * Is `name` below dirfd already exactly f?  1 yes, 0 missing, -errno with
 * e set for anything planted (never opened for reading unless regular).
 */
static int existing_ok(struct place *p, int dirfd, const char *name,
		       const struct deploy_file *f, const char *path)
{
	struct err_text ce = { "" };
	struct stat st;
	char *data = NULL;
	ssize_t len = -1;
	int pfd, fd, rc, same;

	/* the checked inode, O_PATH: a planted device, FIFO or FUSE mount
	 * here is refused before anything opens it */
	pfd = confine_open(p->t->proc_fd, dirfd, name, O_PATH | O_NOFOLLOW, 0, &ce);
	if (pfd == -ENOENT)
		return 0;
	/* refused by its type: its mount passed, so lstat may name the kind */
	if ((pfd == -EINVAL || pfd == -ELOOP) &&
	    confine_stat(p->t->proc_fd, dirfd, name, O_NOFOLLOW, &st, NULL) == 0)
		return err_set(p->e, -EPERM, "%s in the container is %s: refusing "
			       "to use it (remove it)", path, kind_of(st.st_mode));
	if (pfd == -EINVAL || pfd == -ELOOP || pfd == -EREMOTE || pfd == -EPERM)
		return err_set(p->e, -EPERM, "%s in the container is not a plain file "
			       "of a local file system, refusing to use it (remove it): %s",
			       path, ce.msg);
	if (pfd < 0)
		return err_set(p->e, pfd, "cannot look at %s in the container: %s",
			       path, strerror(-pfd));
	if (fstat(pfd, &st) != 0) {
		rc = -errno;
		close(pfd);
		return err_set(p->e, rc, "cannot stat %s: %s", path, strerror(-rc));
	}
	if (st.st_nlink != 1 || st.st_uid != p->uid) {
		close(pfd);
		if (st.st_nlink != 1)
			return err_set(p->e, -EPERM, "%s in the container has %lu hard "
				       "links: refusing to use it (remove it)", path,
				       (unsigned long)st.st_nlink);
		return err_set(p->e, -EPERM, "%s in the container belongs to uid %u, "
			       "not the JVM's %u: refusing to use it (remove it)", path,
			       (unsigned)st.st_uid, (unsigned)p->uid);
	}
	/* the very inode just checked, not whatever the name holds now */
	fd = confine_reopen(pfd, O_RDONLY, NULL);
	close(pfd);
	if (fd < 0)
		return err_set(p->e, fd, "cannot read %s: %s", path, strerror(-fd));
	if ((size_t)st.st_size == f->size)
		len = fdio_read_all(fd, f->size + 1, &data);
	close(fd);
	same = len >= 0 && (size_t)len == f->size && memcmp(data, f->data, f->size) == 0;
	free(data);
	if (!same)
		return err_set(p->e, -EEXIST, "%s in the container differs from jsym's "
			       "build of the same name (damaged or planted): remove its "
			       "directory %s and attach again", path, p->where);
	return 1;
}

/* Write f as `name` below dirfd: O_TMPFILE + linkat, else an exclusive
 * temporary name + linkat + unlink. */
static int write_new(struct place *p, int dirfd, const char *name,
		     const struct deploy_file *f, const char *path)
{
	char tmpname[64], self[64];
	bool anon = true;
	int fd, rc;

	fd = confine_open(p->t->proc_fd, dirfd, ".", O_TMPFILE | O_WRONLY, 0600, NULL);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		anon = false;
		snprintf(tmpname, sizeof(tmpname), ".%s.%d", name, (int)getpid());
		fd = confine_open(p->t->proc_fd, dirfd, tmpname, O_CREAT | O_EXCL | O_WRONLY,
				  0600, NULL);
	}
	if (fd < 0)
		return err_set(p->e, -errno, "cannot create %s in the container: %s",
			       path, strerror(errno));
	rc = fdio_write_all(fd, f->data, f->size, 0);
	if (rc == 0 && (rc = give(p, fd, path)) != 0) {
		if (!anon)
			unlinkat(dirfd, tmpname, 0);
		close(fd);
		return rc;      /* give() said why */
	}
	if (rc == 0 && anon) {
		snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
		if (linkat(AT_FDCWD, self, dirfd, name, AT_SYMLINK_FOLLOW) != 0)
			rc = -errno;
	} else if (rc == 0) {
		/* a hard link never replaces; we hold the directory's lock */
		if (linkat(dirfd, tmpname, dirfd, name, 0) != 0)
			rc = -errno;
	}
	if (!anon)
		unlinkat(dirfd, tmpname, 0);
	close(fd);
	if (rc == -ENOSPC || rc == -EDQUOT)
		return err_set(p->e, rc, "the container's %s filled up while jsym "
			       "copied %s (%zu bytes): nothing was left there", deploy_tmpdir(p->t),
			       path, f->size);
	if (rc)
		return err_set(p->e, rc, "cannot write %s in the container: %s", path,
			       strerror(-rc));
	return 0;
}

static int install(struct place *p, int dirfd, const char *name,
		   const struct deploy_file *f, const char *path)
{
	int rc = existing_ok(p, dirfd, name, f, path);

	if (rc == 0)
		rc = write_new(p, dirfd, name, f, path);
	/* lost a race with another jsym: it linked the same bytes first */
	if (rc == -EEXIST && existing_ok(p, dirfd, name, f, path) == 1)
		rc = 0;
	return rc < 0 ? rc : 0;
}

/* Free space for `need` more bytes, keeping the reserve.  0 or -errno. */
static int check_space(struct place *p, int tmpfd, const char *tmp, size_t need)
{
	struct statvfs v;
	unsigned long long avail, total, reserve;

	if (fstatvfs(tmpfd, &v) != 0)
		return err_set(p->e, -errno, "cannot statfs %s in the container: %s",
			       tmp, strerror(errno));
	if (v.f_flag & ST_RDONLY)
		return err_set(p->e, -EROFS, "the container's %s is read-only", tmp);
	if (v.f_flag & ST_NOEXEC)
		return err_set(p->e, -EACCES, "the container's %s is mounted noexec: a "
			       "library there cannot be loaded", tmp);
	avail = (unsigned long long)v.f_bavail * v.f_frsize;
	total = (unsigned long long)v.f_blocks * v.f_frsize;
	reserve = total / 100 * RESERVE_PCT;
	if (reserve < RESERVE_MIN)
		reserve = RESERVE_MIN;
	if (avail < need + reserve)
		return err_set(p->e, -ENOSPC, "the container's %s has %llu KiB free of "
			       "%llu KiB; jsym needs %zu KiB for the agents and leaves at "
			       "least %llu KiB free (a full /tmp gets pods evicted): "
			       "nothing was written", tmp, avail >> 10, total >> 10,
			       (need + 1023) >> 10, reserve >> 10);
	return 0;
}

/*
 * A memory-backed /tmp (tmpfs, e.g. a pod's emptyDir of medium Memory)
 * holds its files in pages charged to the memory cgroup of whoever writes
 * them.  The copies are the JVM's container's, so they are charged to it:
 * this process joins the JVM's memory cgroup for the writing (p->cg_back,
 * undone by uncharge()).  Unless the container, or a cgroup above it,
 * would then have less than DEPLOY_MEM_RESERVE left below its limit: a
 * container at its limit gets its JVM killed, so the copy is refused
 * (-EDQUOT), and the caller delivers from a memfd, charged to jsym.  0 or
 * -EDQUOT.
 */
static int charge_to_jvm(struct place *p, int tmpfd, const char *tmp, size_t need,
			 const struct attach_log *log)
{
	struct statfs sf;
	uint64_t room;
	char how[64];
	uid_t fsuid;
	int rc;

	if (fstatfs(tmpfd, &sf) != 0 ||
	    ((unsigned long)sf.f_type != TMPFS_MAGIC && (unsigned long)sf.f_type != RAMFS_MAGIC))
		return 0;
	rc = deploy_cgroup_memory_room(p->t, &room);
	if (rc == 0 && room != UINT64_MAX && room < need + DEPLOY_MEM_RESERVE)
		return err_set(p->e, -EDQUOT, "the JVM's container has %llu KiB left below "
			       "its memory limit, and the copies (%zu KiB) in its "
			       "memory-backed %s would count against it: jsym leaves at "
			       "least %u MiB (a container at its limit gets its JVM "
			       "killed); nothing was written", (unsigned long long)room >> 10,
			       (need + 1023) >> 10, tmp, DEPLOY_MEM_RESERVE >> 20);
	if (rc)
		snprintf(how, sizeof(how), "its limit unknown: %s", strerror(-rc));
	else if (room == UINT64_MAX)
		snprintf(how, sizeof(how), "no limit");
	else
		snprintf(how, sizeof(how), "%llu KiB left below its limit",
			 (unsigned long long)room >> 10);
	/* cgroup.procs is root's: joined with our own file-system ids */
	fsuid = (uid_t)setfsuid((uid_t)-1);
	setfsuid(geteuid());
	rc = deploy_cgroup_join_memory(p->t, &p->cg_back);
	setfsuid(fsuid);
	if (rc)
		attach_step(log, "%s is memory-backed; cannot join the JVM's memory cgroup "
			    "(%s): the copies count against jsym's (%s)", tmp, strerror(-rc), how);
	else
		attach_step(log, "%s is memory-backed: the copies count against the JVM's "
			    "memory cgroup (%s)", tmp, how);
	return 0;
}

/* Back to our own memory cgroup once the copies are written (what they
 * took stays charged to the JVM's). */
static void uncharge(struct place *p)
{
	uid_t fsuid = (uid_t)setfsuid((uid_t)-1);

	setfsuid(geteuid());
	(void)deploy_cgroup_return_memory(p->cg_back);
	setfsuid(fsuid);
	p->cg_back = -1;
}

static int lock_dir(struct place *p, int fd, int timeout_ms)
{
	int rc = fdio_lock_until(fd, FDIO_FLOCK, clock_ms() + timeout_ms);

	if (rc == -ETIMEDOUT)
		return err_set(p->e, rc, "%s stayed locked for %d ms (another jsym "
			       "attaching, or a process in the container holding its "
			       "lock)", p->where, timeout_ms);
	if (rc)
		return err_set(p->e, rc, "cannot lock %s: %s", p->where, strerror(-rc));
	return 0;
}

/* Remove what a failed first placement created (known names only). */
static void undo(const struct target *t, int tmpfd, const char *name)
{
	int dfd = confine_open(t->proc_fd, tmpfd, name, O_DIRECTORY | O_NOFOLLOW, 0, NULL);

	if (dfd < 0)
		return;
	for (int l = 0; l < DEPLOY_NLIBC; l++) {
		int sfd = confine_open(t->proc_fd, dfd, deploy_libc_name(l),
				       O_DIRECTORY | O_NOFOLLOW, 0, NULL);

		if (sfd >= 0) {
			unlinkat(sfd, DEPLOY_AGENT_NAME, 0);
			unlinkat(sfd, DEPLOY_PROBE_NAME, 0);
			close(sfd);
		}
		unlinkat(dfd, deploy_libc_name(l), AT_REMOVEDIR);
	}
	close(dfd);
	unlinkat(tmpfd, name, AT_REMOVEDIR);
}

/* Bytes still to write below an existing directory (nothing is created
 * here); planted files are refused now, before anything is written. */
static int measure(struct place *p, int dfd, size_t *missing)
{
	for (int l = 0; l < DEPLOY_NLIBC; l++) {
		const struct deploy_file *f[2] = { &p->b->agent[l], &p->b->probe[l] };
		const char *names[2] = { DEPLOY_AGENT_NAME, DEPLOY_PROBE_NAME };
		const char *ln = deploy_libc_name(l);
		char path[PATH_MAX + 64];
		int sfd, rc = 0;

		sfd = confine_open(p->t->proc_fd, dfd, ln, O_DIRECTORY | O_NOFOLLOW, 0, NULL);
		if (sfd < 0 && errno == ENOENT) {
			*missing += f[0]->size + f[1]->size + 4096;
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", p->where, ln);
		if (sfd < 0)
			return refuse_open_dir(p, path);
		rc = check_dir(p, sfd, path);
		for (int i = 0; i < 2 && rc >= 0; i++) {
			snprintf(path, sizeof(path), "%s/%s/%s", p->where, ln, names[i]);
			rc = existing_ok(p, sfd, names[i], f[i], path);
			if (rc == 0)
				*missing += f[i]->size;
		}
		close(sfd);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int fill(struct place *p, int dfd)
{
	int rc = 0;

	for (int l = 0; l < DEPLOY_NLIBC && rc == 0; l++) {
		const char *ln = deploy_libc_name(l);
		char path[PATH_MAX + 64];
		int sfd;

		snprintf(path, sizeof(path), "%s/%s", p->where, ln);
		sfd = open_dir(p, dfd, ln, path, NULL);
		if (sfd < 0)
			return sfd;
		snprintf(path, sizeof(path), "%s/%s/%s", p->where, ln, DEPLOY_AGENT_NAME);
		rc = install(p, sfd, DEPLOY_AGENT_NAME, &p->b->agent[l], path);
		snprintf(path, sizeof(path), "%s/%s/%s", p->where, ln, DEPLOY_PROBE_NAME);
		if (rc == 0)
			rc = install(p, sfd, DEPLOY_PROBE_NAME, &p->b->probe[l], path);
		close(sfd);
	}
	return rc;
}

static int place_all(const struct target *t, const struct deploy_builds *b,
		     const struct deploy_opts *o, struct deploy_result *r,
		     const struct attach_log *log, struct err_text *e)
{
	struct place p = { .t = t, .b = b, .uid = t->st.uid[1], .gid = t->st.gid[1], .e = e,
			   .cg_back = -1 };
	const char *tmp = deploy_tmpdir(t);
	char name[64];
	size_t need = 0;
	struct stat st;
	int tmpfd, dfd = -1, rc;

	deploy_dir_name(t, b, name, sizeof(name));
	snprintf(p.where, sizeof(p.where), "%s/%s", tmp, name);
	tmpfd = confine_open(t->proc_fd, t->root_fd, tmp, O_PATH | O_DIRECTORY | O_NOFOLLOW,
			     0, NULL);
	if (tmpfd < 0) {
		if (tmpfd == -ELOOP || tmpfd == -ENOTDIR)
			return err_set(e, tmpfd, "the container's %s is not a directory "
				       "(a symlink?): refusing to write through it", tmp);
		return err_set(e, tmpfd, "cannot open the container's %s: %s", tmp,
			       strerror(-tmpfd));
	}
	rc = fstat(tmpfd, &st) == 0 ? 0 : -errno;
	if (rc == 0 && (st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
		rc = err_set(e, -EPERM, "the container's %s is world-writable without "
			     "the sticky bit: another user could swap jsym's files, "
			     "refusing", tmp);
	/* what is missing decides how much space is needed */
	if (rc == 0) {
		dfd = confine_open(t->proc_fd, tmpfd, name, O_DIRECTORY | O_NOFOLLOW, 0, NULL);
		if (dfd >= 0) {
			rc = check_dir(&p, dfd, p.where);
			if (rc == 0)
				rc = measure(&p, dfd, &need);
			close(dfd);
		} else if (errno == ENOENT) {
			for (int l = 0; l < DEPLOY_NLIBC; l++)
				need += b->agent[l].size + b->probe[l].size;
			need += 3 * 4096;       /* three directories */
		} else {
			rc = refuse_open_dir(&p, p.where);
		}
		dfd = -1;
	}
	if (rc == 0)
		rc = check_space(&p, tmpfd, tmp, need);
	if (rc == 0)
		rc = charge_to_jvm(&p, tmpfd, tmp, need, log);
	if (rc == 0) {
		dfd = open_dir(&p, tmpfd, name, p.where, &r->dir_created);
		rc = dfd < 0 ? dfd : lock_dir(&p, dfd, o->timeout_ms);
	}
	/* a jsym that created the directory and failed removed it while it
	 * held the lock we waited for: what we hold is no longer linked */
	if (rc == 0 && fstat(dfd, &st) == 0 && st.st_nlink == 0)
		rc = err_set(e, -EAGAIN, "%s was removed by another jsym attaching "
			     "the same JVM, which failed: attach again", p.where);
	if (rc == 0) {
		attach_step(log, "%s %s (%zu bytes to write)", r->dir_created ?
			    "created" : "reusing", p.where, need);
		rc = fill(&p, dfd);
	}
	uncharge(&p);
	/* undo while the lock is still ours: once it is dropped, a jsym that
	 * waited for it may fill the directory and load from it */
	if (rc && r->dir_created)
		undo(t, tmpfd, name);
	if (dfd >= 0)
		close(dfd);     /* drops the flock */
	close(tmpfd);
	if (rc == 0 && snprintf(r->dir, sizeof(r->dir), "%s", p.where) >= (int)sizeof(r->dir))
		rc = err_set(e, -ENAMETOOLONG, "%s: path too long", p.where);
	return rc;
}

/*
 * Every file is created with the JVM's own (host-side) ids as the
 * file-system ids, so the kernel's own permission checks decide: jsym
 * never creates, as root, something the JVM's uid could not have created
 * itself (a TMPDIR of /etc or a root-owned host path gets EACCES, and the
 * memfd takes over), and the files are the JVM's from the start.  It is
 * also the only way into a rootless container: a file system mounted
 * inside a user namespace cannot hold an inode owned by an id that
 * namespace does not map (our uid 0), so mkdirat would fail with
 * EOVERFLOW.  setfsuid to a non-zero id drops the file capabilities
 * (CAP_CHOWN, CAP_DAC_OVERRIDE, ...) from the effective set, which costs
 * nothing here; going back to our own ids restores them.
 */
int deploy_place(const struct target *t, const struct deploy_builds *b,
		 const struct deploy_opts *o, struct deploy_result *r,
		 const struct attach_log *log, struct err_text *e)
{
	bool as_jvm = geteuid() != t->st.uid[1] || getegid() != t->st.gid[1];
	int rc;

	if (as_jvm) {
		setfsgid(t->st.gid[1]);
		setfsuid(t->st.uid[1]);
		attach_step(log, "writing as the JVM's uid %u gid %u",
			    (unsigned)t->st.uid[1], (unsigned)t->st.gid[1]);
	}
	rc = place_all(t, b, o, r, log, e);
	if (as_jvm) {
		setfsuid(geteuid());
		setfsgid(getegid());
	}
	return rc;
}
