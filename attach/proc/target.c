/* SPDX-License-Identifier: Apache-2.0 */
/* target.c - collect target facts from /proc (see target.h). */
#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/fsuid.h>
#include <unistd.h>

#include "base.h"
#include "jdk_version.h"
#include "proc.h"
#include "procstatus.h"
#include "target.h"

#define SMALL_FILE (64 * 1024)
#define MAPS_MAX (32 * 1024 * 1024)
/* a file of a target's root is read within this (confine_read_fd) */
#define TARGET_READ_MS 2000

static const char *const ns_names[TNS_COUNT] = {
	[TNS_MNT] = "mnt", [TNS_NET] = "net", [TNS_IPC] = "ipc",
	[TNS_PID] = "pid", [TNS_USER] = "user",
};

const char *target_ns_name(enum target_ns ns)
{
	return (unsigned)ns < TNS_COUNT ? ns_names[ns] : "?";
}

/* A file of /proc/<pid>: never a symlink, never more than max bytes. */
static ssize_t read_file_at(int dirfd, const char *name, size_t max, char **out)
{
	return confine_proc_read(dirfd, name, max, out);
}

static int read_stat(const struct target *t, char *state, uint64_t *start)
{
	char *buf;
	ssize_t n = read_file_at(t->proc_fd, "stat", SMALL_FILE, &buf);
	int rc;

	if (n < 0)
		return (int)n;
	rc = proc_parse_stat(buf, (size_t)n, state, start);
	free(buf);
	return rc;
}

bool target_alive(const struct target *t)
{
	char state;
	uint64_t start;

	if (read_stat(t, &state, &start) != 0)
		return false;
	return start == t->starttime && state != 'Z' && state != 'X';
}

bool target_gone_within(const struct target *t, int ms)
{
	struct pollfd pfd = { t->pidfd, POLLIN, 0 };
	long until = clock_ms() + ms;

	/* a pidfd turns readable when the process has exited; without one,
	 * look at its stat every 10 ms */
	while (target_alive(t)) {
		long left = until - clock_ms();

		if (left <= 0)
			return false;
		if (t->pidfd >= 0)
			(void)poll(&pfd, 1, (int)left);
		else
			usleep(10000);
	}
	return true;
}

bool target_stopped(const struct target *t)
{
	char state;
	uint64_t start;

	return read_stat(t, &state, &start) == 0 && start == t->starttime &&
	       (state == 'T' || state == 't');
}

/*
 * Read a small regular file of the target: `path` is taken from its root
 * when absolute, from its cwd otherwise, and never leaves its root.  Only
 * a plain file on a local file system is opened at all (confine_open: a
 * device node, /proc/kmsg or a FUSE file planted there is not), and with
 * the JVM's filesystem ids, so that jsym reads no more than the JVM itself
 * could.  Returns the length (buffer in *out, to free) or -errno.
 */
static ssize_t read_target_file(const struct target *t, const char *path,
				size_t max, char **out)
{
	int dir = path[0] == '/' ? t->root_fd : t->cwd_fd;
	uid_t uid;
	gid_t gid;
	ssize_t n;

	*out = NULL;
	if (dir < 0)
		return -EBADF;
	/* per thread and without effect on anything but file access; a
	 * missing CAP_SETUID leaves jsym's ids (then the open is as before) */
	gid = (gid_t)setfsgid(t->st.gid[3]);
	uid = (uid_t)setfsuid(t->st.uid[3]);
	n = confine_read(t->proc_fd, dir, path, max, TARGET_READ_MS, out, NULL);
	setfsuid(uid);
	setfsgid(gid);
	return n;
}

/*
 * Options in the @argfiles of the command line (DisableAttachMechanism,
 * -Xrs hide there too).  Read inside the target, as it would see them.
 */
static void read_argfiles(struct target *t)
{
	for (int i = 0; i < t->opts.n_argfiles; i++) {
		char *buf;
		ssize_t n = read_target_file(t, t->opts.argfiles[i], SMALL_FILE * 16,
					     &buf);

		if (n < 0)
			continue;
		proc_parse_argfile(buf, (size_t)n, &t->opts);
		free(buf);
	}
}

/* File systems whose stat(2) device is not the one /proc/<pid>/maps shows:
 * overlayfs (maps gave the layer's device before Linux 6.8; on 6.18 both
 * show the overlay's, 0:41 in a podman container), btrfs and bcachefs
 * (stat gives a subvolume's anonymous device, maps the superblock's). */
#define OVERLAYFS_MAGIC 0x794c7630L
#define BTRFS_MAGIC 0x9123683eL
#define BCACHEFS_MAGIC 0xca451a4eL

int target_open_mapped(const struct target *t, const char *path, dev_t dev,
		       uint64_t ino, struct err_text *e)
{
	struct statfs sf;
	struct stat st;
	bool dev_differs;
	int pfd, fd;

	if (t->root_fd < 0)
		return err_set(e, -EBADF, "cannot open %s: the process's root directory "
			       "was not opened", path);
	if (!path[0] || ino == 0)
		return err_set(e, -ENOENT, "cannot open the mapped %s: its maps line "
			       "names no file", path[0] ? path : "library");
	/* the mapping itself, where jsym may follow map_files/ links: no
	 * name in the root is looked up, so nothing can be put in its way */
	if (t->maps.jvm_lib_range[0] && strcmp(path, t->maps.jvm_lib) == 0) {
		char name[64];
		int rc;

		snprintf(name, sizeof(name), "map_files/%s", t->maps.jvm_lib_range);
		pfd = confine_proc(t->proc_fd, name, O_PATH);
		if (pfd >= 0) {
			rc = confine_check_fd(t->proc_fd, pfd, path, e);
			if (rc == 0)
				rc = confine_reopen(pfd, O_RDONLY, e);
			close(pfd);
			return rc;
		}
		/* -EPERM without CAP_SYS_ADMIN (a DaemonSet, a sidecar): by path */
	}
	/* a plain file on a local file system, or nothing: a device or FIFO
	 * planted at the path since it was mapped is refused unopened */
	pfd = confine_open(t->proc_fd, t->root_fd, path, O_PATH | O_NOFOLLOW, 0, e);
	if (pfd < 0)
		return pfd;
	if (fstat(pfd, &st) != 0) {
		fd = err_set(e, -errno, "cannot stat %s: %s", path, strerror(errno));
		close(pfd);
		return fd;
	}
	dev_differs = st.st_dev != dev;
	if (dev_differs && fstatfs(pfd, &sf) == 0 &&
	    ((long)sf.f_type == OVERLAYFS_MAGIC || (long)sf.f_type == BTRFS_MAGIC ||
	     (long)sf.f_type == BCACHEFS_MAGIC))
		dev_differs = false;
	if ((uint64_t)st.st_ino != ino || dev_differs) {
		close(pfd);
		return err_set(e, -ESTALE, "%s inside the process's root is not the file it "
			       "mapped (inode %llu on %u:%u there, %llu on %u:%u mapped): it "
			       "was replaced since (an upgrade, or planted); jsym reads only "
			       "the mapped file", path, (unsigned long long)st.st_ino,
			       major(st.st_dev), minor(st.st_dev), (unsigned long long)ino,
			       major(dev), minor(dev));
	}
	fd = confine_reopen(pfd, O_RDONLY, e);
	close(pfd);
	return fd;
}

#define LIBJVM_MAX (256u << 20)

/*
 * A HotSpot without a readable `release` (Debian's openjdk-8 ships none):
 * the version from the VM info string in libjvm.so (jdk_version.h), read
 * through a private read-only mapping of the file the JVM maps, inside its
 * root.  The JVM has those pages in memory already; nothing is written.
 */
static void read_libjvm_version(struct target *t)
{
	struct stat st;
	void *m;
	int fd, rc;

	if (t->maps.kind != PROC_HOTSPOT)
		return;
	fd = target_open_mapped(t, t->maps.jvm_lib, t->maps.jvm_lib_dev,
				t->maps.jvm_lib_ino, NULL);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > LIBJVM_MAX) {
		close(fd);
		return;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return;
	rc = jdk_parse_vm_info(m, (size_t)st.st_size, t->jdk_version,
			       sizeof(t->jdk_version));
	munmap(m, (size_t)st.st_size);
	if (rc > 0)
		t->jdk_major = rc;
	else
		t->jdk_version[0] = '\0';
}

/* JDK version from <home>/release, resolved inside the target's root; from
 * libjvm.so when there is none. */
static void read_release(struct target *t)
{
	char home[512];
	char *buf;
	ssize_t n;
	int rc;

	if (t->root_fd < 0 || !t->maps.jvm_lib[0] ||
	    proc_jdk_home(t->maps.jvm_lib, home, sizeof(home)) != 0)
		return;
	if (strlen(home) + sizeof("/release") > sizeof(home))
		return;
	strcat(home, "/release");
	n = read_target_file(t, home, SMALL_FILE, &buf);
	rc = n < 0 ? (int)n : proc_parse_release(buf, (size_t)n, t->jdk_version,
						  sizeof(t->jdk_version));
	if (n >= 0)
		free(buf);
	if (rc > 0)
		t->jdk_major = rc;
	else
		read_libjvm_version(t);
}

static void read_options(struct target *t)
{
	char *buf;
	ssize_t n;

	n = read_file_at(t->proc_fd, "environ", MAPS_MAX / 8, &buf);
	if (n >= 0) {
		proc_parse_environ(buf, (size_t)n, &t->opts);
		free(buf);
	}
	n = read_file_at(t->proc_fd, "cmdline", MAPS_MAX / 8, &buf);
	if (n >= 0) {
		proc_parse_cmdline(buf, (size_t)n, &t->opts);
		t->cmdline_read = true;
		free(buf);
	}
}

static void read_cgroup(struct target *t)
{
	char *buf, *line;
	ssize_t n = read_file_at(t->proc_fd, "cgroup", SMALL_FILE, &buf);

	if (n <= 0)
		return;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	line = strrchr(buf, '\n');
	line = line ? line + 1 : buf;
	/* "0::/kubepods/..." -> the path */
	if (strncmp(line, "0::", 3) == 0)
		line += 3;
	snprintf(t->cgroup, sizeof(t->cgroup), "%s", line);
	free(buf);
}

static void open_namespaces(struct target *t)
{
	for (int i = 0; i < TNS_COUNT; i++) {
		char path[32], self[32];
		struct stat a, b;

		snprintf(path, sizeof(path), "ns/%s", ns_names[i]);
		snprintf(self, sizeof(self), "/proc/self/ns/%s", ns_names[i]);
		t->ns[i].fd = confine_proc(t->proc_fd, path, O_RDONLY);
		if (t->ns[i].fd < 0 || fstat(t->ns[i].fd, &a) != 0 ||
		    stat(self, &b) != 0)
			continue;
		t->ns[i].known = true;
		t->ns[i].differs = a.st_ino != b.st_ino || a.st_dev != b.st_dev;
	}
}

/* The root's path as we see it, read with the rights that opened root_fd. */
static void read_root_path(struct target *t)
{
	ssize_t n = -1;

	if (t->root_fd >= 0)
		n = readlinkat(t->proc_fd, "root", t->root_path, sizeof(t->root_path) - 1);
	t->root_path[n > 0 ? n : 0] = '\0';
}

/*
 * Every path jsym uses for a target is taken from the target's own root:
 * the loader the probe runs, the JDK's release, an agent to load again.
 * maps names them from ours (proc.h, proc_maps_in_root).
 */
static void maps_in_root(struct target *t)
{
	if (t->root_path[0])
		(void)proc_maps_in_root(&t->maps, t->root_path);
}

static void open_fds(struct target *t)
{
	ssize_t n;

	open_namespaces(t);
	t->root_fd = confine_proc(t->proc_fd, "root", O_PATH | O_DIRECTORY);
	if (t->root_fd < 0)
		t->root_err = t->root_fd;
	read_root_path(t);
	t->cwd_fd = confine_proc(t->proc_fd, "cwd", O_PATH | O_DIRECTORY);
	if (t->cwd_fd < 0 && t->root_err == 0)
		t->root_err = t->cwd_fd;
	n = readlinkat(t->proc_fd, "cwd", t->cwd_path, sizeof(t->cwd_path) - 1);
	t->cwd_path[n > 0 ? n : 0] = '\0';
#ifdef SYS_pidfd_open
	t->pidfd = (int)syscall(SYS_pidfd_open, t->pid, 0);
	/* the pid may have been reused between opening /proc/<pid> and the
	 * pidfd: proc_fd still answering with the same start time rules it out */
	if (t->pidfd >= 0 && !target_alive(t)) {
		close(t->pidfd);
		t->pidfd = -1;
	}
#endif
}

static void open_root_only(struct target *t)
{
	t->root_fd = confine_proc(t->proc_fd, "root", O_PATH | O_DIRECTORY);
	if (t->root_fd < 0)
		t->root_err = t->root_fd;
	read_root_path(t);
}

/*
 * Root without CAP_SYS_PTRACE (a sidecar) may not read another uid's
 * /proc/<pid>/root, but after seteuid to the target's own ids the ptrace
 * access check passes (same fsuid, dumpable).  Retry what failed that way,
 * then switch back: seteuid(0) restores the effective capabilities.
 */
static void retry_as_owner(struct target *t, unsigned flags)
{
	struct creds_saved sv;
	char *buf;
	ssize_t n;

	if (creds_become(t->st.uid[1], t->st.gid[1], NULL, -1, &sv, NULL) != 0)
		return;
	if (t->maps_err == -EACCES) {
		n = read_file_at(t->proc_fd, "maps", MAPS_MAX, &buf);
		if (n >= 0) {
			t->maps_err = 0;
			proc_parse_maps(buf, (size_t)n, &t->maps);
			free(buf);
		}
		read_options(t);
	}
	if (t->root_err == -EACCES) {
		for (int i = 0; i < TNS_COUNT; i++)
			if (t->ns[i].fd >= 0)
				close(t->ns[i].fd);
		if (t->root_fd >= 0)
			close(t->root_fd);
		if (t->cwd_fd >= 0)
			close(t->cwd_fd);
		if (t->pidfd >= 0)
			close(t->pidfd);
		t->root_fd = t->cwd_fd = t->pidfd = -1;
		t->root_err = 0;
		if (flags & TARGET_FDS)
			open_fds(t);
		else
			open_root_only(t);
		t->opened_as_owner = t->root_err == 0;
	}
	creds_restore(&sv);
}

static int open_pid(pid_t pid, unsigned flags, struct target *t,
		    struct err_text *e, bool follow_thread)
{
	char path[64];
	char *buf;
	ssize_t n;
	int rc;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->proc_fd = t->pidfd = t->root_fd = t->cwd_fd = -1;
	for (int i = 0; i < TNS_COUNT; i++)
		t->ns[i].fd = -1;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	t->proc_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->proc_fd < 0) {
		rc = -errno;
		if (rc == -ENOENT)
			rc = -ESRCH;
		return err_set(e, rc, rc == -ESRCH ?
			       "no process with pid %d is visible here (check the pid; "
			       "from a container, share the pid namespace)" :
			       "cannot open /proc/%d: %s", (int)pid, strerror(-rc));
	}
	n = confine_proc_read_whole(t->proc_fd, "status", PROCSTATUS_MAX, &buf);
	if (n < 0) {
		rc = (int)n == -ENOENT ? -ESRCH : (int)n;
		return err_set(e, rc, "cannot read /proc/%d/status: %s",
			       (int)pid, strerror(-rc));
	}
	rc = proc_parse_status(buf, (size_t)n, &t->st);
	free(buf);
	if (rc)
		return err_set(e, rc, "cannot parse /proc/%d/status", (int)pid);
	if (t->st.tgid != pid && t->st.tgid > 0 && follow_thread) {
		/* a thread id (e.g. from perf or top -H): use its process */
		pid_t tgid = t->st.tgid;

		close(t->proc_fd);
		rc = open_pid(tgid, flags, t, e, false);
		t->thread = pid;
		return rc;
	}
	rc = read_stat(t, &t->state, &t->starttime);
	if (rc)
		return err_set(e, rc, "cannot read /proc/%d/stat: %s", (int)pid,
			       strerror(-rc));
	n = read_file_at(t->proc_fd, "maps", MAPS_MAX, &buf);
	if (n < 0) {
		t->maps_err = (int)n;
	} else {
		proc_parse_maps(buf, (size_t)n, &t->maps);
		free(buf);
	}
	read_options(t);
	read_cgroup(t);
	if (flags & TARGET_FDS)
		open_fds(t);
	else
		open_root_only(t);
	if ((t->maps_err == -EACCES || t->root_err == -EACCES) &&
	    geteuid() == 0 && t->st.uid[1] != 0)
		retry_as_owner(t, flags);
	maps_in_root(t);
	/* A JVM's own files only: a process that is not one (jsym list and
	 * attach --all open every process) has nothing jsym needs to read. */
	if (t->maps.kind != PROC_NOT_JVM) {
		read_release(t);
		read_argfiles(t);
	}
	return 0;
}

int target_open(pid_t pid, unsigned flags, struct target *t,
		struct err_text *e)
{
	return open_pid(pid, flags, t, e, true);
}

const char *target_hs_tmpdir(const struct target *t)
{
	const char *d = t->opts.alt_tmpdir;

	if (t->jdk_major != 0 && t->jdk_major < 28)
		return "/tmp";
	/* the JVM's own word: where it mapped its perf data (also when the
	 * flag came from where jsym does not look, e.g. -XX:VMOptionsFile) */
	if (t->maps.perfdata_dir[0] == '/')
		return t->maps.perfdata_dir;
	return d[0] == '/' ? d : "/tmp";
}

bool target_plain_dir(const char *d)
{
	if (d[0] != '/' || strlen(d) >= 120 || strpbrk(d, ":,"))
		return false;
	for (const unsigned char *p = (const unsigned char *)d; *p; p++)
		if (*p <= ' ' || *p >= 0x7f)
			return false;   /* blanks, controls, anything not ASCII */
	return true;
}

const char *target_out_dir(const struct target *t)
{
	const char *hs = target_hs_tmpdir(t);
	struct statvfs v;
	bool tmp_ok;
	int fd;

	if (!strcmp(hs, "/tmp") || !target_plain_dir(hs) || t->root_fd < 0)
		return "/tmp";
	/* perf looks for /tmp/perf-<pid>.map: keep it there while it can be */
	fd = confine_open(t->proc_fd, t->root_fd, "tmp", O_PATH | O_DIRECTORY, 0, NULL);
	tmp_ok = fd >= 0 && fstatvfs(fd, &v) == 0 && !(v.f_flag & ST_RDONLY);
	if (fd >= 0)
		close(fd);
	return tmp_ok ? "/tmp" : hs;
}

void target_close(struct target *t)
{
	int *fds[] = { &t->proc_fd, &t->pidfd, &t->root_fd, &t->cwd_fd };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	for (int i = 0; i < TNS_COUNT; i++) {
		if (t->ns[i].fd >= 0)
			close(t->ns[i].fd);
		t->ns[i].fd = -1;
	}
}

const char *target_libc_name(const struct target *t)
{
	switch (t->maps.libc) {
	case PROC_LIBC_GLIBC:
		return "glibc";
	case PROC_LIBC_MUSL:
		return "musl";
	default:
		return "unknown";
	}
}

int target_reread_maps(struct target *t)
{
	struct creds_saved sv;
	bool as_owner = false;
	char *buf;
	ssize_t n;

	n = read_file_at(t->proc_fd, "maps", MAPS_MAX, &buf);
	if (n == -EACCES &&
	    creds_become(t->st.uid[1], t->st.gid[1], NULL, -1, &sv, NULL) == 0) {
		as_owner = true;
		n = read_file_at(t->proc_fd, "maps", MAPS_MAX, &buf);
	}
	if (as_owner)
		creds_restore(&sv);
	if (n < 0)
		return (int)n;
	proc_parse_maps(buf, (size_t)n, &t->maps);
	free(buf);
	maps_in_root(t);
	return 0;
}
