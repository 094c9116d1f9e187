/* SPDX-License-Identifier: Apache-2.0 */
/* hs_tmpdir.c - the JVM's temp dir: /tmp or JDK 28's AltTempDir (hs_tmpdir.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs_tmpdir.h"
#include "target.h"

/*
 * JDK 28 (os_linux.cpp, JDK-8384557) takes an absolute AltTempDir as it
 * is, even when the directory is missing or not writable: it prints
 * "Warning: AltTempDir is not an existing or writable directory" and
 * keeps using it, for hsperfdata, the trigger and the socket alike (seen
 * on 28-ea+18: no socket and a thread dump, whichever of /tmp and the
 * directory held the trigger).  Such a JVM cannot be attached until the
 * directory is there and writable for it, so jsym says that instead of
 * waiting out --timeout; a socket already there is used as it is.
 */
static int open_alt(const struct target *t, const char *alt,
		    const struct attach_log *log, struct err_text *e)
{
	const char *why = alt == t->maps.perfdata_dir ? "its hsperfdata is there" :
			  "-XX:AltTempDir";
	int fd = confine_open(t->proc_fd, t->root_fd, alt, O_PATH | O_DIRECTORY, 0, NULL);
	char sock[40];
	struct stat st;
	int err;

	if (fd < 0)
		return err_set(e, fd, "the JVM's temp dir is %s (%s), which "
			       "cannot be opened in its root (%s): HotSpot keeps its "
			       "attach socket there and cannot create it (create the "
			       "directory, writable for uid %u, then retry)", alt, why,
			       strerror(-fd), (unsigned)t->st.uid[1]);
	snprintf(sock, sizeof(sock), ".java_pid%d", (int)t->st.nspid);
	/* as the JVM's user (the caller took its ids): EROFS counts too */
	/* faccessat's errno, taken before the stat sets its own */
	err = faccessat(fd, ".", W_OK | X_OK, AT_EACCESS) != 0 ? -errno : 0;
	if (err && !(confine_stat(t->proc_fd, fd, sock, O_NOFOLLOW, &st, NULL) == 0 &&
		     S_ISSOCK(st.st_mode))) {
		close(fd);
		return err_set(e, err, "the JVM's temp dir is %s (%s), where "
			       "uid %u cannot write (%s): HotSpot keeps its attach "
			       "socket there and cannot create it (make the directory "
			       "writable for that uid, then retry)", alt, why,
			       (unsigned)geteuid(), strerror(-err));
	}
	attach_step(log, "the JVM's temp dir is %s (%s): its socket and trigger "
		    "are there", alt, why);
	return fd;
}

int hs_tmpdir_open(const struct target *t, const char **name,
		   const struct attach_log *log, struct err_text *e)
{
	const char *dir = target_hs_tmpdir(t);
	int fd;

	*name = dir;
	if (strcmp(dir, "/tmp") != 0)
		return open_alt(t, dir, log, e);
	if (t->opts.alt_tmpdir[0] == '/' && t->jdk_major && t->jdk_major < 28)
		attach_step(log, "-XX:AltTempDir=%s ignored: JDK %d has no such "
			    "flag (28 added it)", t->opts.alt_tmpdir, t->jdk_major);
	else if (t->opts.alt_tmpdir[0] && t->opts.alt_tmpdir[0] != '/')
		attach_step(log, "-XX:AltTempDir=%s is not absolute: the JVM "
			    "uses /tmp", t->opts.alt_tmpdir);
	fd = confine_open(t->proc_fd, t->root_fd, "tmp", O_PATH | O_DIRECTORY, 0, NULL);
	if (fd < 0)
		return err_set(e, fd, "cannot open the JVM's /tmp "
			       "(/proc/%d/root/tmp): %s", (int)t->pid,
			       strerror(-fd));
	return fd;
}
