/* SPDX-License-Identifier: Apache-2.0 */
/* regular.c - type-checked opens of planted files: see regular.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "regular.h"

/* /proc/self/fd of the process that opened it (fd_dir_pid): a forked child
 * must not use its parent's, whose fd numbers mean other files. */
static int fd_dir = -1;
static pid_t fd_dir_pid;

int reg_pin_self(void)
{
	int fd = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	/* one inherited from the parent is the parent's table: drop it */
	if (fd_dir >= 0)
		close(fd_dir);
	fd_dir = fd;
	fd_dir_pid = getpid();
	return 0;
}

/* File systems whose files are kernel interfaces, not stored data (their
 * magic numbers, linux/magic.h, spelled out: musl has no such header). */
static bool pseudo_fs(long type)
{
	static const unsigned long magic[] = {
		0x9fa0,         /* proc */
		0x62656572,     /* sysfs */
		0x64626720,     /* debugfs */
		0x74726163,     /* tracefs */
		0x73636673,     /* securityfs */
		0x27e0eb,       /* cgroup */
		0x63677270,     /* cgroup2 */
		0xcafe4a11,     /* bpf */
		0x62656570,     /* configfs */
		0xde5e81e4,     /* efivarfs */
		0x6165676c,     /* pstore */
		0x65735543,     /* fusectl */
	};

	for (size_t i = 0; i < sizeof(magic) / sizeof(magic[0]); i++)
		if ((unsigned long)type == magic[i])
			return true;
	return false;
}

int reg_reopen(int pathfd, int flags)
{
	struct stat st, st2;
	struct statfs sf;
	char name[16];
	int fd, dirfd, err;

	if (fstat(pathfd, &st) != 0 || fstatfs(pathfd, &sf) != 0)
		return -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;  /* as O_NOFOLLOW would say */
	if (!S_ISREG(st.st_mode) || pseudo_fs((long)sf.f_type))
		return -EINVAL;
	/* a pin of this very process, else /proc/self/fd for this call only
	 * (a descriptor left open would be one more in every caller) */
	dirfd = fd_dir >= 0 && fd_dir_pid == getpid() ? fd_dir :
		open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	snprintf(name, sizeof(name), "%d", pathfd);
	fd = openat(dirfd, name, (flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW | O_PATH)) |
		    O_CLOEXEC | O_NONBLOCK);
	err = errno;
	if (dirfd != fd_dir)
		close(dirfd);
	if (fd < 0)
		return -err;
	/* the magic link names pathfd's own inode; say so rather than trust */
	if (fstat(fd, &st2) != 0 || st2.st_ino != st.st_ino || st2.st_dev != st.st_dev) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

int reg_open_at(int dirfd, const char *name, int flags)
{
	int pfd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), fd;

	if (pfd < 0)
		return -errno;
	fd = reg_reopen(pfd, flags);
	close(pfd);
	return fd;
}
