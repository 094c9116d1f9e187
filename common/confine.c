/* SPDX-License-Identifier: Apache-2.0 */
/* confine.c - the one confined open of a target's paths: see confine.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "confine.h"

#define PROC_MAGIC 0x9fa0               /* linux/magic.h PROC_SUPER_MAGIC */
#define MAX_LINKS 40                    /* the kernel's own limit */
#define MAX_DEPTH 256                   /* directories open at once */
#define MOUNTINFO_MAX (64u << 20)       /* a namespace with ~400k mounts */

/* ---- /proc/self, checked to be procfs --------------------------------- */

static int self_fd = -1;
static pid_t self_pid;

static bool on_procfs(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) == 0 && sf.f_type == PROC_MAGIC;
}

/* An O_PATH dirfd of this process's /proc/PID: the pin, or a new one that
 * *own says the caller closes.  A /proc that is not procfs (a container's
 * fake, when an unpinned process entered its namespace) is refused. */
static int self_dir(bool *own)
{
	int fd;

	*own = false;
	if (self_fd >= 0 && self_pid == getpid())
		return self_fd;
	fd = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!on_procfs(fd)) {
		close(fd);
		return -EPERM;
	}
	*own = true;
	return fd;
}

int confine_pin_self(void)
{
	bool own;
	int fd;

	self_fd = -1;   /* an inherited pin is the parent's table */
	fd = self_dir(&own);
	if (fd < 0)
		return fd;
	self_fd = fd;
	self_pid = getpid();
	return 0;
}

/* ---- file system kinds --------------------------------------------------- */

enum confine_fs confine_fs_kind(const char *type)
{
	/* a server (a process, a network peer) answers every request: if it
	 * does not, the reader waits, in uninterruptible sleep for a page */
	static const char *const stalls[] = {
		"fuse", "fuseblk", "nfs", "nfs4", "cifs", "smb3", "smbfs", "9p",
		"ceph", "afs", "coda", "ncpfs", "lustre", "gfs2", "ocfs2",
		"orangefs", "pvfs2", "glusterfs", "autofs", "davfs", "vboxsf",
	};
	static const char *const kernel[] = {
		"proc", "sysfs", "debugfs", "tracefs", "securityfs", "cgroup",
		"cgroup2", "bpf", "configfs", "efivarfs", "pstore", "fusectl",
		"devpts", "mqueue", "binfmt_misc", "rpc_pipefs", "nsfs",
		"selinuxfs", "smackfs", "nfsd", "pipefs", "sockfs", "anon_inodefs",
	};

	if (!strncmp(type, "fuse.", 5))
		return CONFINE_FS_STALLS;
	for (size_t i = 0; i < sizeof(stalls) / sizeof(stalls[0]); i++)
		if (!strcmp(type, stalls[i]))
			return CONFINE_FS_STALLS;
	for (size_t i = 0; i < sizeof(kernel) / sizeof(kernel[0]); i++)
		if (!strcmp(type, kernel[i]))
			return CONFINE_FS_KERNEL;
	return CONFINE_FS_STORED;
}

/* ---- one walk ------------------------------------------------------------- */

struct walk {
	int mnt_fd;             /* /proc/PID whose mountinfo is read, -1: ours */
	int self;               /* /proc/self (fd/, fdinfo/) */
	char *mi;               /* mountinfo text, NUL-terminated */
	int mi_reads;
	struct {                /* types found elsewhere (see other_mountinfo) */
		long id;
		char type[64];
	} seen[8];
	int nseen;
	const char *path;       /* for messages */
	struct err_text *e;
};

/* Read a procfs file whole (the kernel's text: never stalls). */
static ssize_t read_proc(int dirfd, const char *name, size_t max, char **out)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	size_t len = 0, cap = 4096;
	char *buf;

	*out = NULL;
	if (fd < 0)
		return -errno;
	if (!(buf = malloc(cap + 1))) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *nb;

			if (cap >= max)
				break;
			cap = cap * 2 > max ? max : cap * 2;
			if (!(nb = realloc(buf, cap + 1))) {
				free(buf);
				close(fd);
				return -ENOMEM;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			free(buf);
			close(fd);
			return err;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	return (ssize_t)len;
}

/*
 * Where /proc/self/fdinfo is refused (a kernel that checks it against the
 * ids jsym switched to): statx for the mount id alone, without syncing.
 * The VFS fills the mount id itself, and asks the file system for no
 * attribute (FUSE then answers from its cache, as NFS, CIFS and ceph do
 * under AT_STATX_DONT_SYNC; an uncached 9p mount would still be asked).
 */
static int mount_id_statx(int fd, long *id)
{
#ifdef SYS_statx
	unsigned char stx[256];
	uint32_t mask;
	uint64_t mnt;

	memset(stx, 0, sizeof(stx));
	if (syscall(SYS_statx, fd, "", 0x1000 /* AT_EMPTY_PATH */ |
		    0x100 /* AT_SYMLINK_NOFOLLOW */ | 0x4000 /* AT_STATX_DONT_SYNC */,
		    0x1000 /* STATX_MNT_ID */, stx) != 0)
		return -errno;
	memcpy(&mask, stx, sizeof(mask));       /* stx_mask, offset 0 */
	memcpy(&mnt, stx + 144, sizeof(mnt));   /* stx_mnt_id, offset 144 */
	if (!(mask & 0x1000))
		return -ENOSYS;                 /* before Linux 5.8 */
	*id = (long)mnt;
	return 0;
#else
	(void)fd;
	(void)id;
	return -ENOSYS;
#endif
}

/* The mount id of fd, from /proc/self/fdinfo: the VFS's own record, no
 * call into fd's file system. */
static int mount_id(const struct walk *w, int fd, long *id)
{
	char name[32], *buf, *p;
	ssize_t n;

	snprintf(name, sizeof(name), "fdinfo/%d", fd);
	n = read_proc(w->self, name, 4096, &buf);
	if (n == -EACCES || n == -EPERM)
		return mount_id_statx(fd, id);
	if (n < 0)
		return (int)n;
	p = strstr(buf, "\nmnt_id:");
	*id = p ? strtol(p + 8, NULL, 10) : -1;
	free(buf);
	return *id >= 0 ? 0 : -ENOSYS;
}

/* The type mountinfo gives mount id, in type (cap bytes); false if absent. */
static bool find_mount(const char *mi, long id, char *type, size_t cap)
{
	for (const char *l = mi; *l; ) {
		const char *end = strchr(l, '\n'), *sep;
		char *num_end;
		long v = strtol(l, &num_end, 10);

		if (!end)
			end = l + strlen(l);
		if (num_end != l && v == id && (sep = strstr(l, " - ")) && sep < end) {
			size_t n = strcspn(sep + 3, " \n");

			if (n >= cap)
				n = cap - 1;
			memcpy(type, sep + 3, n);
			type[n] = '\0';
			return true;
		}
		l = *end ? end + 1 : end;
	}
	return false;
}

/* Does the mountinfo of /proc/<dir>/<name> list mount id?  Its type then. */
static bool type_in(int dirfd, const char *name, long id, char *type, size_t cap)
{
	char *mi;
	bool found = read_proc(dirfd, name, MOUNTINFO_MAX, &mi) >= 0 &&
		     find_mount(mi, id, type, cap);

	free(mi);
	return found;
}

/*
 * A chrooted process's mountinfo lists no mount above its root, so the
 * target's may not name the mount of its own root.  Mount ids are unique
 * on the machine and a process's mountinfo is the kernel's word on the
 * mounts of its namespace, so any process that lists the id will do: ours,
 * else one sharing the target's mount namespace (procfs of our pin, never
 * a /proc of the namespace we may have entered).  true and its type.
 */
static bool other_mountinfo(struct walk *w, long id, char *type, size_t cap)
{
	struct stat want, st;
	struct dirent *de;
	int procfd;
	DIR *d;
	bool found = false;

	for (int i = 0; i < w->nseen; i++)
		if (w->seen[i].id == id) {
			snprintf(type, cap, "%s", w->seen[i].type);
			return true;
		}
	if (w->mnt_fd >= 0 && type_in(w->self, "mountinfo", id, type, cap))
		found = true;
	else if (fstatat(w->mnt_fd >= 0 ? w->mnt_fd : w->self, "ns/mnt", &want, 0) == 0 &&
		 (procfd = openat(w->self, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		if (!on_procfs(procfd) || !(d = fdopendir(procfd))) {
			close(procfd);
			return false;
		}
		while (!found && (de = readdir(d))) {
			char name[300];

			if (de->d_name[0] < '1' || de->d_name[0] > '9')
				continue;
			snprintf(name, sizeof(name), "%s/ns/mnt", de->d_name);
			/* the target's namespace; for a path of jsym's user (no
			 * target, mnt_fd -1), any process's */
			if (w->mnt_fd >= 0 && (fstatat(procfd, name, &st, 0) != 0 ||
					       st.st_ino != want.st_ino || st.st_dev != want.st_dev))
				continue;
			snprintf(name, sizeof(name), "%s/mountinfo", de->d_name);
			found = type_in(procfd, name, id, type, cap);
		}
		closedir(d);
	}
	if (found && w->nseen < (int)(sizeof(w->seen) / sizeof(w->seen[0]))) {
		w->seen[w->nseen].id = id;
		snprintf(w->seen[w->nseen].type, sizeof(w->seen[0].type), "%s", type);
		w->nseen++;
	}
	return found;
}

/* 0 when fd lies on a file system that stores files; else why not. */
static int check_mount(struct walk *w, int fd, const char *what)
{
	char type[64];
	long id = -1;
	int rc = mount_id(w, fd, &id);

	if (rc)
		return err_set(w->e, rc, "cannot open %s: the mount of %s is unknown "
			       "(/proc/self/fdinfo: %s)", w->path, what, strerror(-rc));
	while (!w->mi || !find_mount(w->mi, id, type, sizeof(type))) {
		ssize_t n;

		/* read once, and once more when a mount is not there yet */
		if (w->mi_reads == 2 && other_mountinfo(w, id, type, sizeof(type)))
			break;
		if (w->mi_reads == 2)
			return err_set(w->e, -ESTALE, "cannot open %s: %s lies on mount %ld, "
				       "which the target's mountinfo does not list", w->path,
				       what, id);
		free(w->mi);
		w->mi = NULL;
		n = read_proc(w->mnt_fd >= 0 ? w->mnt_fd : w->self, "mountinfo",
			      MOUNTINFO_MAX, &w->mi);
		w->mi_reads++;
		if (n < 0)
			return err_set(w->e, (int)n, "cannot open %s: cannot read the target's "
				       "mountinfo: %s", w->path, strerror((int)-n));
	}
	switch (confine_fs_kind(type)) {
	case CONFINE_FS_STALLS:
		return err_set(w->e, -EREMOTE, "refusing %s: %s lies on a %s file system, "
			       "whose server could stall jsym forever (jsym reads targets' "
			       "files from local file systems only)", w->path, what, type);
	case CONFINE_FS_KERNEL:
		return err_set(w->e, -EPERM, "refusing %s: %s lies on %s, a kernel "
			       "interface, not a stored file", w->path, what, type);
	default:
		return 0;
	}
}

static const char *kind_name(mode_t m)
{
	return S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" :
	       S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" :
	       S_ISDIR(m) ? "a directory" : "not a regular file";
}

/*
 * Walk path below root_fd to its last component, opened O_PATH and checked
 * (mount, and a symlink followed unless nofollow).  Returns the fd and its
 * stat in *st, or -errno.
 */
static int walk_path(struct walk *w, int root_fd, const char *path, bool nofollow,
		     struct stat *st)
{
	int stack[MAX_DEPTH], depth = 0, links = 0, rc, fd;
	char *rest = malloc(2 * PATH_MAX + 2), *tmp = malloc(2 * PATH_MAX + 2);
	char *p;

	stack[0] = root_fd;
	if (!rest || !tmp) {
		rc = -ENOMEM;
		goto out;
	}
	if (strlen(path) > PATH_MAX) {
		rc = err_set(w->e, -ENAMETOOLONG, "cannot open %s: name too long", path);
		goto out;
	}
	strcpy(rest, path);
	if ((rc = check_mount(w, root_fd, "the root")) < 0)
		goto out;
	p = rest;
	for (;;) {
		char comp[NAME_MAX + 1];
		size_t n;
		bool last;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		last = !p[n + strspn(p + n, "/")];
		if (n == 0 || (n == 1 && p[0] == '.')) {
			if (last || n == 0) {
				/* the directory reached is the end */
				fd = openat(stack[depth], ".", O_PATH | O_CLOEXEC);
				if (fd < 0 || fstat(fd, st) != 0) {
					rc = -errno;
					if (fd >= 0)
						close(fd);
					goto out;
				}
				rc = fd;
				goto out;
			}
			p += n;
			continue;
		}
		if (n > NAME_MAX) {
			rc = err_set(w->e, -ENAMETOOLONG, "cannot open %s: a component is "
				     "too long", w->path);
			goto out;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		if (!strcmp(comp, "..")) {
			/* never above root_fd: RESOLVE_IN_ROOT's rule */
			if (depth > 0)
				close(stack[depth--]);
			continue;
		}
		fd = openat(stack[depth], comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			rc = err_set(w->e, -errno, "cannot open %s: %s", w->path,
				     strerror(errno));
			goto out;
		}
		if ((rc = check_mount(w, fd, comp)) < 0 || fstat(fd, st) != 0) {
			rc = rc < 0 ? rc : -errno;
			close(fd);
			goto out;
		}
		if (S_ISLNK(st->st_mode)) {
			char lnk[PATH_MAX + 1];
			ssize_t ln;

			if ((last && nofollow) || ++links > MAX_LINKS) {
				close(fd);
				rc = err_set(w->e, -ELOOP, "refusing %s: %s is a symlink%s",
					     w->path, comp, last && nofollow ? "" : " (too many)");
				goto out;
			}
			ln = readlinkat(fd, "", lnk, sizeof(lnk) - 1);
			close(fd);
			if (ln <= 0) {
				rc = ln < 0 ? -errno : -ENOENT;
				goto out;
			}
			lnk[ln] = '\0';
			if (strlen(p) + (size_t)ln + 2 > 2 * PATH_MAX) {
				rc = err_set(w->e, -ENAMETOOLONG, "cannot open %s: name too "
					     "long after its symlinks", w->path);
				goto out;
			}
			/* an absolute target starts again at the root */
			if (lnk[0] == '/')
				while (depth > 0)
					close(stack[depth--]);
			snprintf(tmp, 2 * PATH_MAX + 2, "%s/%s", lnk, p);
			strcpy(rest, tmp);
			p = rest;
			continue;
		}
		if (last) {
			rc = fd;
			goto out;
		}
		if (!S_ISDIR(st->st_mode)) {
			close(fd);
			rc = err_set(w->e, -ENOTDIR, "cannot open %s: %s is not a directory",
				     w->path, comp);
			goto out;
		}
		if (depth + 1 >= MAX_DEPTH) {
			close(fd);
			rc = err_set(w->e, -ENAMETOOLONG, "cannot open %s: too deep", w->path);
			goto out;
		}
		stack[++depth] = fd;
	}
out:
	while (depth > 0)
		close(stack[depth--]);
	free(rest);
	free(tmp);
	return rc;
}

/* Open pfd (O_PATH, checked) for real through /proc/self/fd: that inode. */
static int reopen(struct walk *w, int pfd, const struct stat *st, int flags)
{
	struct stat st2;
	char name[32];
	int fd;

	snprintf(name, sizeof(name), "fd/%d", pfd);
	fd = openat(w->self, name, flags | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return err_set(w->e, -errno, "cannot open %s: %s", w->path, strerror(errno));
	if (fstat(fd, &st2) != 0 || st2.st_ino != st->st_ino || st2.st_dev != st->st_dev) {
		close(fd);
		return err_set(w->e, -ESTALE, "cannot open %s: it changed while opened",
			       w->path);
	}
	return fd;
}

#define KNOWN_FLAGS (O_ACCMODE | O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CREAT | \
		     O_EXCL | O_TMPFILE | O_TRUNC | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)

/* The parent of a new name: path's directory part, the name in *base. */
static int split_last(const char *path, char *dir, size_t cap, const char **base)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	*base = slash ? slash + 1 : path;
	if (!**base || !strcmp(*base, ".") || !strcmp(*base, "..") || n >= cap)
		return -EINVAL;
	memcpy(dir, path, n);
	dir[n] = '\0';
	if (slash && n == 0)
		strcpy(dir, "/");
	return 0;
}

/*
 * AT_FDCWD: a path of jsym's own user (a command line's file, maybe below
 * /proc/<pid>/root), resolved by the kernel as the user wrote it: the user
 * chose each component.  What it names is still checked like a target's
 * file (its mount, looked up in every process's table if need be, and its
 * type) before it is opened.  Reading only.
 */
static int user_path(struct walk *w, const char *path, int flags, struct stat *st)
{
	int pfd = open(path, O_PATH | O_CLOEXEC | (flags & O_NOFOLLOW)), rc;

	if (pfd < 0)
		return err_set(w->e, -errno, "cannot open %s: %s", path, strerror(errno));
	if ((rc = check_mount(w, pfd, "it")) < 0 || fstat(pfd, st) != 0) {
		rc = rc < 0 ? rc : -errno;
		close(pfd);
		return rc;
	}
	if (S_ISLNK(st->st_mode)) {
		close(pfd);
		return err_set(w->e, -ELOOP, "refusing %s: it is a symlink", path);
	}
	return pfd;
}

int confine_open(int mnt_fd, int root_fd, const char *path, int flags,
		 mode_t mode, struct err_text *e)
{
	struct walk w = { .mnt_fd = mnt_fd, .path = path ? path : "", .e = e };
	bool tmpfile = (flags & O_TMPFILE) == O_TMPFILE, own;
	bool create = !tmpfile && (flags & O_CREAT);
	bool want_dir = tmpfile || (flags & O_DIRECTORY);
	bool user = root_fd == AT_FDCWD;
	int acc = flags & O_ACCMODE, pfd, fd;
	struct stat st;

	if ((root_fd < 0 && !user) || !path || !*path || (flags & ~KNOWN_FLAGS) ||
	    (create && !(flags & O_EXCL)) || (user && (create || tmpfile || acc != O_RDONLY)))
		return err_set(e, -EINVAL, "cannot open %s: invalid confined open "
			       "(root %d, flags %#x)", w.path, root_fd, (unsigned)flags);
	w.self = self_dir(&own);
	if (w.self < 0)
		return err_set(e, w.self, "cannot open %s: this process's /proc/self: %s",
			       path, strerror(-w.self));
	if (create) {
		char dir[PATH_MAX];
		const char *base;

		if (split_last(path, dir, sizeof(dir), &base) != 0) {
			fd = err_set(e, -EINVAL, "cannot create %s: no file name", path);
			goto out;
		}
		pfd = dir[0] ? walk_path(&w, root_fd, dir, false, &st) : -1;
		if (dir[0] && pfd >= 0 && !S_ISDIR(st.st_mode)) {
			close(pfd);
			pfd = err_set(e, -ENOTDIR, "cannot create %s: its directory is "
				      "not one", path);
		}
		if (dir[0] && pfd < 0) {
			fd = pfd;
			goto out;
		}
		/* O_EXCL: a new inode, never what the target put there */
		fd = openat(dir[0] ? pfd : root_fd, base, acc | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, mode);
		if (fd < 0)
			fd = err_set(e, -errno, "cannot create %s: %s", path, strerror(errno));
		if (pfd >= 0)
			close(pfd);
		goto out;
	}
	pfd = user ? user_path(&w, path, flags, &st) :
	      walk_path(&w, root_fd, path, flags & O_NOFOLLOW, &st);
	if (pfd < 0) {
		fd = pfd;
		goto out;
	}
	if (want_dir != !!S_ISDIR(st.st_mode) || (!want_dir && !S_ISREG(st.st_mode))) {
		close(pfd);
		fd = err_set(e, want_dir ? -ENOTDIR : S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL,
			     "refusing %s: it is %s, not a %s (jsym opens no other kind)",
			     path, want_dir && S_ISREG(st.st_mode) ? "a regular file" :
			     kind_name(st.st_mode), want_dir ? "directory" : "regular file");
		if (fd == -EISDIR)
			fd = -EINVAL;
		goto out;
	}
	if (tmpfile) {
		fd = openat(pfd, ".", O_TMPFILE | acc | O_CLOEXEC, mode);
		if (fd < 0)
			fd = err_set(e, -errno, "cannot create a file in %s: %s", path,
				     strerror(errno));
		close(pfd);
		goto out;
	}
	if (flags & O_PATH) {
		fd = pfd;
		goto out;
	}
	fd = reopen(&w, pfd, &st, want_dir ? O_RDONLY | O_DIRECTORY :
		    acc | (flags & O_TRUNC));
	close(pfd);
out:
	free(w.mi);
	if (own)
		close(w.self);
	if (fd < 0)
		errno = -fd;
	return fd;
}

/* ---- whole reads ------------------------------------------------------------ */

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

ssize_t confine_read_fd(int fd, size_t max, int timeout_ms, char **out)
{
	long until = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
	size_t len = 0, cap = max < 4096 ? max : 4096;
	struct stat st;
	char *buf;

	*out = NULL;
	if (fstat(fd, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (!(buf = malloc(cap + 1)))
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (until && now_ms() > until) {
			free(buf);
			return -ETIMEDOUT;
		}
		if (len == cap) {
			char *nb;

			if (cap >= max)
				break;  /* max bytes: cut here */
			cap = cap > max / 2 ? max : cap * 2;
			if (!(nb = realloc(buf, cap + 1))) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			free(buf);
			return err;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*out = buf;
	return (ssize_t)len;
}

ssize_t confine_read(int mnt_fd, int root_fd, const char *path, size_t max,
		     int timeout_ms, char **out, struct err_text *e)
{
	int fd = confine_open(mnt_fd, root_fd, path, O_RDONLY | O_NOFOLLOW, 0, e);
	ssize_t n;

	*out = NULL;
	if (fd < 0)
		return fd;
	n = confine_read_fd(fd, max, timeout_ms, out);
	close(fd);
	if (n < 0)
		err_set(e, (int)n, "cannot read %s: %s", path, strerror((int)-n));
	return n;
}

/* ---- the kernel's files about a process ------------------------------------- */

int confine_proc(int proc_fd, const char *name, int flags)
{
	int fd;

	if (!name || !*name || name[0] == '/' || strstr(name, ".."))
		return -EINVAL;
	if (!on_procfs(proc_fd))
		return -EPERM;
	fd = openat(proc_fd, name, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

ssize_t confine_proc_read(int proc_fd, const char *name, size_t max, char **out)
{
	*out = NULL;
	if (!name || !*name || name[0] == '/' || strstr(name, ".."))
		return -EINVAL;
	if (!on_procfs(proc_fd))
		return -EPERM;
	return read_proc(proc_fd, name, max, out);
}
