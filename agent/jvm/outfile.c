/* SPDX-License-Identifier: Apache-2.0 */
/*
 * outfile.c - openat-relative, no-follow, regular-files-only output files.
 */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int outfile_open_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static const char *kind_of(mode_t m)
{
	if (S_ISLNK(m))
		return "a symlink";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	return "not a regular file";
}

int outfile_open(int dirfd, const char *name, int flags, struct err_text *why)
{
	struct stat st;
	int fd, err;

	fd = openat(dirfd, name, ((flags & O_RDWR) ? 0 : O_WRONLY) | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY |
		    flags,
		    0644);
	if (fd < 0) {
		err = -errno;
		if (err == -ELOOP)
			err_set(why, 0, "%s exists and is a symlink: refusing to follow it "
				 "(remove it and load the agent again)", name);
		else if (err == -ENXIO)
			err_set(why, 0, "%s exists and is a FIFO or socket with no reader: "
				 "refusing it (remove it and load the agent again)", name);
		else
			err_set(why, 0, "cannot create %s: %s", name, strerror(-err));
		return err;
	}
	if (fstat(fd, &st) < 0) {
		err = -errno;
		err_set(why, 0, "cannot stat %s: %s", name, strerror(-err));
		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		err_set(why, 0, "%s exists and is %s: refusing it (remove it and load the "
			 "agent again)", name, kind_of(st.st_mode));
		close(fd);
		return -EPERM;
	}
	/* The umask may have narrowed the mode; perf needs to read the file. */
	if ((st.st_mode & 0777) != 0644)
		(void)fchmod(fd, 0644);
	/* Regular file: blocking writes from here on. */
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (why)
		why->msg[0] = '\0';
	return fd;
}

int outfile_check(int dirfd, const char *name, struct err_text *why)
{
	struct stat st;
	int fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 1 : -errno;
	if (fstat(fd, &st) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	if (S_ISREG(st.st_mode))
		return 0;
	err_set(why, 0, "%s exists and is %s: refusing to replace it (remove it and load "
		 "the agent again)", name, kind_of(st.st_mode));
	return S_ISLNK(st.st_mode) ? -ELOOP : -EPERM;
}
