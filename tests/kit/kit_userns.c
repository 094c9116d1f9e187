/* SPDX-License-Identifier: Apache-2.0 */
/* tests/kit/kit_userns.c - a rootless container's user namespace: the id
 * map, written by the keeper, and the child's wait for it.  See kit_helper.h.
 *
 * The order matters and is split between two processes.  The child is
 * cloned with CLONE_NEWUSER together with its other namespaces, so the
 * kernel makes the new user namespace first and the mount, pid, uts, ipc
 * (and net) namespaces belong to it: mounts made later by the child are
 * mounts of an unprivileged user, as under podman or rootless Docker.  But
 * until uid_map and gid_map are written, every id in the namespace is
 * unmapped and the child can create no file.  Only a process outside can
 * write them with an arbitrary range (a process may map only its own ids
 * into a namespace it is in), so the keeper writes both maps while the
 * child blocks on a pipe, then releases it.  The child then switches to the
 * namespace's root, whose ids map to the first host ids of the range.
 */
#include "kit_helper.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int userns_fail(char *err, size_t errlen, int e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int userns_fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	if (e) {
		n = strlen(err);
		snprintf(err + n, errlen - n, ": %s", strerror(e));
	}
	return e ? -e : -EINVAL;
}

/* One unsigned field of CT:HOST:COUNT, ending at stop. */
static int userns_field(const char **s, char stop, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(*s, &end, 10);
	if (errno || end == *s || *end != stop || **s == '-')
		return -1;
	*s = end + (stop != '\0');
	return 0;
}

int kit_userns_parse(const char *spec, struct kit_userns *map, char *err, size_t errlen)
{
	unsigned long ct, host, count;
	const char *s = spec;

	if (userns_field(&s, ':', &ct) < 0 || userns_field(&s, ':', &host) < 0 ||
	    userns_field(&s, '\0', &count) < 0)
		return userns_fail(err, errlen, 0, "bad --userns '%s' (want CT:HOST:COUNT, "
				   "e.g. 0:100000:65536)", spec);
	/* The child becomes the namespace's root to build the filesystem, so
	 * root must be mapped; a range past 2^32 is not an id range. */
	if (ct != 0 || count == 0 || host + count > 0xffffffffUL || count > 0xffffffffUL)
		return userns_fail(err, errlen, 0, "bad --userns '%s': the range must start at "
				   "container id 0 and fit in 32-bit ids", spec);
	map->host = (unsigned)host;
	map->count = (unsigned)count;
	return 0;
}

unsigned kit_userns_host_id(const struct kit_userns *map, unsigned ct_id)
{
	return ct_id < map->count ? map->host + ct_id : (unsigned)-1;
}

static int userns_write(pid_t child, const char *file, const char *text, char *err, size_t errlen)
{
	char path[64];
	size_t len = strlen(text);
	ssize_t n;
	int fd, e;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)child, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return userns_fail(err, errlen, errno, "cannot open %s", path);
	/* The kernel takes a map in one write or not at all. */
	n = write(fd, text, len);
	e = errno;
	close(fd);
	if (n != (ssize_t)len)
		return userns_fail(err, errlen, n < 0 ? e : EIO, "cannot write '%.*s' to %s",
				   (int)len - 1, text, path);
	return 0;
}

int kit_userns_map(pid_t child, const struct kit_userns *map, char *err, size_t errlen)
{
	char line[64];
	int r;

	/* Same range for both: the keeper has CAP_SETUID and CAP_SETGID in
	 * the parent namespace, so setgroups stays allowed in the child. */
	snprintf(line, sizeof(line), "0 %u %u\n", map->host, map->count);
	if ((r = userns_write(child, "uid_map", line, err, errlen)) < 0)
		return r;
	return userns_write(child, "gid_map", line, err, errlen);
}

int kit_userns_release(pid_t child, const struct kit_userns *map, int go_w,
		       char *err, size_t errlen)
{
	int r = kit_userns_map(child, map, err, errlen);

	if (r == 0 && write(go_w, "g", 1) != 1)
		r = userns_fail(err, errlen, errno, "cannot release the container");
	close(go_w);
	return r;
}

/*
 * The rootless child builds its mounts as the root of its user namespace,
 * whose ids are host ids of the range: it may not even traverse the
 * caller's state directory tree (KIT_DIR is 0700 root), let alone create
 * its mountpoints there.  So the keeper hands it the state directory as
 * its working directory (inherited through the clone: no path lookup) and
 * owned by the namespace's root, and the filesystem code names everything
 * relative to ".".
 */
int kit_userns_enter_state(const struct kit_userns *map, const char *state,
			   char *err, size_t errlen)
{
	unsigned root = kit_userns_host_id(map, 0);

	if (chown(state, root, root) < 0)
		return userns_fail(err, errlen, errno, "cannot give %s to the namespace's "
				   "root (host uid %u)", state, root);
	if (chdir(state) < 0)
		return userns_fail(err, errlen, errno, "cannot chdir to %s", state);
	return 0;
}

int kit_userns_wait_map(int go_fd, char *err, size_t errlen)
{
	char c;
	ssize_t n;

	while ((n = read(go_fd, &c, 1)) < 0 && errno == EINTR)
		;
	close(go_fd);
	if (n != 1)
		return userns_fail(err, errlen, 0, "the keeper did not write the id maps");
	/* Our ids are the host's 0, unmapped here: become the namespace's
	 * root, which keeps the full capability set the clone gave us. */
	if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0)
		return userns_fail(err, errlen, errno, "cannot become root of the user namespace");
	return 0;
}
