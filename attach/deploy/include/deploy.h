/* SPDX-License-Identifier: Apache-2.0 */
/*
 * deploy.h - get the jsym agent into a target JVM's reach: the entry of
 * attach/deploy, the one header of the folder that the layers above see
 * (attach/deploy/include/); its steps are deploy_int.h.
 *
 * deploy_find_builds() finds the two agent builds (glibc, musl) and their
 * probes next to jsym.  deploy_prepare() decides, for one target, which
 * path the JVM should load:
 *   - a jsym agent the JVM already maps: that same path again (the agent
 *     refreshes itself; no second copy is ever mapped);
 *   - our own files, when the JVM sees them as the same inodes (host JVMs,
 *     bind mounts): no copy;
 *   - otherwise both builds copied into one per-target directory in the
 *     container's temp dir, owned by the JVM's uid/gid;
 *   - when that temp dir cannot take them (read-only, noexec, too small,
 *     something planted) or when asked to: nothing written at all, the
 *     agent handed over as /proc/<helper>/fd/<n> of a short-lived helper
 *     holding a memfd in the JVM's pid namespace (memfd.c).
 * Then the libc: the build of the libc the JVM maps, confirmed by a probe
 * that the container's own loader runs as the JVM's uid (pick.c).  Nothing
 * outside the container is written, chowned or opened for writing; every
 * path in it is reached from the target's root dirfd by the confined open
 * (common/confine.h) and every creation is exclusive (docs/protocols.md E).
 */
#ifndef JSYM_DEPLOY_H
#define JSYM_DEPLOY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base.h"

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
 * Find both builds (no bytes read: deploy_builds_read).  agent_dir NULL: next to /proc/self/exe, in the
 * build tree (<tree>/glibc-build/jsym -> <tree>/{glibc,musl}-build/) or the
 * install tree (<prefix>/bin/jsym -> <prefix>/lib/jsym/{glibc,musl}/).  With
 * agent_dir: DIR/{glibc,musl}/ or DIR/{glibc,musl}-build/.  Returns 0, or
 * -errno with e naming every place looked in.  Free with
 * deploy_builds_free().
 */
int deploy_find_builds(const char *agent_dir, struct deploy_builds *b,
		       struct err_text *e);

/*
 * Read the four files found (deploy_find_builds only looks at them) and
 * hash them: needed before anything is copied, handed over or cleaned
 * (the directory's name has the hash), not to refresh a running agent.
 * Idempotent.  0, or -errno with e set (-ESTALE: replaced meanwhile).
 */
int deploy_builds_read(struct deploy_builds *b, struct err_text *e);
void deploy_builds_free(struct deploy_builds *b);

/* "glibc" / "musl". */
const char *deploy_libc_name(enum deploy_libc l);

enum deploy_how {
	DEPLOY_ALREADY,         /* the JVM maps a jsym agent: load it again */
	DEPLOY_IN_PLACE,        /* the JVM sees our files as the same inodes */
	DEPLOY_COPIED,          /* copied (or found intact) in its temp dir */
	DEPLOY_MEMFD,           /* handed over from a helper's memfd */
};

/* What --delivery asked for. */
enum deploy_delivery {
	DEPLOY_DELIVER_AUTO,    /* copy; a memfd when the temp dir cannot */
	DEPLOY_DELIVER_COPY,    /* copy or fail (no memfd) */
	DEPLOY_DELIVER_MEMFD,   /* always a memfd (unless already loaded) */
};

const char *deploy_how_name(enum deploy_how h);

struct deploy_opts {
	int timeout_ms;         /* bound for the probe and the directory lock */
	bool no_probe;          /* tests only: skip the in-container probe */
	bool evidence;          /* also probe the other build (shown by -v and
	                           --json; it costs one more loader run) */
	enum deploy_delivery delivery;
	const char *out_dir;    /* the agent's dir= (JVM's view), NULL: /tmp */
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

/* The memfd helper (memfd.c): jsym's child, alive until deploy_finish(). */
struct deploy_helper {
	pid_t pid;              /* jsym's child to reap (0: none) */
	int ctl;                /* closing it tells the helper to exit */
	pid_t nspid;            /* the helper's pid in the JVM's pid namespace */
	int fd;                 /* the memfd's number in the helper */
};

struct deploy_result {
	enum deploy_how how;
	bool not_reloaded;      /* DEPLOY_ALREADY, but the running agent cannot
	                           be named again (memfd, deleted file): do not
	                           load anything (see deploy_prepare) */
	enum deploy_libc libc;  /* the build the JVM will load */
	char load_path[PATH_MAX]; /* that file, as the JVM names it */
	char dir[320];          /* the per-target directory (JVM's view), or "" */
	bool dir_created;       /* this call created it */
	struct deploy_probe probe;
	char copy_refused[320]; /* DEPLOY_MEMFD under auto: why not copied */
	struct deploy_helper helper;
	/* DEPLOY_MEMFD: the agent writes to out_dir, not where jsym copied */
	char out_dir[128];
	char out_dir_problem[64]; /* "is read-only", ...: "" when usable */
	int lock_fd[2];         /* the per-JVM locks (jsym's own, the container's
	                           /), held until deploy_finish */
};

/*
 * Decide and prepare what t loads (see the top of this file).  t must be
 * opened with TARGET_FDS.  Returns 0 with r filled, or -errno with e naming
 * the cause and the fix: -ENOSPC (temp dir too small: nothing written),
 * -EROFS / -EACCES (temp dir not writable, noexec), -EEXIST / -ELOOP /
 * -EPERM (something hostile planted where jsym writes: nothing touched),
 * all five only with DEPLOY_DELIVER_COPY (auto falls back to a memfd);
 * -ENOEXEC (no build loads in the container), -ETIMEDOUT; for a memfd:
 * -EXDEV (the JVM is in another user namespace), -ENOENT (no procfs of the
 * JVM's pid namespace in its mount namespace), and setns/setuid errors.
 * A jsym agent the JVM maps from a memfd or a deleted file is 0 with
 * how == DEPLOY_ALREADY and not_reloaded: it runs, nothing is loaded.
 * With DEPLOY_MEMFD a helper process runs until deploy_finish(r), which the
 * caller must call after the load's reply (also on every later failure).
 */
int deploy_prepare(struct target *t, const struct deploy_builds *b,
		   const struct deploy_opts *o, struct deploy_result *r,
		   const struct attach_log *log, struct err_text *e);

/*
 * End what deploy_prepare() left running: tell the memfd helper to exit
 * (its pipe closes) and reap it.  A no-op for the other deliveries; safe to
 * call twice.  Returns 0, or -ETIMEDOUT when the helper had to be killed.
 */
int deploy_finish(struct deploy_result *r);

/*
 * Remove what jsym copied for t that the JVM does not map (the other
 * build, the probes; the directory when it ends up empty): only regular
 * files of the JVM's uid with one link on the temp dir's file system.
 * With all_versions (detach), also what any other version of jsym copied
 * for this JVM (the directories named for its nspid and start time, among
 * the first DEPLOY_CLEAN_SCAN_MAX entries of the temp dir), but not one
 * another jsym holds locked.  *kept (may be NULL) gets the path that had
 * to stay because the JVM maps it.  Returns the number of files removed,
 * or -errno with e set.
 */
#define DEPLOY_CLEAN_SCAN_MAX 4096
int deploy_clean(const struct target *t, const struct deploy_builds *b, bool all_versions,
		 char *kept, size_t keptlen, struct err_text *e);


/*
 * Bytes t's memory cgroup and each one above it can still be charged
 * before one reaches its limit (limit - usage + its inactive page cache,
 * which the kernel reclaims first; the least of them), in *room;
 * UINT64_MAX when none has a limit.  0 or -errno (*room is then
 * UINT64_MAX: unknown).
 */
int deploy_cgroup_memory_room(const struct target *t, uint64_t *room);

/* What jsym leaves below a JVM's memory limit: it loads no agent into a
 * JVM with less room (attach/attaching/gate.c), and copies into a memory-backed
 * /tmp only what leaves this much (place.c). */
#define DEPLOY_MEM_RESERVE (16u << 20)
#endif
