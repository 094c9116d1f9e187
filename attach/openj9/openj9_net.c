/* SPDX-License-Identifier: Apache-2.0 */
/*
 * openj9_net.c - the attacher's socket side of OpenJ9 attach: attach key,
 * loopback listener, NUL-framed messages (docs/protocols.md B7).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base.h"
#include "openj9.h"
#include "openj9_int.h"

int openj9_random_key(char key[17])
{
	unsigned long long v = 0;
	long r = syscall(SYS_getrandom, &v, sizeof(v), 0);

	if (r != (long)sizeof(v)) {
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

		if (fd < 0 || read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
			int e = fd < 0 ? errno : EIO;

			if (fd >= 0)
				close(fd);
			return -e;
		}
		close(fd);
	}
	snprintf(key, 17, "%016llx", v);
	return 0;
}

/* Listen on 127.0.0.1:0 (and best effort on [::1] at the same port, for
 * VMs run with java.net.preferIPv6Addresses=true).  Returns the port. */
int openj9_listen_loopback(int lsock[2], struct err_text *e)
{
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	socklen_t alen = sizeof(a4);
	int one = 1, err;

	a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lsock[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lsock[0] < 0 || bind(lsock[0], (struct sockaddr *)&a4, sizeof(a4)) < 0 ||
	    listen(lsock[0], 8) < 0 ||
	    getsockname(lsock[0], (struct sockaddr *)&a4, &alen) < 0) {
		err = errno;
		return err_set(e, -err, "cannot listen on 127.0.0.1 in the target's network namespace: %s%s",
		     strerror(err), err == EADDRNOTAVAIL ? " (its loopback interface is down)" : "");
	}
	a6.sin6_port = a4.sin_port;
	lsock[1] = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lsock[1] >= 0 &&
	    (setsockopt(lsock[1], IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0 ||
	     bind(lsock[1], (struct sockaddr *)&a6, sizeof(a6)) < 0 ||
	     listen(lsock[1], 8) < 0))
		{
		close(lsock[1]);
		lsock[1] = -1;
	};
	return ntohs(a4.sin_port);
}

volatile sig_atomic_t openj9_cancelled;

int openj9_left_ms(long until)
{
	long l = until - clock_ms();

	if (openj9_cancelled)
		return 0;
	return l < 0 ? 0 : l > 1000000000 ? 1000000000 : (int)l;
}

/*
 * Read one NUL-framed message (B7), all of it within timeout_ms: a VM that
 * sends a byte at a time is cut off at the deadline, not kept talking.
 * *buf is malloc'd (NUL-terminated, *len without the NUL).
 */
int openj9_read_msg(int fd, size_t max, int timeout_ms, char **buf, size_t *len)
{
	size_t cap = 4096, n = 0;
	long until = clock_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	char *b = malloc(cap + 1);

	if (!b)
		return -ENOMEM;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;
		int rc;

		rc = poll(&p, 1, timeout_ms < 0 && !openj9_cancelled ? -1 :
			  openj9_left_ms(until));
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0) {
			free(b);
			return rc == 0 ? -ETIMEDOUT : -errno;
		}
		if (n == cap) {
			char *nb = cap >= max ? NULL : realloc(b, cap * 2 + 1);

			if (!nb) {
				free(b);
				return cap >= max ? -EMSGSIZE : -ENOMEM;
			}
			b = nb;
			cap *= 2;
		}
		r = recv(fd, b + n, cap - n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(b);
			return r == 0 ? -EPIPE : -errno;
		}
		n += (size_t)r;
		rc = openj9_frame_done(b + n - r, (size_t)r, n, max);
		if (rc < 0) {
			free(b);
			return rc;
		}
		if (rc) {
			b[n - 1] = '\0';
			*buf = b;
			*len = n - 1;
			return 0;
		}
	}
}

int openj9_send_msg(int fd, const char *msg)
{
	return fdio_write_all(fd, msg, strlen(msg) + 1, 0); /* the NUL goes too */
}
