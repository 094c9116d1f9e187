/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tmpdirs.c - where jsym puts things in a JVM's container: the directory
 * it copies the agent into, the one the agent writes to, the per-target
 * directory's name (deploy.h).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "deploy.h"
#include "deploy_int.h"
#include "target.h"

/* An AltTempDir jsym may hand on: absolute, short, and without what
 * LD_PRELOAD lists and the agent's options (dir=) would split at. */
static bool plain_dir(const char *d)
{
	return d[0] == '/' && strlen(d) < 120 && !strpbrk(d, " \t\n:,");
}

const char *deploy_tmpdir(const struct target *t)
{
	const char *hs = target_hs_tmpdir(t), *d;

	/* JDK 28's AltTempDir is where the JVM itself keeps its temp files,
	 * named because /tmp may be unusable there (docs/protocols.md A2);
	 * else HotSpot uses /tmp and the copy honours TMPDIR */
	if (strcmp(hs, "/tmp") != 0 && plain_dir(hs))
		return hs;
	d = t->opts.tmpdir;
	if (d[0] == '/' && strlen(d) < 200 && !strpbrk(d, " \t\n:"))
		return d;
	return "/tmp";
}

const char *deploy_out_dir(const struct target *t)
{
	const char *hs = target_hs_tmpdir(t);
	struct statvfs v;
	bool tmp_ok;
	int fd;

	if (!strcmp(hs, "/tmp") || !plain_dir(hs))
		return "/tmp";
	/* perf looks for /tmp/perf-<pid>.map: keep it there while it can be */
	fd = inroot_open(t->root_fd, "tmp", O_PATH | O_DIRECTORY, 0, NULL);
	tmp_ok = fd >= 0 && fstatvfs(fd, &v) == 0 && !(v.f_flag & ST_RDONLY);
	if (fd >= 0)
		close(fd);
	return tmp_ok ? "/tmp" : hs;
}

void deploy_dir_name(const struct target *t, const struct deploy_builds *b,
		     char *out, size_t cap)
{
	/* the pid in its namespace too: two JVMs of one container may start
	 * in the same clock tick */
	snprintf(out, cap, "jsym-%.12s-%d-%llu", b->hash, (int)t->st.nspid,
		 (unsigned long long)t->starttime);
}
