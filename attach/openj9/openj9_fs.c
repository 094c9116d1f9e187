/* SPDX-License-Identifier: Apache-2.0 */
/*
 * openj9_fs.c - finding an OpenJ9 VM in the target's filesystem.
 *
 * Everything is opened relative to the target's root dirfd by the confined
 * open (common/confine.h): one component at a time with RESOLVE_IN_ROOT's
 * rules on every kernel, so a symlink such as /tmp -> /var/tmp resolves
 * inside the target and ".." never climbs above its root.  Files inside the common dir are opened by name from its dirfd with
 * O_NOFOLLOW.  Every file there is treated as hostile: size-bounded reads,
 * regular files only, O_NONBLOCK so a FIFO cannot stall us.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base.h"
#include "openj9.h"
#include "openj9_int.h"
#include "target.h"

#define ATTACHINFO_MAX (64 * 1024)
#define ATTACHINFO_MS 1000      /* a VM's attachInfo is read within this */

int openj9_common_dir(const struct openj9_target *t, char *path, size_t pathlen,
		      struct err_text *e)
{
	const char *tmp = "/tmp";
	int fd, n;

	if (t->attach_dir && t->attach_dir[0]) {
		if (t->attach_dir[0] != '/') {
			return err_set(e, -EINVAL, "-Dcom.ibm.tools.attach.directory=%s is not absolute "
				    "(jsym cannot resolve it against the JVM's working directory)",
				    t->attach_dir);
		}
		n = snprintf(path, pathlen, "%s", t->attach_dir);
	} else {
		/* B1: the target's $TMPDIR when it exists there, else /tmp. */
		if (t->tmpdir && t->tmpdir[0] == '/') {
			fd = confine_open(MNT(t), t->root_fd, t->tmpdir, O_PATH | O_DIRECTORY,
					  0, NULL);
			if (fd >= 0) {
				close(fd);
				tmp = t->tmpdir;
			}
		}
		n = snprintf(path, pathlen, "%s%s.com_ibm_tools_attach", tmp,
			     tmp[strlen(tmp) - 1] == '/' ? "" : "/");
	}
	if (n < 0 || (size_t)n >= pathlen)
		return err_set(e, -ENAMETOOLONG, "OpenJ9 attach directory path too long");
	fd = confine_open(MNT(t), t->root_fd, path, O_RDONLY | O_DIRECTORY, 0, NULL);
	if (fd == -ENOTDIR)
		fd = -ENOENT;
	if (fd < 0)
		err_set(e, fd, "no OpenJ9 attach directory %s in the target: %s%s", path,
			    strerror(-fd), fd == -ENOENT ? " (not an OpenJ9 JVM, or its attach API "
			    "is disabled)" : "");
	return fd;
}

bool openj9_skip_entry(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	       strcmp(name, "_attachlock") == 0 || strcmp(name, "_controller") == 0 ||
	       strcmp(name, "_master") == 0 || strcmp(name, "_notifier") == 0 ||
	       strncmp(name, ".trash_", 7) == 0;
}

/* s is exactly pid in decimal (text_parse_pid: no sign, no blanks). */
static bool pid_equals(const char *s, pid_t pid)
{
	pid_t v;

	return text_parse_pid(s, &v) == 0 && v == pid;
}

/* 2 = attachInfo names nspid, 1 = unreadable but the dir is named nspid, 0 = no. */
static int vm_matches(int mnt_fd, int common, const char *name, pid_t nspid)
{
	struct openj9_props p;
	char *buf;
	ssize_t len;
	int fd, m = 0;

	fd = confine_open(mnt_fd, common, name, O_PATH | O_DIRECTORY | O_NOFOLLOW, 0, NULL);
	if (fd < 0)
		return 0;
	len = confine_read(mnt_fd, fd, "attachInfo", ATTACHINFO_MAX, ATTACHINFO_MS, &buf, NULL);
	close(fd);
	if (len >= 0 && openj9_props_parse(&p, buf, (size_t)len) == 0) {
		if (pid_equals(openj9_props_get(&p, "processId"), nspid))
			m = 2;
		openj9_props_free(&p);
	} else if (len == -EACCES && pid_equals(name, nspid)) {
		m = 1;
	}
	free(buf);
	return m;
}

int openj9_find_in_dir(int mnt_fd, int common, pid_t nspid, char *vmid, size_t vmid_len)
{
	char best[256] = "";
	int best_m = 0, scanned = 0, fd = dup(common);
	struct dirent *d;
	DIR *dir;

	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -errno;
	}
	rewinddir(dir);
	while ((d = readdir(dir)) && scanned++ < OPENJ9_MAX_ENTRIES) {
		int m;

		if (openj9_skip_entry(d->d_name) || d->d_name[0] == '.' ||
		    strlen(d->d_name) >= sizeof(best))
			continue;
		m = vm_matches(mnt_fd, common, d->d_name, nspid);
		/* Prefer attachInfo evidence; among equals, the dir named nspid. */
		if (m > best_m || (m && m == best_m && pid_equals(d->d_name, nspid))) {
			best_m = m;
			strcpy(best, d->d_name);
		}
	}
	closedir(dir);
	if (!best_m)
		return -ENOENT;
	if (vmid && vmid_len) {
		if (strlen(best) >= vmid_len)
			return -ENAMETOOLONG;
		strcpy(vmid, best);
	}
	return 0;
}

int openj9_find_vm(const struct openj9_target *t, char *vmid, size_t vmid_len,
		   struct err_text *e)
{
	char path[4200];
	int common = openj9_common_dir(t, path, sizeof(path), e), rc;

	if (common < 0)
		return common;
	rc = openj9_find_in_dir(MNT(t), common, t->nspid, vmid, vmid_len);
	close(common);
	if (rc == -ENOENT)
		err_set(e, rc, "no OpenJ9 VM advertises pid %d in %s (not an OpenJ9 JVM, "
			    "or started with -Dcom.ibm.tools.attach.enable=no)", (int)t->nspid, path);
	else if (rc < 0)
		err_set(e, rc, "cannot read %s: %s", path, strerror(-rc));
	return rc;
}
