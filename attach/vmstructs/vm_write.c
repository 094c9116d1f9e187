/* SPDX-License-Identifier: Apache-2.0 */
/* vm_write.c - the perf map `jsym map` writes, in the JVM's container. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "target.h"
#include "vm_write.h"

/* v in lower-case hex, no leading zeros (as "%llx"): the digits written. */
static size_t put_hex(char *p, uint64_t v)
{
	char t[16];
	size_t n = 0;

	do {
		t[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	for (size_t i = 0; i < n; i++)
		p[i] = t[n - 1 - i];
	return n;
}

int vm_map_render_more(const struct vm_snapshot *s, size_t upto, struct vm_map_text *t)
{
	size_t need = 1, len = t->len;

	/* two hex numbers, two spaces and a newline take at most 35 bytes;
	 * an escaped byte takes 4 (\xNN) */
	for (size_t k = t->done; k < upto; k++)
		need += 35 + 4 * strlen(vm_entry_name(s, &s->e[k]));
	if (text_reserve(&t->buf, &t->cap, t->len + need, 256 * 1024))
		return -ENOMEM;
	for (size_t k = t->done; k < upto; k++) {
		const struct vm_entry *en = &s->e[k];
		const char *name = vm_entry_name(s, en);

		len += put_hex(t->buf + len, en->start);
		t->buf[len++] = ' ';
		len += put_hex(t->buf + len, en->size);
		t->buf[len++] = ' ';
		/* A method name is the JVM's text (a class file may hold ESC or
		 * a C1 control): the map goes to a terminal with --stdout and
		 * through perf to one later, so it holds only the escaped form. */
		term_escape(t->buf + len, t->cap - len, name, strlen(name), 0);
		len += strlen(t->buf + len);
		t->buf[len++] = '\n';
	}
	t->buf[len] = '\0';    /* not part of the map; for callers that print it */
	t->len = len;
	t->done = upto > t->done ? upto : t->done;
	return 0;
}

int vm_map_text_finish(const struct vm_snapshot *s, struct vm_map_text *t)
{
	if (s->settled != s->n)
		t->len = t->done = 0;   /* put in order at the end: again */
	return vm_map_render_more(s, s->n, t);
}

long vm_map_render(const struct vm_snapshot *s, char **out)
{
	struct vm_map_text t = { 0 };

	*out = NULL;
	if (vm_map_render_more(s, s->n, &t)) {
		free(t.buf);
		return -ENOMEM;
	}
	*out = t.buf;
	return (long)t.len;
}

static const char *kind_of(mode_t m)
{
	return S_ISLNK(m) ? "a symlink" : S_ISFIFO(m) ? "a FIFO" :
	       S_ISCHR(m) || S_ISBLK(m) ? "a device" : S_ISSOCK(m) ? "a socket" :
	       S_ISDIR(m) ? "a directory" : "a file";
}

/* dir inside the container (its /tmp, or JDK 28's AltTempDir when /tmp
 * is unusable: target_out_dir): a real directory, sticky if
 * world-writable. */
static int open_tmp(const struct target *t, const char *dir, struct err_text *e)
{
	struct stat st;
	int fd = confine_open(t->proc_fd, t->root_fd, dir, O_PATH | O_DIRECTORY | O_NOFOLLOW,
			      0, NULL);

	if (fd < 0)
		return err_set(e, fd, "cannot open the container's %s: %s%s", dir,
			       strerror(-fd), fd == -ELOOP || fd == -ENOTDIR ?
			       " (a symlink? refusing to write through it)" : "");
	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
		close(fd);
		return err_set(e, -ENOTDIR, "the container's %s is not a directory", dir);
	}
	if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
		close(fd);
		return err_set(e, -EPERM, "the container's %s is world-writable without "
			       "the sticky bit: another user could swap the map, refusing",
			       dir);
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

int vm_out_begin(const struct target *t, const char *name, struct vm_out *o, char *where,
		 size_t cap, struct err_text *e)
{
	const char *dir = target_out_dir(t);
	struct timespec ts;
	int rc;

	memset(o, 0, sizeof(*o));
	o->fd = o->dirfd = -1;
	o->uid = t->st.uid[1];
	snprintf(o->name, sizeof(o->name), "%s", name);
	snprintf(o->where, sizeof(o->where), "%s/%s", dir, name);
	snprintf(where, cap, "%s", o->where);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	/* ours alone: no other writer (jsym or not) has this name open */
	snprintf(o->tmp, sizeof(o->tmp), ".%s.jsym-%d-%lx.tmp", name, (int)getpid(),
		 (unsigned long)ts.tv_nsec);
	o->dirfd = open_tmp(t, dir, e);
	if (o->dirfd < 0)
		return o->dirfd;
	rc = check_old(o->dirfd, name, o->uid, o->where, e);
	if (rc)
		goto fail;
	o->fd = confine_open(t->proc_fd, o->dirfd, o->tmp, O_CREAT | O_EXCL | O_WRONLY, 0644,
			     NULL);
	if (o->fd < 0) {
		rc = err_set(e, -errno, "cannot create a new file next to %s in the "
			     "container: %s", o->where, strerror(errno));
		goto fail;
	}
	o->created = true;
	if (fchown(o->fd, o->uid, t->st.gid[1]) != 0 || fchmod(o->fd, 0644) != 0) {
		rc = err_set(e, -errno, "cannot give %s to uid %u gid %u: %s%s", o->where,
			     (unsigned)o->uid, (unsigned)t->st.gid[1], strerror(errno),
			     errno == EPERM ? " (needs CAP_CHOWN)" : "");
		goto fail;
	}
	return 0;
fail:
	vm_out_abort(o);
	return rc;
}

int vm_out_commit(struct vm_out *o, struct err_text *e)
{
	/* the name may have been planted meanwhile: look again, then rename */
	int rc = check_old(o->dirfd, o->name, o->uid, o->where, e);

	if (rc == 0 && renameat(o->dirfd, o->tmp, o->dirfd, o->name) != 0)
		rc = err_set(e, -errno, "cannot rename the new file over %s: %s", o->where,
			     strerror(errno));
	if (rc) {
		vm_out_abort(o);
		return rc;
	}
	o->created = false;
	close(o->dirfd);
	o->dirfd = -1;
	return 0;
}

void vm_out_abort(struct vm_out *o)
{
	if (o->created)
		unlinkat(o->dirfd, o->tmp, 0);
	o->created = false;
	if (o->fd >= 0)
		close(o->fd);
	if (o->dirfd >= 0)
		close(o->dirfd);
	o->fd = o->dirfd = -1;
}

int vm_map_write(const struct target *t, const char *text, size_t len, char *where,
		 size_t cap, struct err_text *e)
{
	struct vm_out o;
	char name[64];
	int rc;

	snprintf(name, sizeof(name), "perf-%d.map", (int)t->st.nspid);
	rc = vm_out_begin(t, name, &o, where, cap, e);
	if (rc)
		return rc;
	rc = fdio_write_all(o.fd, text, len, 0);
	if (rc) {
		err_set(e, rc, "cannot write %s: %s%s", where, strerror(-rc),
			rc == -ENOSPC || rc == -EDQUOT ? " (the container's file system is full)" : "");
		vm_out_abort(&o);
		return rc;
	}
	close(o.fd);
	o.fd = -1;
	return vm_out_commit(&o, e);
}
