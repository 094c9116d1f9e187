/* SPDX-License-Identifier: Apache-2.0 */
/*
 * confine_mnt.c - what kind of file system a descriptor lies on, learnt
 * without asking that file system (confine.h): its mount id from
 * /proc/self/fdinfo, its type from the kernel's mountinfo.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "confine_int.h"
#include "wholeread.h"

#define MOUNTINFO_MAX (64u << 20)       /* a namespace with ~400k mounts */

/* ---- /proc/self, checked to be procfs --------------------------------- */

static int self_fd = -1;
static pid_t self_pid;

bool cf_on_procfs(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) == 0 && sf.f_type == CF_PROC_MAGIC;
}

/* An O_PATH dirfd of this process's /proc/PID: the pin, or a new one that
 * *own says the caller closes.  A /proc that is not procfs (a container's
 * fake, when an unpinned process entered its namespace) is refused. */
int cf_self_dir(bool *own)
{
	int fd;

	*own = false;
	if (self_fd >= 0 && self_pid == getpid())
		return self_fd;
	fd = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!cf_on_procfs(fd)) {
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
	fd = cf_self_dir(&own);
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

/* Read a procfs file whole (the kernel's text: never stalls). */
ssize_t cf_read_proc(int dirfd, const char *name, size_t max, char **out)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;

	*out = NULL;
	if (fd < 0)
		return -errno;
	n = whole_read_alloc(fd, max, 0, out);
	close(fd);
	return n;
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
	n = cf_read_proc(w->self, name, 4096, &buf);
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

/* stat of a procfs name: O_PATH and fstat (fstatat would need glibc 2.33
 * in the lookup library, agent/jvm/glibc_compat.h).  0 or -1. */
static int stat_at(int dirfd, const char *name, struct stat *st)
{
	int fd = openat(dirfd, name, O_PATH | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = fstat(fd, st);
	close(fd);
	return rc;
}

/* Does the mountinfo of /proc/<dir>/<name> list mount id?  Its type then. */
static bool type_in(int dirfd, const char *name, long id, char *type, size_t cap)
{
	char *mi;
	bool found = cf_read_proc(dirfd, name, MOUNTINFO_MAX, &mi) >= 0 &&
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
	else if (stat_at(w->mnt_fd >= 0 ? w->mnt_fd : w->self, "ns/mnt", &want) == 0 &&
		 (procfd = openat(w->self, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		if (!cf_on_procfs(procfd) || !(d = fdopendir(procfd))) {
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
			if (w->mnt_fd >= 0 && (stat_at(procfd, name, &st) != 0 ||
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
int cf_check_mount(struct walk *w, int fd, const char *what)
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
		n = cf_read_proc(w->mnt_fd >= 0 ? w->mnt_fd : w->self, "mountinfo",
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
