/* SPDX-License-Identifier: Apache-2.0 */
/* inroot.c - open a path inside a container's root without leaving it. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base.h"
#include "inroot.h"

/* The openat2(2) ABI, spelled out: musl ships no <linux/openat2.h>. */
struct inroot_how {
	uint64_t flags, mode, resolve;
};
#define INROOT_RESOLVE_NO_MAGICLINKS 0x02
#define INROOT_RESOLVE_IN_ROOT 0x10
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

int inroot_walk(int root_fd, const char *path, int flags, mode_t mode)
{
	const char *p = path;
	int dir = root_fd;

	for (;;) {
		char comp[256];
		size_t n;
		const char *next;
		int fd;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		next = p + n + strspn(p + n, "/");
		if (n == 1 && p[0] == '.' && *next) {  /* "./x": skip */
			p = next;
			continue;
		}
		if (n >= sizeof(comp)) {
			fd = -ENAMETOOLONG;
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			fd = -EXDEV;    /* would climb above the container's root */
		} else {
			memcpy(comp, n ? p : ".", n ? n : 1);
			comp[n ? n : 1] = '\0';
			fd = openat(dir, comp, (*next ? O_PATH | O_DIRECTORY : flags) |
				    O_NOFOLLOW | O_CLOEXEC, mode);
			if (fd < 0)
				fd = -errno;
		}
		if (dir != root_fd)
			close(dir);
		if (fd < 0 || !*next)
			return fd;
		dir = fd;
		p = next;
	}
}

int inroot_open(int root_fd, const char *path, int flags, mode_t mode, bool *walked)
{
	struct inroot_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = INROOT_RESOLVE_IN_ROOT | INROOT_RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	if (walked)
		*walked = false;
	if (root_fd < 0 || !path || !*path)
		return -EINVAL;
	fd = syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
	if (fd >= 0)
		return (int)fd;
	if (errno != ENOSYS && errno != EPERM)  /* EPERM: a seccomp filter */
		return -errno;
	if (walked)
		*walked = true;
	return inroot_walk(root_fd, path, flags, mode);
}

int inroot_open_regular(int root_fd, const char *path, int flags)
{
	int pfd = inroot_open(root_fd, path, O_PATH | O_NOFOLLOW, 0, NULL), fd;

	if (pfd < 0)
		return pfd;
	fd = reg_reopen(pfd, flags);
	close(pfd);
	return fd;
}
