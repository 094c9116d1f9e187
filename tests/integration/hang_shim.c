/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hang_shim.c - an LD_PRELOAD library that makes a process stall where no
 * step of jsym's own has a deadline: connect() to a JVM's attach socket
 * (a path ending in .java_pid<N>, or, as jsym names it, "fd/N" below its
 * /proc/PID for a descriptor of that socket) never returns.  33-attach-faults loads
 * jsym with it to show that the attach worker's hard limit still ends the
 * run.  Every other connect() is the real one.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	int (*real)(int, const struct sockaddr *, socklen_t) =
		(int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "connect");
	const struct sockaddr_un *un = (const struct sockaddr_un *)sa;
	char link[256] = "", self[160];
	int n;

	if (sa && sa->sa_family == AF_UNIX && len > offsetof(struct sockaddr_un, sun_path) &&
	    !strncmp(un->sun_path, "fd/", 3)) {
		snprintf(self, sizeof(self), "/proc/self/%s", un->sun_path);
		n = (int)readlink(self, link, sizeof(link) - 1);
		link[n > 0 ? n : 0] = '\0';
	}
	if (sa && sa->sa_family == AF_UNIX && len > offsetof(struct sockaddr_un, sun_path) &&
	    (strstr(un->sun_path, ".java_pid") || strstr(link, ".java_pid")))
		for (;;)
			pause();
	return real ? real(fd, sa, len) : -1;
}
