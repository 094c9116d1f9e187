/* SPDX-License-Identifier: Apache-2.0 */
/*
 * builds.c - find jsym's two agent builds and their probes, read them.
 *
 * Layouts (deploy.h): the build tree, where jsym is <tree>/glibc-build/jsym
 * or <tree>/musl-build/jsym (glibc-build-aarch64/, musl-build-aarch64/ for
 * the aarch64 jsym: each jsym takes the builds of its own architecture,
 * jsym_arch.h), and the install tree, where it is
 * <prefix>/bin/jsym and the builds are <prefix>/lib/jsym/{glibc,musl}/.
 * The files are read once into memory: their hash names the per-target
 * directory, and the copies are written from these bytes, so a build
 * replaced on disk halfway through never yields a torn copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "deploy.h"
#include "jsym_arch.h"

#define BUILD_MAX_BYTES (64u << 20)     /* far above a real build */

const char *deploy_libc_name(enum deploy_libc l)
{
	return l == DEPLOY_MUSL ? "musl" : "glibc";
}

const char *deploy_how_name(enum deploy_how h)
{
	switch (h) {
	case DEPLOY_ALREADY:
		return "already-loaded";
	case DEPLOY_IN_PLACE:
		return "in-place";
	case DEPLOY_COPIED:
		return "copied";
	case DEPLOY_MEMFD:
		return "memfd";
	}
	return "?";
}

/* FNV-1a, 64 bits: names directories, not a security check (the bytes
 * themselves are compared before a copy is reused). */
static unsigned long long fnv1a(unsigned long long h, const unsigned char *p,
				size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Find one file: a regular file; its identity and size (no data yet). */
static int stat_build_file(const char *dir, const char *sub, const char *name,
			   struct deploy_file *f)
{
	struct stat st;

	if (snprintf(f->path, sizeof(f->path), "%s/%s/%s", dir, sub, name) >=
	    (int)sizeof(f->path))
		return -ENAMETOOLONG;
	if (stat(f->path, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size > (off_t)BUILD_MAX_BYTES)
		return -EINVAL;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->size = (size_t)st.st_size;
	return 0;
}

/* Read a found file; it must still be the same inode and size. */
static int read_build_file(struct deploy_file *f)
{
	struct stat st;
	ssize_t rc;
	int fd;

	fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || st.st_dev != f->dev || st.st_ino != f->ino) {
		close(fd);
		return -ESTALE;
	}
	rc = confine_read_fd(fd, BUILD_MAX_BYTES, 0, (char **)&f->data);
	close(fd);
	if (rc < 0)
		return (int)rc;
	return (size_t)rc == f->size ? 0 : -ESTALE;     /* changed meanwhile */
}

/* Both libcs' agent and probe from one candidate directory. */
static int read_builds_at(const char *dir, const char *const sub[DEPLOY_NLIBC],
			  struct deploy_builds *b)
{
	int rc = 0;

	for (int l = 0; l < DEPLOY_NLIBC && rc == 0; l++) {
		rc = stat_build_file(dir, sub[l], DEPLOY_AGENT_NAME, &b->agent[l]);
		if (rc == 0)
			rc = stat_build_file(dir, sub[l], DEPLOY_PROBE_NAME, &b->probe[l]);
	}
	if (rc)
		deploy_builds_free(b);
	return rc;
}

void deploy_builds_free(struct deploy_builds *b)
{
	for (int l = 0; l < DEPLOY_NLIBC; l++) {
		free(b->agent[l].data);
		free(b->probe[l].data);
		b->agent[l].data = b->probe[l].data = NULL;
		b->hash[0] = '\0';
	}
}

int deploy_find_builds(const char *agent_dir, struct deploy_builds *b,
		       struct err_text *e)
{
	static const char *const install_sub[DEPLOY_NLIBC] = { "glibc", "musl" };
	static const char *const build_sub[DEPLOY_NLIBC] = {
		"glibc-build" JSYM_TREE_SUFFIX, "musl-build" JSYM_TREE_SUFFIX };
	char exe[PATH_MAX], dirs[2][PATH_MAX], looked[2 * PATH_MAX + 64] = "";
	const char *const *subs[2] = { install_sub, build_sub };
	ssize_t n;
	char *slash;

	memset(b, 0, sizeof(*b));
	if (agent_dir) {
		snprintf(dirs[0], sizeof(dirs[0]), "%s", agent_dir);
		snprintf(dirs[1], sizeof(dirs[1]), "%s", agent_dir);
	} else {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0)
			return err_set(e, n < 0 ? -errno : -ENOENT, "cannot find "
				       "jsym's own path (/proc/self/exe): %s; name the "
				       "agent builds with --agent-dir DIR",
				       strerror(n < 0 ? errno : ENOENT));
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		*slash = '\0';                  /* the directory of jsym */
		slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';          /* its parent */
		if (strlen(exe) + sizeof("/lib/jsym") > sizeof(dirs[0]))
			return err_set(e, -ENAMETOOLONG, "jsym's own path is too long");
		strcpy(dirs[0], exe);
		strcat(dirs[0], "/lib/jsym");
		strcpy(dirs[1], *exe ? exe : "/");
	}
	for (int i = 0; i < 2; i++) {
		size_t len = strlen(looked);

		if (read_builds_at(dirs[i], subs[i], b) == 0)
			break;
		snprintf(looked + len, sizeof(looked) - len, "%s%s/{%s,%s}/", i ? " and " : "",
			 dirs[i], subs[i][0], subs[i][1]);
		if (i == 1)
			return err_set(e, -ENOENT, "cannot find both agent builds (%s "
				       "and %s for glibc and musl): looked in %s; run "
				       "`make`, or name their directory with --agent-dir",
				       DEPLOY_AGENT_NAME, DEPLOY_PROBE_NAME, looked);
	}
	snprintf(b->dir, sizeof(b->dir), "%s", strlen(b->agent[0].path) > 0 ?
		 b->agent[0].path : "");
	if ((slash = strrchr(b->dir, '/')) != NULL && slash > b->dir &&
	    (slash = memrchr(b->dir, '/', (size_t)(slash - b->dir))) != NULL)
		*slash = '\0';
	return 0;
}

int deploy_builds_read(struct deploy_builds *b, struct err_text *e)
{
	struct deploy_file *f[2 * DEPLOY_NLIBC];
	unsigned long long h = 0xcbf29ce484222325ULL;
	int rc;

	if (b->hash[0])
		return 0;       /* read already */
	for (int l = 0; l < DEPLOY_NLIBC; l++) {
		f[2 * l] = &b->agent[l];
		f[2 * l + 1] = &b->probe[l];
	}
	for (int i = 0; i < 2 * DEPLOY_NLIBC; i++) {
		rc = read_build_file(f[i]);
		if (rc) {
			deploy_builds_free(b);
			return err_set(e, rc, "cannot read %s: %s%s", f[i]->path,
				       strerror(-rc), rc == -ESTALE ? " (replaced "
				       "while jsym ran: run it again)" : "");
		}
		h = fnv1a(h, f[i]->data, f[i]->size);
	}
	snprintf(b->hash, sizeof(b->hash), "%016llx", h);
	return 0;
}
