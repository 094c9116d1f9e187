/* SPDX-License-Identifier: Apache-2.0 */
/* confine.c - the one confined open of a target's paths: see confine.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "confine_int.h"
#include "wholeread.h"

#define MAX_LINKS 40                    /* the kernel's own limit */
#define MAX_DEPTH 256                   /* directories open at once */

/* ---- one walk ------------------------------------------------------------- */

static const char *kind_name(mode_t m)
{
	return S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" :
	       S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" :
	       S_ISDIR(m) ? "a directory" : "not a regular file";
}

/*
 * Where one walk is: the directories open from root_fd down (stack[0] is
 * root_fd, which the walk never closes), the part of the path still to go
 * (in rest, rewritten when a symlink is followed) and the symlinks
 * followed so far.
 */
struct cursor {
	int stack[MAX_DEPTH];
	int depth;
	int links;
	char *rest, *tmp;       /* 2 * PATH_MAX + 2 bytes each */
	char *p;                /* the next name in rest */
};

#define CURSOR_CAP (2 * PATH_MAX + 2)
#define NAME_END 1              /* next_name: the directory reached is the end */

/* A cursor on path at root_fd, whose mount is checked first.  0 or
 * -errno; cursor_end either way. */
static int cursor_start(struct walk *w, struct cursor *c, int root_fd, const char *path)
{
	int rc;

	c->stack[0] = root_fd;
	c->depth = 0;
	c->links = 0;
	c->p = NULL;
	c->rest = malloc(CURSOR_CAP);
	c->tmp = malloc(CURSOR_CAP);
	if (!c->rest || !c->tmp)
		return -ENOMEM;
	if (strlen(path) > PATH_MAX)
		return err_set(w->e, -ENAMETOOLONG, "cannot open %s: name too long", path);
	strcpy(c->rest, path);
	c->p = c->rest;
	rc = cf_check_mount(w, root_fd, "the root");
	return rc < 0 ? rc : 0;
}

/* Every directory the walk opened closed, its buffers freed. */
static void cursor_end(struct cursor *c)
{
	while (c->depth > 0)
		close(c->stack[c->depth--]);
	free(c->rest);
	free(c->tmp);
}

/*
 * The next name of the path into comp, the cursor moved past it; *last
 * when nothing but slashes follows it.  "." and empty names between
 * slashes are passed over.  0, NAME_END when the path is used up or ends
 * in ".", or -ENAMETOOLONG for a name longer than NAME_MAX.
 */
static int next_name(struct walk *w, struct cursor *c, char comp[NAME_MAX + 1], bool *last)
{
	for (;;) {
		size_t n;

		while (*c->p == '/')
			c->p++;
		n = strcspn(c->p, "/");
		*last = !c->p[n + strspn(c->p + n, "/")];
		if (n == 0 || (n == 1 && c->p[0] == '.')) {
			if (*last || n == 0)
				return NAME_END;
			c->p += n;
			continue;
		}
		if (n > NAME_MAX)
			return err_set(w->e, -ENAMETOOLONG, "cannot open %s: a component is "
				       "too long", w->path);
		memcpy(comp, c->p, n);
		comp[n] = '\0';
		c->p += n;
		return 0;
	}
}

/* The directory the walk stands in, as its end: an O_PATH fd of it (its
 * mount was checked when it was entered) and its stat, or -errno. */
static int open_here(struct cursor *c, struct stat *st)
{
	int fd = openat(c->stack[c->depth], ".", O_PATH | O_CLOEXEC), rc;

	if (fd < 0 || fstat(fd, st) != 0) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		return rc;
	}
	return fd;
}

/* The name comp in the directory the walk stands in, opened O_PATH
 * without following a symlink, on a mount that passes cf_check_mount:
 * the fd and its stat, or -errno with w->e set. */
static int open_name(struct walk *w, struct cursor *c, const char *comp, struct stat *st)
{
	int fd = openat(c->stack[c->depth], comp, O_PATH | O_NOFOLLOW | O_CLOEXEC), rc;

	if (fd < 0)
		return err_set(w->e, -errno, "cannot open %s: %s", w->path, strerror(errno));
	if ((rc = cf_check_mount(w, fd, comp)) < 0 || fstat(fd, st) != 0) {
		rc = rc < 0 ? rc : -errno;
		close(fd);
		return rc;
	}
	return fd;
}

/*
 * fd, the symlink comp, followed: its target goes in front of the rest of
 * the path, and an absolute one starts again at root_fd, so it cannot
 * lead out.  refused: it is the last name and the caller asked for no
 * symlink there.  Closes fd.  0, or -ELOOP (refused, or more than
 * MAX_LINKS), -ENAMETOOLONG or -errno, with w->e set.
 */
static int follow_link(struct walk *w, struct cursor *c, int fd, const char *comp,
		       bool refused)
{
	char lnk[PATH_MAX + 1];
	ssize_t ln;

	if (refused || ++c->links > MAX_LINKS) {
		close(fd);
		return err_set(w->e, -ELOOP, "refusing %s: %s is a symlink%s",
			       w->path, comp, refused ? "" : " (too many)");
	}
	ln = readlinkat(fd, "", lnk, sizeof(lnk) - 1);
	close(fd);
	if (ln <= 0)
		return ln < 0 ? -errno : -ENOENT;
	lnk[ln] = '\0';
	if (strlen(c->p) + (size_t)ln + 2 > 2 * PATH_MAX)
		return err_set(w->e, -ENAMETOOLONG, "cannot open %s: name too long "
			       "after its symlinks", w->path);
	/* an absolute target starts again at the root */
	if (lnk[0] == '/')
		while (c->depth > 0)
			close(c->stack[c->depth--]);
	snprintf(c->tmp, CURSOR_CAP, "%s/%s", lnk, c->p);
	strcpy(c->rest, c->tmp);
	c->p = c->rest;
	return 0;
}

/* fd, the name comp with its stat st, entered: only a directory, at most
 * MAX_DEPTH deep.  0, or -ENOTDIR / -ENAMETOOLONG with w->e set and fd
 * closed. */
static int descend(struct walk *w, struct cursor *c, int fd, const char *comp,
		   const struct stat *st)
{
	if (!S_ISDIR(st->st_mode)) {
		close(fd);
		return err_set(w->e, -ENOTDIR, "cannot open %s: %s is not a directory",
			       w->path, comp);
	}
	if (c->depth + 1 >= MAX_DEPTH) {
		close(fd);
		return err_set(w->e, -ENAMETOOLONG, "cannot open %s: too deep", w->path);
	}
	c->stack[++c->depth] = fd;
	return 0;
}

/*
 * One name of the path: "..", a symlink, the last name or a directory to
 * enter.  0 to go on; 1 when *fd is the end (opened O_PATH, its stat in
 * *st); or -errno.
 */
static int walk_step(struct walk *w, struct cursor *c, bool nofollow, struct stat *st,
		     int *fd)
{
	char comp[NAME_MAX + 1];
	bool last;
	int rc = next_name(w, c, comp, &last);

	if (rc == NAME_END) {
		*fd = open_here(c, st);
		return *fd < 0 ? *fd : 1;
	}
	if (rc < 0)
		return rc;
	if (!strcmp(comp, "..")) {
		/* never above root_fd: RESOLVE_IN_ROOT's rule */
		if (c->depth > 0)
			close(c->stack[c->depth--]);
		return 0;
	}
	*fd = open_name(w, c, comp, st);
	if (*fd < 0)
		return *fd;
	/* a symlink is followed, unless it is the end confine_lookup wants */
	if (S_ISLNK(st->st_mode) && !(last && nofollow && w->keep_link))
		return follow_link(w, c, *fd, comp, last && nofollow);
	if (last)
		return 1;
	return descend(w, c, *fd, comp, st);
}

/*
 * Walk path below root_fd to its last component, opened O_PATH and checked
 * (mount, and a symlink followed unless nofollow).  Returns the fd and its
 * stat in *st, or -errno.
 */
static int walk_path(struct walk *w, int root_fd, const char *path, bool nofollow,
		     struct stat *st)
{
	struct cursor c;
	int fd = -1, rc = cursor_start(w, &c, root_fd, path);

	while (rc == 0)
		rc = walk_step(w, &c, nofollow, st, &fd);
	cursor_end(&c);
	return rc < 0 ? rc : fd;
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

int confine_reopen(int path_fd, int flags, struct err_text *e)
{
	struct walk w = { .mnt_fd = -1, .path = "a checked file", .e = e };
	struct stat st;
	bool own;
	int fd;

	if (path_fd < 0 || (flags & ~(O_ACCMODE | O_DIRECTORY)))
		return err_set(e, -EINVAL, "cannot reopen fd %d: invalid confined open "
			       "(flags %#x)", path_fd, (unsigned)flags);
	if (fstat(path_fd, &st) != 0)
		return err_set(e, -errno, "cannot reopen fd %d: %s", path_fd, strerror(errno));
	if ((flags & O_DIRECTORY) ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
		return err_set(e, (flags & O_DIRECTORY) ? -ENOTDIR : -EINVAL,
			       "refusing to reopen fd %d: it is %s", path_fd,
			       kind_name(st.st_mode));
	w.self = cf_self_dir(&own);
	if (w.self < 0)
		return err_set(e, w.self, "cannot reopen fd %d: this process's /proc/self: %s",
			       path_fd, strerror(-w.self));
	fd = reopen(&w, path_fd, &st, flags);
	if (own)
		close(w.self);
	if (fd < 0)
		errno = -fd;
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
	if ((rc = cf_check_mount(w, pfd, "it")) < 0 || fstat(pfd, st) != 0) {
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

/*
 * O_CREAT | O_EXCL: the new name's directory walked and checked like any
 * path, then a new inode made in it, never what the target put there.
 * The fd or -errno with w->e set.
 */
static int create_new(struct walk *w, int root_fd, const char *path, int acc, mode_t mode)
{
	char dir[PATH_MAX];
	const char *base;
	struct stat st;
	int pfd, fd;

	if (split_last(path, dir, sizeof(dir), &base) != 0)
		return err_set(w->e, -EINVAL, "cannot create %s: no file name", path);
	/* the parent walked and checked too when it is root_fd itself
	 * (a cwd on FUSE would be asked to create) */
	pfd = walk_path(w, root_fd, dir[0] ? dir : ".", false, &st);
	if (pfd >= 0 && !S_ISDIR(st.st_mode)) {
		close(pfd);
		pfd = err_set(w->e, -ENOTDIR, "cannot create %s: its directory is "
			      "not one", path);
	}
	if (pfd < 0)
		return pfd;
	/* O_EXCL: a new inode, never what the target put there */
	fd = openat(pfd, base, acc | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC |
		    O_NONBLOCK, mode);
	if (fd < 0)
		fd = err_set(w->e, -errno, "cannot create %s: %s", path, strerror(errno));
	close(pfd);
	return fd;
}

/* What path found (stat st) must be: a directory when want_dir, else a
 * regular file.  0, or -ENOTDIR / -EINVAL with w->e set. */
static int check_kind(struct walk *w, const char *path, const struct stat *st,
		      bool want_dir)
{
	int rc;

	if (want_dir != !!S_ISDIR(st->st_mode) || (!want_dir && !S_ISREG(st->st_mode))) {
		rc = err_set(w->e, want_dir ? -ENOTDIR : S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL,
			     "refusing %s: it is %s, not a %s (jsym opens no other kind)",
			     path, want_dir && S_ISREG(st->st_mode) ? "a regular file" :
			     kind_name(st->st_mode), want_dir ? "directory" : "regular file");
		return rc == -EISDIR ? -EINVAL : rc;
	}
	return 0;
}

/*
 * An existing path: walked below root_fd (or, AT_FDCWD, the user's own),
 * its kind checked, then what flags ask for: a new unnamed file in it
 * (O_TMPFILE), the O_PATH fd itself, or that inode opened for real.  The
 * fd or -errno with w->e set.
 */
static int open_existing(struct walk *w, int root_fd, const char *path, int flags,
			 mode_t mode)
{
	bool tmpfile = (flags & O_TMPFILE) == O_TMPFILE;
	bool want_dir = tmpfile || (flags & O_DIRECTORY);
	int acc = flags & O_ACCMODE, pfd, fd;
	struct stat st;

	pfd = root_fd == AT_FDCWD ? user_path(w, path, flags, &st) :
	      walk_path(w, root_fd, path, flags & O_NOFOLLOW, &st);
	if (pfd < 0)
		return pfd;
	if ((fd = check_kind(w, path, &st, want_dir)) < 0) {
		close(pfd);
		return fd;
	}
	if (tmpfile) {
		fd = openat(pfd, ".", O_TMPFILE | acc | O_CLOEXEC, mode);
		if (fd < 0)
			fd = err_set(w->e, -errno, "cannot create a file in %s: %s", path,
				     strerror(errno));
		close(pfd);
		return fd;
	}
	if (flags & O_PATH)
		return pfd;
	fd = reopen(w, pfd, &st, want_dir ? O_RDONLY | O_DIRECTORY :
		    acc | (flags & O_TRUNC));
	close(pfd);
	return fd;
}

int confine_open(int mnt_fd, int root_fd, const char *path, int flags,
		 mode_t mode, struct err_text *e)
{
	struct walk w = { .mnt_fd = mnt_fd, .path = path ? path : "", .e = e };
	bool tmpfile = (flags & O_TMPFILE) == O_TMPFILE, own;
	bool create = !tmpfile && (flags & O_CREAT);
	bool user = root_fd == AT_FDCWD;
	int acc = flags & O_ACCMODE, fd;

	if ((root_fd < 0 && !user) || !path || !*path || (flags & ~KNOWN_FLAGS) ||
	    (create && !(flags & O_EXCL)) || (user && (create || tmpfile || acc != O_RDONLY)))
		return err_set(e, -EINVAL, "cannot open %s: invalid confined open "
			       "(root %d, flags %#x)", w.path, root_fd, (unsigned)flags);
	w.self = cf_self_dir(&own);
	if (w.self < 0)
		return err_set(e, w.self, "cannot open %s: this process's /proc/self: %s",
			       path, strerror(-w.self));
	fd = create ? create_new(&w, root_fd, path, acc, mode) :
	     open_existing(&w, root_fd, path, flags, mode);
	free(w.mi);
	if (own)
		close(w.self);
	if (fd < 0)
		errno = -fd;
	return fd;
}

int confine_lookup(int mnt_fd, int dir_fd, const char *path, int flags,
		   struct stat *st, struct err_text *e)
{
	struct walk w = { .mnt_fd = mnt_fd, .path = path ? path : "", .e = e,
			  .keep_link = true };
	bool own;
	int pfd;

	if (dir_fd < 0 || !path || !*path || (flags & ~O_NOFOLLOW))
		return err_set(e, -EINVAL, "cannot look at %s: invalid confined stat "
			       "(dir %d, flags %#x)", w.path, dir_fd, (unsigned)flags);
	w.self = cf_self_dir(&own);
	if (w.self < 0)
		return err_set(e, w.self, "cannot look at %s: this process's /proc/self: %s",
			       path, strerror(-w.self));
	pfd = walk_path(&w, dir_fd, path, flags & O_NOFOLLOW, st);
	free(w.mi);
	if (own)
		close(w.self);
	if (pfd < 0)
		errno = -pfd;
	return pfd;
}

int confine_stat(int mnt_fd, int dir_fd, const char *path, int flags,
		 struct stat *st, struct err_text *e)
{
	int pfd = confine_lookup(mnt_fd, dir_fd, path, flags, st, e);

	if (pfd < 0)
		return pfd;
	close(pfd);
	return 0;
}

int confine_self_dir(void)
{
	bool own;
	int fd = cf_self_dir(&own);

	if (fd < 0 || own)
		return fd;
	fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);     /* the pin itself stays */
	return fd < 0 ? -errno : fd;
}

int confine_check_fd(int mnt_fd, int fd, const char *path, struct err_text *e)
{
	struct walk w = { .mnt_fd = mnt_fd, .path = path ? path : "", .e = e };
	bool own;
	int rc;

	w.self = cf_self_dir(&own);
	if (w.self < 0)
		return err_set(e, w.self, "cannot check %s: this process's /proc/self: %s",
			       w.path, strerror(-w.self));
	rc = cf_check_mount(&w, fd, "it");
	free(w.mi);
	if (own)
		close(w.self);
	return rc;
}

/* ---- whole reads ------------------------------------------------------------ */

ssize_t confine_read_fd(int fd, size_t max, int timeout_ms, char **out)
{
	struct stat st;

	*out = NULL;
	if (fstat(fd, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	return whole_read_alloc(fd, max, timeout_ms, out);
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
	if (!cf_on_procfs(proc_fd))
		return -EPERM;
	fd = openat(proc_fd, name, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

ssize_t confine_proc_read(int proc_fd, const char *name, size_t max, char **out)
{
	*out = NULL;
	if (!name || !*name || name[0] == '/' || strstr(name, ".."))
		return -EINVAL;
	if (!cf_on_procfs(proc_fd))
		return -EPERM;
	return cf_read_proc(proc_fd, name, max, out);
}

ssize_t confine_proc_read_whole(int proc_fd, const char *name, size_t max, char **out)
{
	ssize_t n = confine_proc_read(proc_fd, name, max + 1, out);

	if (n > (ssize_t)max) {
		free(*out);
		*out = NULL;
		return -EFBIG;
	}
	return n;
}
