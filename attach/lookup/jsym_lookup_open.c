/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jsym_lookup_open.c - find and open a JVM's symbol files for the public
 * API (include/jsym/lookup.h), treating the JVM's filesystem as hostile.
 *
 * The files live in the JVM's own mount namespace, reached through
 * /proc/PID/root, named with the pid the JVM sees (the last NStgid value).
 * They are opened by jsym's one confined open (common/confine.h), the
 * CLI's too: resolved inside that root, and only a regular file on a local
 * file system is opened at all (a FIFO, a device, a FUSE file is refused
 * before any real open).  `jsym resolve` (attach/cli/cli_resolve_files.c)
 * does the same and, as a CLI, also switches ids for sidecars; a library
 * never changes its caller's ids.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "confine.h"
#include "jsym_lookup_int.h"
#include "procstatus.h"

/* The pid a process has in its own pid namespace: the last NStgid value
 * of its status text (common/procstatus.h), pid itself on kernels without
 * NStgid.  0, or -EPROTO when the line is there but malformed. */
static int ns_pid_of(const char *status, size_t len, int pid, long *nspid)
{
	pid_t last;
	int levels, rc = status_find_nstgid(status, len, &last, &levels);

	if (rc == -ENOENT) {
		*nspid = pid;
		return 0;
	}
	if (rc == 0)
		*nspid = last;
	return rc;
}

int lk_open_pid_files(int pid, const char *dir, int *is_journal, struct err_text *why)
{
	char path[64], rel[4096], *status;
	struct err_text e = { "" };
	int procfd, rootfd, fd = -ENOENT, rc;
	long nspid = pid;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d", pid);
	procfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0) {
		int err = errno == ENOENT ? ESRCH : errno;

		return err_set(why, -err, "cannot open %s: %s", path, strerror(err));
	}
	n = confine_proc_read_whole(procfd, "status", PROCSTATUS_MAX, &status);
	if (n < 0) {
		err_set(why, 0, "cannot read /proc/%d/status: %s", pid, strerror((int)-n));
		close(procfd);
		return n == -ENOENT ? -ESRCH : (int)n;
	}
	rc = ns_pid_of(status, (size_t)n, pid, &nspid);
	free(status);
	if (rc < 0) {
		close(procfd);
		return err_set(why, rc, "cannot read the NStgid of /proc/%d/status", pid);
	}
	rootfd = confine_proc(procfd, "root", O_PATH | O_DIRECTORY);
	if (rootfd < 0) {
		err_set(why, 0, "cannot open /proc/%d/root: %s (needs the JVM's uid or "
			"CAP_SYS_PTRACE)", pid, strerror(-rootfd));
		close(procfd);
		return rootfd;
	}
	while (*dir == '/')
		dir++;
	for (int journal = 1; journal >= 0; journal--) {
		snprintf(rel, sizeof(rel), "%s%s%s-%ld.%s", dir, *dir ? "/" : "",
			 journal ? "jsym" : "perf", nspid, journal ? "journal" : "map");
		fd = confine_open(procfd, rootfd, rel, O_RDONLY | O_NOFOLLOW, 0, &e);
		if (fd >= 0) {
			*is_journal = journal;
			break;
		}
		if (fd != -ENOENT)
			break;
	}
	close(rootfd);
	close(procfd);
	if (fd < 0)
		err_set(why, 0, "no usable symbol file for JVM %d in /proc/%d/root/%s "
			"(jsym-%ld.journal, perf-%ld.map): %s", pid, pid, dir, nspid, nspid,
			e.msg[0] ? e.msg : strerror(-fd));
	return fd;
}
