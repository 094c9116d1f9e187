/* SPDX-License-Identifier: Apache-2.0 */
/* vm_write.c - the perf map `jsym map` writes, in the JVM's container. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
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

/* The escaped names a map may hold: what the walk keeps of raw names
 * (vm_scan.h), so a map of names without a byte to escape is never cut. */
static size_t names_budget(const struct vm_snapshot *s)
{
	return s->max_name_bytes ? s->max_name_bytes : VM_MAX_NAME_BYTES;
}

int vm_map_render_more(const struct vm_snapshot *s, size_t upto, struct vm_map_text *t)
{
	size_t len = t->len, budget = names_budget(s), lines = t->lines, nb = t->name_bytes;
	bool capped = t->capped;

	if (text_reserve(&t->buf, &t->cap, len + 1, 256 * 1024))
		return -ENOMEM;
	for (size_t k = t->done; k < upto && !capped; k++) {
		const struct vm_entry *en = &s->e[k];
		const char *name = vm_entry_name(s, en);
		size_t nlen = strlen(name), line = len, esc;

		/* two hex numbers, two spaces and a newline take at most 35
		 * bytes; an escaped byte takes 4 (\xNN) */
		if (text_reserve(&t->buf, &t->cap, len + 36 + 4 * nlen, 256 * 1024)) {
			t->buf[t->len] = '\0';    /* t as it was */
			return -ENOMEM;
		}
		len += put_hex(t->buf + len, en->start);
		t->buf[len++] = ' ';
		len += put_hex(t->buf + len, en->size);
		t->buf[len++] = ' ';
		/* A method name is the JVM's text (a class file may hold ESC or
		 * a C1 control): the map goes to a terminal with --stdout and
		 * through perf to one later, so it holds only the escaped form. */
		term_escape(t->buf + len, t->cap - len, name, nlen, 0);
		esc = strlen(t->buf + len);
		/* Escaping makes up to four bytes of one: names of nothing but
		 * bytes to escape (0x9b, 4095 of them, to the walk's cap) would
		 * make 512 MiB of text from its 128 MiB of names.  The escaped
		 * names stop at the walk's cap on raw names: the map ends before
		 * the first that does not fit (issue 24 row 9). */
		if (nb + esc > budget) {
			len = line;
			capped = true;
			break;
		}
		nb += esc;
		len += esc;
		t->buf[len++] = '\n';
		lines++;
	}
	t->buf[len] = '\0';    /* not part of the map; for callers that print it */
	t->len = len;
	t->lines = lines;
	t->name_bytes = nb;
	t->capped = capped;
	t->done = upto > t->done ? upto : t->done;
	return 0;
}

int vm_map_text_finish(const struct vm_snapshot *s, struct vm_map_text *t)
{
	if (s->settled != s->n) {       /* put in order at the end: again */
		t->len = t->done = t->lines = t->name_bytes = 0;
		t->capped = false;
	}
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
static int check_old(const struct vm_out *o, const char *name, struct err_text *e)
{
	const char *where = o->where;
	uid_t uid = o->uid;
	struct stat st;
	int rc = confine_stat(o->mnt_fd, o->dirfd, name, O_NOFOLLOW, &st, NULL);

	if (rc)
		return rc == -ENOENT ? 0 : err_set(e, rc, "cannot look at %s: %s",
						   where, strerror(-rc));
	if (!S_ISREG(st.st_mode))
		return err_set(e, -ELOOP, "%s in the container is %s: refusing to replace "
			       "it (remove it)", where, kind_of(st.st_mode));
	if (st.st_uid != uid && st.st_uid != 0)
		return err_set(e, -EPERM, "%s in the container belongs to uid %u, not to "
			       "the JVM's uid %u: refusing to replace it (remove it)", where,
			       (unsigned)st.st_uid, (unsigned)uid);
	return 0;
}

/*
 * name created in dirfd with the JVM's ids as the file-system ids, so the
 * kernel's own permission check on the directory decides, as for attach's
 * copies (deploy_place): jsym never creates, as root, a file where the
 * JVM's user could not (an AltTempDir of /etc, a root-owned 0755 /tmp),
 * and a rootless container's file system gets an inode of an id it maps.
 * setfsuid is per thread and drops the file capabilities only while it
 * lasts.  The fd or -errno.
 */
static int create_as_jvm(const struct target *t, int dirfd, const char *name)
{
	bool as_jvm = geteuid() != t->st.uid[1] || getegid() != t->st.gid[1];
	int fd, err;

	if (as_jvm) {
		setfsgid(t->st.gid[1]);
		setfsuid(t->st.uid[1]);
	}
	fd = confine_open(t->proc_fd, dirfd, name, O_CREAT | O_EXCL | O_WRONLY, 0644, NULL);
	err = fd < 0 ? -fd : 0;
	if (as_jvm) {
		setfsuid(geteuid());
		setfsgid(getegid());
	}
	return fd >= 0 ? fd : -err;
}

int vm_out_begin(const struct target *t, const char *name, struct vm_out *o, char *where,
		 size_t cap, struct err_text *e)
{
	const char *dir = target_out_dir(t);
	struct timespec ts;
	int rc;

	memset(o, 0, sizeof(*o));
	o->fd = o->dirfd = -1;
	o->mnt_fd = t->proc_fd;
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
	rc = check_old(o, name, e);
	if (rc)
		goto fail;
	o->fd = create_as_jvm(t, o->dirfd, o->tmp);
	if (o->fd < 0) {
		rc = err_set(e, o->fd, "cannot create a new file next to %s in the "
			     "container as the JVM's uid %u gid %u: %s%s", o->where,
			     (unsigned)o->uid, (unsigned)t->st.gid[1], strerror(-o->fd),
			     o->fd == -EACCES || o->fd == -EPERM ? " (jsym writes only where "
			     "the JVM's user could; make the directory writable for it)" : "");
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
	int rc = check_old(o, o->name, e);

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
