/* vm_write.c - the perf map `jsym map` writes, in the JVM's container. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fdio.h"
#include "inroot.h"
#include "vm_write.h"

long vm_map_render(const struct vm_snapshot *s, char **out)
{
	size_t cap = s->n * 48 + s->names_len + 64, len = 0;
	char *buf = malloc(cap);

	*out = NULL;
	if (!buf)
		return -ENOMEM;
	for (size_t k = 0; k < s->n; k++) {
		const struct vm_entry *en = &s->e[k];
		const char *name = vm_entry_name(s, en);
		int n = snprintf(buf + len, cap - len, "%llx %llx ",
				 (unsigned long long)en->start, (unsigned long long)en->size);

		len += (size_t)n;
		for (; *name; name++)
			buf[len++] = *name == '\n' || *name == '\r' ? ' ' : *name;
		buf[len++] = '\n';
	}
	buf[len] = '\0';   /* callers write len bytes; tests compare it as a string */
	*out = buf;
	return (long)len;
}

static const char *kind_of(mode_t m)
{
	return S_ISLNK(m) ? "a symlink" : S_ISFIFO(m) ? "a FIFO" :
	       S_ISCHR(m) || S_ISBLK(m) ? "a device" : S_ISSOCK(m) ? "a socket" :
	       S_ISDIR(m) ? "a directory" : "a file";
}

/* /tmp inside the container: a real directory, sticky if world-writable. */
static int open_tmp(const struct target *t, struct err_text *e)
{
	struct stat st;
	int fd = inroot_open(t->root_fd, "/tmp", O_PATH | O_DIRECTORY | O_NOFOLLOW, 0, NULL);

	if (fd < 0)
		return err_set(e, fd, "cannot open the container's /tmp: %s%s", strerror(-fd),
			       fd == -ELOOP || fd == -ENOTDIR ? " (a symlink? refusing to "
			       "write through it)" : "");
	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
		close(fd);
		return err_set(e, -ENOTDIR, "the container's /tmp is not a directory");
	}
	if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
		close(fd);
		return err_set(e, -EPERM, "the container's /tmp is world-writable without "
			       "the sticky bit: another user could swap the map, refusing");
	}
	return fd;
}

/* What is at the map's name now may be replaced: missing, or a regular
 * file of the JVM's uid or root. */
static int check_old(int dirfd, const char *name, uid_t uid, const char *where,
		     struct err_text *e)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : err_set(e, -errno, "cannot look at %s: %s",
						     where, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return err_set(e, -ELOOP, "%s in the container is %s: refusing to replace "
			       "it (remove it)", where, kind_of(st.st_mode));
	if (st.st_uid != uid && st.st_uid != 0)
		return err_set(e, -EPERM, "%s in the container belongs to uid %u, not to "
			       "the JVM's uid %u: refusing to replace it (remove it)", where,
			       (unsigned)st.st_uid, (unsigned)uid);
	return 0;
}

int vm_map_write(const struct target *t, const char *text, size_t len, char *where,
		 size_t cap, struct err_text *e)
{
	uid_t uid = t->st.uid[1];
	gid_t gid = t->st.gid[1];
	char name[64], tmp[96];
	struct timespec ts;
	int dirfd, fd, rc;

	snprintf(name, sizeof(name), "perf-%d.map", (int)t->st.nspid);
	snprintf(where, cap, "/tmp/%s", name);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	/* ours alone: no other writer (jsym or not) has this name open */
	snprintf(tmp, sizeof(tmp), ".%s.jsym-%d-%lx.tmp", name, (int)getpid(),
		 (unsigned long)ts.tv_nsec);
	dirfd = open_tmp(t, e);
	if (dirfd < 0)
		return dirfd;
	rc = check_old(dirfd, name, uid, where, e);
	if (rc) {
		close(dirfd);
		return rc;
	}
	fd = openat(dirfd, tmp, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = err_set(e, -errno, "cannot create a new map in the container's /tmp: %s",
			     strerror(errno));
		close(dirfd);
		return rc;
	}
	rc = fdio_write_all(fd, text, len, 0);
	if (rc)
		err_set(e, rc, "cannot write %s: %s%s", where, strerror(-rc),
			rc == -ENOSPC || rc == -EDQUOT ? " (the container's /tmp is full)" : "");
	if (rc == 0 && (fchown(fd, uid, gid) != 0 || fchmod(fd, 0644) != 0))
		rc = err_set(e, -errno, "cannot give %s to uid %u gid %u: %s%s", where,
			     (unsigned)uid, (unsigned)gid, strerror(errno),
			     errno == EPERM ? " (needs CAP_CHOWN)" : "");
	close(fd);
	/* the name may have been planted meanwhile: look again, then rename */
	if (rc == 0)
		rc = check_old(dirfd, name, uid, where, e);
	if (rc == 0 && renameat(dirfd, tmp, dirfd, name) != 0)
		rc = err_set(e, -errno, "cannot rename the new map over %s: %s", where,
			     strerror(errno));
	if (rc)
		unlinkat(dirfd, tmp, 0);
	close(dirfd);
	return rc;
}
