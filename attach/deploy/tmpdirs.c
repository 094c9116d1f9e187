/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tmpdirs.c - where jsym puts things in a JVM's container: the directory
 * it copies the agent into and the per-target directory's name (deploy.h;
 * where the agent writes is target_out_dir, target.h).
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

const char *deploy_tmpdir(const struct target *t)
{
	const char *hs = target_hs_tmpdir(t), *d;

	/* JDK 28's AltTempDir is where the JVM itself keeps its temp files,
	 * named because /tmp may be unusable there (docs/protocols.md A2);
	 * else HotSpot uses /tmp and the copy honours TMPDIR */
	if (strcmp(hs, "/tmp") != 0 && target_plain_dir(hs))
		return hs;
	d = t->opts.tmpdir;
	if (d[0] == '/' && strlen(d) < 200 && !strpbrk(d, " \t\n:"))
		return d;
	return "/tmp";
}

#define DIR_PREFIX "jsym-"
#define DIR_HASH_LEN 12         /* hex digits of the builds' hash in the name */

void deploy_dir_name(const struct target *t, const struct deploy_builds *b,
		     char *out, size_t cap)
{
	/* the pid in its namespace too: two JVMs of one container may start
	 * in the same clock tick */
	snprintf(out, cap, DIR_PREFIX "%.*s-%d-%llu", DIR_HASH_LEN, b->hash,
		 (int)t->st.nspid, (unsigned long long)t->starttime);
}

bool deploy_dir_same_jvm(const char *entry, const char *ours)
{
	size_t skip = strlen(DIR_PREFIX) + DIR_HASH_LEN, n = strlen(ours);

	return strlen(entry) == n && n > skip && !strncmp(entry, DIR_PREFIX, strlen(DIR_PREFIX)) &&
	       strspn(entry + strlen(DIR_PREFIX), "0123456789abcdef") == DIR_HASH_LEN &&
	       !strcmp(entry + skip, ours + skip);
}
