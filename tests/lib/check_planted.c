/* SPDX-License-Identifier: Apache-2.0 */
/* check_planted.c - planted nodes and open watches (check_planted.h). */
#include <check.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check_planted.h"

bool planted_node(const char *path, bool device)
{
	if (device)
		return mknod(path, S_IFCHR | 0666, makedev(1, 3)) == 0;
	return mkfifo(path, 0666) == 0;
}

int planted_watch(const char *path)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_ge(inotify_add_watch(fd, path, IN_OPEN), 0);
	return fd;
}

bool planted_opened(int ifd)
{
	char ev[256];
	bool opened = read(ifd, ev, sizeof(ev)) > 0;

	close(ifd);
	return opened;
}
