/*
 * deploy.h - get the jsym agent into a target JVM's reach.
 *
 * deploy_find_builds() finds the two agent builds (glibc, musl) and their
 * probes next to jsym.  deploy_prepare() decides, for one target, which
 * path the JVM should load:
 *   - a jsym agent the JVM already maps: that same path again (the agent
 *     refreshes itself; no second copy is ever mapped);
 *   - our own files, when the JVM sees them as the same inodes (host JVMs,
 *     bind mounts): no copy;
 *   - otherwise both builds copied into one per-target directory in the
 *     container's temp dir, owned by the JVM's uid/gid.
 * Then the libc: the build of the libc the JVM maps, confirmed by a probe
 * that the container's own loader runs as the JVM's uid (pick.c).  Nothing
 * outside the container is written, chowned or opened for writing; every
 * path in it is reached from the target's root dirfd (inroot.c) and every
 * creation is exclusive (docs/protocols.md E).
 */
#ifndef JSYM_DEPLOY_H
#define JSYM_DEPLOY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "attach_types.h"
#include "errtext.h"

struct target;

enum deploy_libc { DEPLOY_GLIBC, DEPLOY_MUSL, DEPLOY_NLIBC };

#define DEPLOY_AGENT_NAME "libjsym-agent.so"
#define DEPLOY_PROBE_NAME "jsym-probe"

/* One file of a build, read into memory once (both are small). */
struct deploy_file {
	char path[PATH_MAX];    /* host path */
	dev_t dev;
	ino_t ino;
	unsigned char *data;
	size_t size;
};

struct deploy_builds {
	char dir[PATH_MAX];     /* where they were found (for messages) */
	struct deploy_file agent[DEPLOY_NLIBC];
	struct deploy_file probe[DEPLOY_NLIBC];
	char hash[17];          /* 64-bit content hash of all four, hex */
};

/*
 * Find and read both builds.  agent_dir NULL: next to /proc/self/exe, in the
 * build tree (<tree>/glibc-build/jsym -> <tree>/{glibc,musl}-build/) or the
 * install tree (<prefix>/bin/jsym -> <prefix>/lib/jsym/{glibc,musl}/).  With
 * agent_dir: DIR/{glibc,musl}/ or DIR/{glibc,musl}-build/.  Returns 0, or
 * -errno with e naming every place looked in.  Free with
 * deploy_builds_free().
 */
int deploy_find_builds(const char *agent_dir, struct deploy_builds *b,
		       struct err_text *e);
void deploy_builds_free(struct deploy_builds *b);

/* "glibc" / "musl". */
const char *deploy_libc_name(enum deploy_libc l);

enum deploy_how {
	DEPLOY_ALREADY,         /* the JVM maps a jsym agent: load it again */
	DEPLOY_IN_PLACE,        /* the JVM sees our files as the same inodes */
	DEPLOY_COPIED,          /* copied (or found intact) in its temp dir */
};

const char *deploy_how_name(enum deploy_how h);

struct deploy_opts {
	int timeout_ms;         /* bound for the probe and the directory lock */
	bool no_probe;          /* tests only: skip the in-container probe */
};

/* The libc probe's findings, for -v and --json. */
struct deploy_probe {
	bool ran;
	char loader[256];       /* the loader run (the JVM's view) */
	char runtime_libc[48];  /* "glibc 2.36" / "musl", as the probe said */
	bool ok[DEPLOY_NLIBC];  /* each build loaded and answered */
	bool tried[DEPLOY_NLIBC];
	char why[DEPLOY_NLIBC][200]; /* the loader's or probe's complaint */
};

struct deploy_result {
	enum deploy_how how;
	enum deploy_libc libc;  /* the build the JVM will load */
	char load_path[PATH_MAX]; /* that file, as the JVM names it */
	char dir[320];          /* the per-target directory (JVM's view), or "" */
	bool dir_created;       /* this call created it */
	struct deploy_probe probe;
};

/*
 * Decide and prepare what t loads (see the top of this file).  t must be
 * opened with TARGET_FDS.  Returns 0 with r filled, or -errno with e naming
 * the cause and the fix: -ENOSPC (temp dir too small: nothing written),
 * -EROFS / -EACCES (temp dir not writable, noexec), -EEXIST / -ELOOP /
 * -EPERM (something hostile planted where jsym writes: nothing touched),
 * -ENOEXEC (no build loads in the container), -ETIMEDOUT.
 */
int deploy_prepare(const struct target *t, const struct deploy_builds *b,
		   const struct deploy_opts *o, struct deploy_result *r,
		   const struct attach_log *log, struct err_text *e);

/*
 * Remove what jsym copied for t that the JVM does not map (the other
 * build, the probes; the directory when it ends up empty).  *kept (may be
 * NULL) gets the path that had to stay because the JVM maps it.  Returns
 * the number of files removed, or -errno with e set.
 */
int deploy_clean(const struct target *t, const struct deploy_builds *b,
		 char *kept, size_t keptlen, struct err_text *e);

/* --- internals shared by builds.c, place.c, pick.c, deploy.c --- */

/* The temp dir jsym copies into, as the JVM names it: its TMPDIR when
 * absolute, usable and without blanks, else "/tmp". */
const char *deploy_tmpdir(const struct target *t);

/* "jsym-<hash>-<starttime>": per build content and per process start. */
void deploy_dir_name(const struct target *t, const struct deploy_builds *b,
		     char *out, size_t cap);

/* Copy both builds and probes into tmp/<name>/{glibc,musl}/ (place.c). */
int deploy_place(const struct target *t, const struct deploy_builds *b,
		 const struct deploy_opts *o, struct deploy_result *r,
		 const struct attach_log *log, struct err_text *e);

/*
 * Run the probe for build `which` under the JVM's loader, in its mount
 * namespace, as its uid (pick.c).  agent and probe are paths as the JVM
 * names them.  Fills p->ok/why/runtime_libc.  Returns 0 when the probe
 * ran (whatever it said), or -errno with e set.
 */
int deploy_run_probe(const struct target *t, enum deploy_libc which,
		     const char *agent, const char *probe, int timeout_ms,
		     struct deploy_probe *p, const struct attach_log *log,
		     struct err_text *e);

#endif
