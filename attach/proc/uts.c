/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uts.c - the host name a target's UTS namespace gives it: the pod's name
 * under Kubernetes, the container's hostname under Docker and podman.
 *
 * Only a process in that namespace can ask (uname(2)); setns(CLONE_NEWUTS)
 * would change it for the whole CLI, so a short-lived child does it and
 * hands the name back through a pipe.  Without CAP_SYS_ADMIN the child
 * cannot enter, and /etc/hostname in the target's root is read instead:
 * what every runtime writes there at start (it is the same name unless
 * the container renamed itself since).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"
#include "target.h"

/* The first line of /etc/hostname inside the target's root. */
static int hostname_file(const struct target *t, char *out, size_t cap)
{
	char *buf;
	ssize_t n;

	if (t->root_fd < 0)
		return -EBADF;
	/* a plain file on a local file system only: /dev/null bound over it
	 * (any user may, in a user and mount namespace of its own) is not */
	n = confine_read(t->proc_fd, t->root_fd, "/etc/hostname", 256, 1000, &buf, NULL);
	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = '\0';
	snprintf(out, cap, "%s", buf);
	free(buf);
	return out[0] ? 0 : -ENOENT;
}

/* In a child: enter the namespace, write uname's nodename to fd.  The
 * exit status says why not (1: setns refused). */
static void child_uname(int ns_fd, int fd)
{
	struct utsname u;

	if (setns(ns_fd, CLONE_NEWUTS) != 0)
		_exit(1);
	if (uname(&u) != 0)
		_exit(2);
	(void)!fdio_write_all(fd, u.nodename, strlen(u.nodename), 0);
	_exit(0);
}

int target_hostname(const struct target *t, char *out, size_t cap)
{
	struct stat a, b;
	char *name = NULL;
	int ns_fd, p[2], status = 0;
	ssize_t n;
	pid_t child;

	if (!out || cap == 0)
		return -EINVAL;
	out[0] = '\0';
	ns_fd = confine_proc(t->proc_fd, "ns/uts", O_RDONLY);
	if (ns_fd < 0)
		return hostname_file(t, out, cap);
	if (fstat(ns_fd, &a) == 0 && stat("/proc/self/ns/uts", &b) == 0 &&
	    a.st_ino == b.st_ino && a.st_dev == b.st_dev) {
		close(ns_fd);
		return -ESRCH;  /* ours: no name of its own */
	}
	if (pipe2(p, O_CLOEXEC) != 0) {
		close(ns_fd);
		return -errno;
	}
	child = fork();
	if (child == 0) {
		close(p[0]);
		child_uname(ns_fd, p[1]);
	}
	close(p[1]);
	close(ns_fd);
	n = child > 0 ? fdio_read_all(p[0], 256, &name) : -1;
	close(p[0]);
	if (child > 0)
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
	if (child > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && n > 0) {
		snprintf(out, cap, "%s", name);
		free(name);
		return 0;
	}
	free(name);
	return hostname_file(t, out, cap);
}
