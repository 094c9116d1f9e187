/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hang_shim.c - an LD_PRELOAD library that makes a process stall where no
 * step of jsym's own has a deadline: connect() to a JVM's attach socket
 * (a path ending in .java_pid<N>) never returns.  33-attach-faults loads
 * jsym with it to show that the attach worker's hard limit still ends the
 * run.  Every other connect() is the real one.
 */
#include <dlfcn.h>
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

	if (sa && sa->sa_family == AF_UNIX && len > offsetof(struct sockaddr_un, sun_path) &&
	    strstr(un->sun_path, ".java_pid"))
		for (;;)
			pause();
	return real ? real(fd, sa, len) : -1;
}
