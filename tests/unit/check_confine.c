/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_confine.c - the one confined open (common/confine.h, issues 17 and
 * 24): a path a target controls is opened only once it is known to be a
 * plain file of a local file system, inside the target's root.  A device
 * node, a FIFO, a socket, a bind-mounted device, a procfs file, a symlink
 * out or a ".." escape at the path is refused and never opened (target
 * files, OpenJ9's common-dir files, a non-JVM's argfiles), which inotify's
 * IN_OPEN (an event of every real open, none for O_PATH) shows.
 */
#include <check.h>
#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_planted.h"
#include "check_skip.h"
#include "check_tmp.h"
#include "base.h"
#include "confine.h"
#include "openj9.h"
#include "openj9_int.h"
#include "target.h"

Suite *confine_suite(void); /* the runner finds the definition below */

static char dir[64];

static void make_dir(void)
{
	tmp_dir(dir, sizeof(dir), "confine");
}

/* dir/name */
static const char *at(const char *name)
{
	static char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static int rename_to(const char *from, const char *to)
{
	char a[128];

	snprintf(a, sizeof(a), "%s", at(from));
	return rename(a, at(to));
}

static void refused_unopened(bool device)
{
	char *buf = NULL;
	int ifd;

	if (!planted_node(at("node"), device))
		return;         /* no CAP_MKNOD: the FIFO case still ran */
	ifd = planted_watch(at("node"));
	int d = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	ck_assert_int_eq(confine_read(-1, d, "node", 4096, 1000, &buf, NULL), -EINVAL);
	ck_assert_ptr_null(buf);
	ck_assert_int_eq(confine_open(-1, d, "node", O_RDONLY, 0, NULL), -EINVAL);
	ck_assert_int_eq(confine_open(-1, d, "node", O_WRONLY | O_NOFOLLOW, 0, NULL), -EINVAL);
	/* not even O_PATH hands it out */
	ck_assert_int_eq(confine_open(-1, d, "/node", O_PATH, 0, NULL), -EINVAL);
	/* O_CREAT|O_EXCL never takes what is there */
	ck_assert_int_eq(confine_open(-1, d, "node", O_WRONLY | O_CREAT | O_EXCL, 0600, NULL),
			 -EEXIST);
	/* OpenJ9's files in its common dir (_notifier here; _attachlock and
	 * attachNotificationSync go through confine_open the same way) */
	ck_assert_int_eq(rename_to("node", "_notifier"), 0);
	key_t key;
	ck_assert_int_eq(openj9_notifier_key(-1, d, &key), -EINVAL);
	ck_assert_msg(!planted_opened(ifd), "the planted %s was opened", device ? "device" : "FIFO");
	close(d);
}

/* A FIFO (anyone can make one) and a device node (root) at a name read
 * with regular_only: refused, and never opened (main opened them, then
 * looked at the type). */
START_TEST(planted_fifo_not_opened)
{
	make_dir();
	refused_unopened(false);
}
END_TEST

/* Root only (mknod): confine_suite registers it as root. */
START_TEST(planted_device_not_opened)
{
	make_dir();
	refused_unopened(true);
}
END_TEST

/* /proc/kmsg is a "regular" file to fstat: a file system of kernel
 * interfaces is refused as a whole (harmless stand-in: /proc/self/status). */
START_TEST(procfs_file_refused)
{
	int d = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char *buf = NULL;

	ck_assert_int_ge(d, 0);
	ck_assert_int_eq(confine_read(-1, d, "status", 4096, 1000, &buf, NULL), -EPERM);
	ck_assert_int_eq(confine_open(-1, d, "status", O_RDONLY, 0, NULL), -EPERM);
	close(d);
	/* and a symlink in a plain directory that leads there is followed
	 * inside the root only: from "/", /proc is procfs again */
	make_dir();
	ck_assert_int_eq(symlink("/proc/self/status", at("lnk")), 0);
	d = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char rel[128];

	snprintf(rel, sizeof(rel), "%s", at("lnk"));
	ck_assert_int_eq(confine_open(-1, d, rel, O_RDONLY, 0, NULL), -EPERM);
	close(d);
}
END_TEST

/* A plain file is read, through the reopened O_PATH fd. */
START_TEST(plain_file_read)
{
	char path[128], *buf = NULL;
	int fd, d;

	make_dir();
	snprintf(path, sizeof(path), "%s/plain", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "-Xrs\n", 5), 5);
	close(fd);
	d = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(confine_read(-1, d, "plain", 4096, 1000, &buf, NULL), 5);
	ck_assert_str_eq(buf, "-Xrs\n");
	free(buf);
	/* a path jsym's user names: resolved as written (through a magic link
	 * of /proc here), the end checked all the same */
	char via[160];

	snprintf(via, sizeof(via), "/proc/self/root%s", path);
	ck_assert_int_eq(confine_read(-1, AT_FDCWD, via, 4096, 1000, &buf, NULL), 5);
	free(buf);
	ck_assert_int_eq(confine_read(-1, AT_FDCWD, "/proc/self/status", 4096, 1000, &buf, NULL),
			 -EPERM);
	ck_assert_int_eq(confine_open(-1, AT_FDCWD, via, O_WRONLY, 0, NULL), -EINVAL);
	/* size-capped: cut at max */
	ck_assert_int_eq(confine_read(-1, d, "plain", 3, 1000, &buf, NULL), 3);
	ck_assert_str_eq(buf, "-Xr");
	free(buf);
	/* a forked child has its own fd table: the parent's pin is not used */
	ck_assert_int_eq(confine_pin_self(), 0);
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int cfd = confine_open(-1, d, "plain", O_RDONLY, 0, NULL);
		char c;

		_exit(cfd >= 0 && read(cfd, &c, 1) == 1 && c == '-' ? 0 : 1);
	}
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(d);
}
END_TEST

/* jsym list and attach --all open every process: a process that is not a
 * JVM, with `@DIR/node` in its argv, must not get node opened (main read
 * every @argfile of every process, after opening it). */
START_TEST(non_jvm_argfile_not_opened)
{
	char arg[128];
	struct target t;
	struct err_text e = { "" };
	pid_t pid;
	int ifd, in[2];

	make_dir();
	ck_assert(planted_node(at("node"), false));
	ifd = planted_watch(at("node"));
	snprintf(arg, sizeof(arg), "@%s/node", dir);
	/* `sh -s @DIR/node`: a shell waiting for commands on a pipe we hold,
	 * with the @word where a JVM's launcher would take an argfile */
	ck_assert_int_eq(pipe(in), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(in[0], STDIN_FILENO);
		close(in[1]);
		execl("/bin/sh", "sh", "-s", arg, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	for (int i = 0; i < 200; i++) {     /* until the exec shows */
		char cl[256];
		FILE *f;
		size_t n = 0;

		snprintf(cl, sizeof(cl), "/proc/%d/cmdline", (int)pid);
		f = fopen(cl, "r");
		if (f) {
			n = fread(cl, 1, sizeof(cl), f);
			fclose(f);
		}
		if (n > 3 && memcmp(cl, "sh", 3) == 0)
			break;
		usleep(5000);
	}
	ck_assert_int_eq(target_open(pid, 0, &t, &e), 0);
	ck_assert_int_eq(t.opts.n_argfiles, 1);
	ck_assert_msg(!planted_opened(ifd), "the argfile of a non-JVM was opened");
	target_close(&t);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(in[1]);
}
END_TEST

/* A socket at the path: refused by its type. */
START_TEST(socket_refused)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s, d;

	make_dir();
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_ge(s, 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%.100s", at("sock"));
	ck_assert_int_eq(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	d = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(confine_open(-1, d, "sock", O_RDONLY, 0, NULL), -EINVAL);
	ck_assert_int_eq(confine_open(-1, d, "sock", O_PATH, 0, NULL), -EINVAL);
	close(d);
	close(s);
}
END_TEST

/* A host file beside the fake root: a symlink out (absolute or "..") and a
 * ".." path resolve inside the root, where it is not, and it is never
 * opened. */
START_TEST(symlink_and_dotdot_stay_inside)
{
	char secret[128], rel[160];
	struct err_text e = { "" };
	int ifd, d, fd;

	make_dir();
	ck_assert_int_eq(mkdir(at("root"), 0755), 0);
	ck_assert_int_eq(mkdir(at("root/etc"), 0755), 0);
	snprintf(secret, sizeof(secret), "%s", at("secret"));
	fd = open(secret, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(symlink(secret, at("root/abs")), 0);
	ck_assert_int_eq(symlink("../../../../../secret", at("root/etc/rel")), 0);
	ifd = planted_watch(secret);
	d = open(at("root"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(confine_open(-1, d, "abs", O_RDONLY, 0, &e), -ENOENT);
	ck_assert_int_eq(confine_open(-1, d, "/etc/rel", O_RDONLY, 0, NULL), -ENOENT);
	ck_assert_int_eq(confine_open(-1, d, "../secret", O_RDONLY, 0, NULL), -ENOENT);
	ck_assert_int_eq(confine_open(-1, d, "etc/../../secret", O_RDONLY, 0, NULL), -ENOENT);
	snprintf(rel, sizeof(rel), "../../../../..%s", secret);
	ck_assert_int_eq(confine_open(-1, d, rel, O_RDONLY, 0, NULL), -ENOENT);
	/* under O_NOFOLLOW a last symlink is not followed at all */
	ck_assert_int_eq(confine_open(-1, d, "abs", O_RDONLY | O_NOFOLLOW, 0, NULL), -ELOOP);
	ck_assert_msg(!planted_opened(ifd), "the file outside the root was opened");
	/* the same names inside the root do resolve there */
	fd = open(at("root/secret"), O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	fd = confine_open(-1, d, "/etc/rel", O_RDONLY, 0, NULL);
	ck_assert_int_ge(fd, 0);
	close(fd);
	close(d);
}
END_TEST

/*
 * A device bound over a plain file (what `unshare -Urm` lets any user do
 * with /dev/null) and a procfs file bound there: the file's own directory
 * entry says "regular", its mount says otherwise; refused, never opened.
 * In a mount namespace of this forked test's own: root only, and registered
 * only where one can be made (confine_suite).
 */
START_TEST(bind_mounted_device_refused)
{
	char *buf = NULL;
	int ifd, d, fd;

	ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
	ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	make_dir();
	ck_assert(planted_node(at("dev"), true));
	for (int i = 0; i < 2; i++) {
		fd = open(at(i ? "status" : "hostname"), O_WRONLY | O_CREAT | O_EXCL, 0644);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, "x\n", 2), 2);
		close(fd);
	}
	char dev[128];

	snprintf(dev, sizeof(dev), "%s", at("dev"));   /* at() has one buffer */
	ck_assert_int_eq(mount(dev, at("hostname"), NULL, MS_BIND, NULL), 0);
	ck_assert_int_eq(mount("/proc/self/status", at("status"), NULL, MS_BIND, NULL), 0);
	ifd = planted_watch(at("dev"));
	d = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(confine_read(-1, d, "hostname", 256, 1000, &buf, NULL), -EINVAL);
	ck_assert_ptr_null(buf);
	ck_assert_int_eq(confine_open(-1, d, "/hostname", O_RDONLY, 0, NULL), -EINVAL);
	ck_assert_msg(!planted_opened(ifd), "the device bound over the file was opened");
	ck_assert_int_eq(confine_open(-1, d, "status", O_RDONLY, 0, NULL), -EPERM);
	/* a look at the names is refused alike: no stat reaches procfs */
	struct stat st;

	ck_assert_int_eq(confine_stat(-1, d, "status", O_NOFOLLOW, &st, NULL), -EPERM);
	ck_assert_int_eq(confine_stat(-1, d, "hostname", O_NOFOLLOW, &st, NULL), 0);
	ck_assert(S_ISCHR(st.st_mode));         /* described, not opened */
	close(d);
}
END_TEST

/* confine_stat: what fstatat(AT_SYMLINK_NOFOLLOW) would say of a name in
 * a target's directory (issue 24: no stat outside the walk), any kind of
 * file described, symlinks followed inside the root only, a kernel
 * interface's file refused. */
START_TEST(stat_walks_confined)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct err_text e = { "" };
	struct stat st;
	int s, d, p;

	make_dir();
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_ge(s, 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%.100s", at("sock"));
	ck_assert_int_eq(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(symlink("/sock", at("abs")), 0);
	ck_assert_int_eq(symlink("../../../../../../etc/passwd", at("out")), 0);
	d = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(d, 0);
	ck_assert_int_eq(confine_stat(-1, d, "sock", O_NOFOLLOW, &st, &e), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	ck_assert_int_eq(confine_stat(-1, d, "abs", O_NOFOLLOW, &st, &e), 0);
	ck_assert(S_ISLNK(st.st_mode));
	/* followed: "/sock" is the root's own, not the host's */
	ck_assert_int_eq(confine_stat(-1, d, "abs", 0, &st, &e), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	ck_assert_int_eq(confine_stat(-1, d, "out", 0, &st, NULL), -ENOENT);
	ck_assert_int_eq(confine_stat(-1, d, "missing", O_NOFOLLOW, &st, NULL), -ENOENT);
	ck_assert_int_eq(confine_stat(-1, d, "sock", O_RDONLY | O_CREAT, &st, NULL), -EINVAL);
	p = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(confine_stat(-1, p, "status", O_NOFOLLOW, &st, &e), -EPERM);
	close(p);
	close(d);
	close(s);
}
END_TEST

/* The kinds of file system by mountinfo's type: what stalls, what is the
 * kernel's, what stores files. */
START_TEST(fs_kinds)
{
	const char *stalls[] = { "fuse", "fuseblk", "fuse.sshfs", "fuse.fuse-overlayfs",
				 "nfs", "nfs4", "cifs", "smb3", "9p", "ceph", "afs",
				 "autofs" };
	const char *kernel[] = { "proc", "sysfs", "cgroup2", "debugfs", "tracefs",
				 "securityfs", "devpts", "fusectl" };
	const char *stored[] = { "ext4", "xfs", "btrfs", "tmpfs", "overlay", "squashfs",
				 "vfat", "zfs" };

	for (size_t i = 0; i < sizeof(stalls) / sizeof(*stalls); i++)
		ck_assert_int_eq(confine_fs_kind(stalls[i]), CONFINE_FS_STALLS);
	for (size_t i = 0; i < sizeof(kernel) / sizeof(*kernel); i++)
		ck_assert_int_eq(confine_fs_kind(kernel[i]), CONFINE_FS_KERNEL);
	for (size_t i = 0; i < sizeof(stored) / sizeof(*stored); i++)
		ck_assert_int_eq(confine_fs_kind(stored[i]), CONFINE_FS_STORED);
}
END_TEST

/*
 * A chrooted target's mountinfo lists nothing above its root (not even the
 * mount its root lies on): the mount is found in another process's table,
 * so its files still open, and a FIFO there is still refused.  Root only
 * (chroot).
 */
START_TEST(chrooted_target_files_open)
{
	char path[128], *buf = NULL;
	int p[2], mnt, root, fd;
	pid_t pid;
	char c;

	make_dir();
	fd = open(at("file"), O_WRONLY | O_CREAT | O_EXCL, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "17\n", 3), 3);
	close(fd);
	ck_assert(planted_node(at("fifo"), false));
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		if (chroot(dir) != 0)
			_exit(1);
		(void)!write(p[1], "x", 1);
		pause();
		_exit(0);
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	mnt = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(mnt, 0);
	ck_assert_int_ge(root, 0);
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)pid);
	ck_assert_int_eq(confine_proc_read(mnt, "mountinfo", 4096, &buf), 0);
	free(buf);
	ck_assert_int_eq(confine_read(mnt, root, "/file", 100, 1000, &buf, NULL), 3);
	ck_assert_str_eq(buf, "17\n");
	free(buf);
	ck_assert_int_eq(confine_open(mnt, root, "/fifo", O_RDONLY, 0, NULL), -EINVAL);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(p[0]);
	close(mnt);
	close(root);
}
END_TEST

/* Flags that would open what is there, and empty or absent roots. */
START_TEST(bad_calls_refused)
{
	int d;

	make_dir();
	d = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(confine_open(-1, d, "x", O_WRONLY | O_CREAT, 0600, NULL), -EINVAL);
	ck_assert_int_eq(confine_open(-1, d, "", O_RDONLY, 0, NULL), -EINVAL);
	ck_assert_int_eq(confine_open(-1, -1, "x", O_RDONLY, 0, NULL), -EINVAL);
	ck_assert_int_eq(confine_open(-1, d, "x", O_RDONLY | O_APPEND, 0, NULL), -EINVAL);
	ck_assert_int_eq(confine_proc(d, "status", O_RDONLY), -EPERM);
	close(d);
	/* a new file's directory is checked even when it is the root itself */
	d = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(confine_open(-1, d, "x", O_WRONLY | O_CREAT | O_EXCL, 0600, NULL),
			 -EPERM);
	close(d);
}
END_TEST

/* Issue 24 deliverable 1: a library a target maps is opened as the
 * mapping itself (map_files/, for root), or by path only when the file at
 * its path is the one of the maps line.  This process maps a
 * libjvm.so, then another regular file is renamed over the path (what a
 * package upgrade does, or a target that wants jsym to read another
 * file): target_open_mapped refuses it with -ESTALE and never opens it
 * (main's three sites, read_libjvm_version, check_jvm_arch and
 * lookup_symbols, opened whatever was there). */
START_TEST(mapped_lib_replaced_refused)
{
	char lib[128], e_msg[600];
	struct err_text e = { "" };
	struct target t;
	struct stat st, st2;
	void *m;
	int fd, ifd;

	make_dir();
	snprintf(lib, sizeof(lib), "%s/lib", dir);
	ck_assert_int_eq(mkdir(lib, 0755), 0);
	snprintf(lib, sizeof(lib), "%s/lib/server", dir);
	ck_assert_int_eq(mkdir(lib, 0755), 0);
	snprintf(lib, sizeof(lib), "%s/lib/server/libjvm.so", dir);
	fd = open(lib, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 4096), 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert_ptr_ne(m, MAP_FAILED);
	close(fd);

	ck_assert_int_eq(target_open(getpid(), 0, &t, &e), 0);
	ck_assert_msg(strstr(t.maps.jvm_lib, "/lib/server/libjvm.so"), "%s", t.maps.jvm_lib);
	ck_assert_uint_eq(t.maps.jvm_lib_ino, (uint64_t)st.st_ino);
	ck_assert_uint_eq((uint64_t)t.maps.jvm_lib_dev, (uint64_t)st.st_dev);
	fd = target_open_mapped(&t, t.maps.jvm_lib, t.maps.jvm_lib_dev, t.maps.jvm_lib_ino, &e);
	ck_assert_msg(fd >= 0, "the mapped file itself: %s", e.msg);
	ck_assert_int_eq(fstat(fd, &st2), 0);
	ck_assert_uint_eq((uint64_t)st2.st_ino, (uint64_t)st.st_ino);
	close(fd);

	/* another regular file renamed over the path */
	fd = open(at("other"), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "\177ELF", 4), 4);
	close(fd);
	ifd = planted_watch(at("other"));
	ck_assert_int_eq(rename(at("other"), lib), 0);
	/* where map_files/ may be followed (root): the mapping itself, the
	 * old inode, and the new file at the path is never looked at */
	fd = target_open_mapped(&t, t.maps.jvm_lib, t.maps.jvm_lib_dev, t.maps.jvm_lib_ino, &e);
	if (geteuid() == 0) {
		ck_assert_msg(fd >= 0, "the mapping through map_files: %s", e.msg);
		ck_assert_int_eq(fstat(fd, &st2), 0);
		ck_assert_uint_eq((uint64_t)st2.st_ino, (uint64_t)st.st_ino);
		close(fd);
		ck_assert_msg(!planted_opened(ifd), "the file renamed over libjvm.so was opened");
	} else if (fd >= 0) {
		close(fd);
	}
	/* by path (no CAP_SYS_ADMIN: a DaemonSet, a sidecar): refused */
	t.maps.jvm_lib_range[0] = '\0';
	fd = target_open_mapped(&t, t.maps.jvm_lib, t.maps.jvm_lib_dev, t.maps.jvm_lib_ino, &e);
	snprintf(e_msg, sizeof(e_msg), "%s", e.msg);
	ck_assert_msg(fd == -ESTALE, "the replaced file: %d %s", fd, e_msg);
	ck_assert_msg(strstr(e_msg, "is not the file it mapped") &&
		      strstr(e_msg, "replaced since"), "%s", e_msg);
	ck_assert_msg(!planted_opened(ifd), "the file renamed over libjvm.so was opened");
	/* a maps line without a file */
	ck_assert_int_eq(target_open_mapped(&t, t.maps.jvm_lib, 0, 0, NULL), -ENOENT);
	target_close(&t);
	munmap(m, 4096);
}
END_TEST

/*
 * A process with 65,536 supplementary groups (any container root can set
 * them) has a status text of about 722 KB, NStgid: near its end.  A reader
 * that cut it at 64 KiB found no NStgid: and took the host's pid for the
 * process's own, as on a kernel before 4.1.  Here the process is pid 1 of
 * a new pid namespace, so the two differ.  Root only (setgroups), and
 * registered only where a pid namespace can be made (confine_suite).
 */
START_TEST(huge_status_keeps_nspid)
{
	static gid_t groups[65536];
	struct err_text e = { "" };
	struct target t;
	int ready[2], go[2], set[2];
	pid_t mid, inner = 0;
	char c;

	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(pipe(go), 0);
	ck_assert_int_eq(pipe(set), 0);
	mid = fork();
	ck_assert_int_ge(mid, 0);
	if (mid == 0) {
		pid_t p = 0;

		/* a multithreaded process (qemu-user) cannot: pid 0 says so */
		if (unshare(CLONE_NEWPID) != 0) {
			(void)!write(ready[1], &p, sizeof(p));
			_exit(3);
		}
		p = fork();         /* pid 1 of the new namespace */
		if (p == 0) {
			for (int i = 0; i < 65536; i++)
				groups[i] = (gid_t)(100000 + i);
			if (setgroups(65536, groups) != 0)
				_exit(4);
			if (write(set[1], "r", 1) != 1)
				_exit(5);
			if (read(go[0], &c, 1) < 0)
				_exit(6);
			_exit(0);
		}
		if (p < 0 || write(ready[1], &p, sizeof(p)) < 0)
			_exit(7);
		waitpid(p, NULL, 0);
		_exit(0);
	}
	ck_assert_int_eq(read(ready[0], &inner, sizeof(inner)), (ssize_t)sizeof(inner));
	ck_assert_msg(inner > 0, "no pid namespace, though check_can_unshare made one");
	ck_assert_int_eq(read(set[0], &c, 1), 1);       /* its groups are set */
	ck_assert_int_eq(target_open(inner, 0, &t, &e), 0);
	ck_assert_msg(t.st.nspid == 1, "nspid %d of pid %d, want 1 (%s)", (int)t.st.nspid,
		      (int)inner, e.msg);
	target_close(&t);
	ck_assert_int_eq(write(go[1], "g", 1), 1);
	waitpid(mid, NULL, 0);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
	close(set[0]);
	close(set[1]);
}
END_TEST

Suite *confine_suite(void)
{
	Suite *s = suite_create("confine");
	TCase *tc = tcase_create("planted");
	bool root = geteuid() == 0;

	tcase_add_unchecked_fixture(tc, tmp_setup, tmp_teardown);
	tcase_add_test(tc, planted_fifo_not_opened);
	check_add_if(tc, root, "confine", planted_device_not_opened, "needs root (mknod)");
	tcase_add_test(tc, procfs_file_refused);
	tcase_add_test(tc, plain_file_read);
	tcase_add_test(tc, non_jvm_argfile_not_opened);
	tcase_add_test(tc, socket_refused);
	tcase_add_test(tc, symlink_and_dotdot_stay_inside);
	check_add_if(tc, root && check_can_unshare(CLONE_NEWNS), "confine",
		     bind_mounted_device_refused, root ? "cannot make a mount namespace here" :
		     "needs root (a mount namespace, mknod)");
	tcase_add_test(tc, fs_kinds);
	tcase_add_test(tc, bad_calls_refused);
	check_add_if(tc, root, "confine", chrooted_target_files_open, "needs root (chroot)");
	tcase_add_test(tc, mapped_lib_replaced_refused);
	tcase_add_test(tc, stat_walks_confined);
	check_add_if(tc, root && check_can_unshare(CLONE_NEWPID), "confine",
		     huge_status_keeps_nspid, root ? "cannot make a pid namespace here "
		     "(qemu-user: a process with threads)" :
		     "needs root (setgroups, CLONE_NEWPID)");
	suite_add_tcase(s, tc);
	return s;
}
