/* SPDX-License-Identifier: Apache-2.0 */
/*
 * deploy_int.h - the inside of attach/deploy: the steps deploy_prepare()
 * and deploy_clean() are made of (temp dir, placing, the probe, entering
 * the JVM's namespaces and ids, the memfd helper, cgroups), shared by the
 * folder's files and exported to the unit tests and the kit, never to the
 * layers above (they see deploy.h only).
 */
#ifndef JSYM_DEPLOY_INT_H
#define JSYM_DEPLOY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "deploy.h"

/* --- internals shared by builds.c, place.c, pick.c, deploy.c --- */

/* The temp dir jsym copies into, as the JVM names it: JDK 28's
 * -XX:AltTempDir, else its TMPDIR, when absolute and without blanks, ','
 * or ':', else "/tmp". */
const char *deploy_tmpdir(const struct target *t);

/* "jsym-<hash>-<nspid>-<starttime>": per build content and per process start. */
void deploy_dir_name(const struct target *t, const struct deploy_builds *b,
		     char *out, size_t cap);

/* Is entry the name deploy_dir_name gives this JVM's copies (ours) but for
 * the hash: made for the same JVM by any version of jsym? */
bool deploy_dir_same_jvm(const char *entry, const char *ours);

/* Copy both builds and probes into tmp/<name>/{glibc,musl}/ (place.c). */
int deploy_place(const struct target *t, const struct deploy_builds *b,
		 const struct deploy_opts *o, struct deploy_result *r,
		 const struct attach_log *log, struct err_text *e);

/* What a probe runs: files the JVM sees, or bytes handed over in memfds. */
struct deploy_probe_files {
	const char *agent, *probe;      /* paths as the JVM names them, or */
	const struct deploy_file *agent_mem, *probe_mem; /* bytes (both set) */
};

/*
 * Run the probe for build `which` under the JVM's loader, in its mount
 * namespace, as its uid (pick.c); from memfds: also in its pid namespace,
 * the loader given /proc/self/fd/<m> as the program and LD_PRELOAD naming
 * /proc/self/fd/<n>.  Fills p->ok/why/runtime_libc.  Returns 0 when the
 * probe ran (whatever it said), or -errno with e set.
 */
int deploy_run_probe(const struct target *t, enum deploy_libc which,
		     const struct deploy_probe_files *f, int timeout_ms,
		     struct deploy_probe *p, const struct attach_log *log,
		     struct err_text *e);

/*
 * In a forked child of jsym (enter.c): leave jsym's session (no terminal),
 * become non-dumpable, enter the JVM's net, ipc and pid namespaces (without
 * CAP_SYS_ADMIN only, with pid_ns, the pid namespace is required), then
 * fork: the process in between stays in jsym's mount namespace as a child
 * subreaper, reaps the forked one and then SIGKILLs and reaps every orphan
 * that came to it, until none is left, and _exits with the forked one's
 * status (128 + signal when killed; SIGTERM to it, or jsym's end, kills the
 * forked one first).  The forked one joins the JVM's cgroups (best effort,
 * deploy_cgroup_join), enters its mount namespace (a chroot into its root
 * without CAP_SYS_ADMIN), closes every descriptor above 2 and returns 0.
 * Then deploy_become() takes the JVM's ids (real, effective, saved), drops
 * every capability (also when the JVM runs as root), sets no_new_privs,
 * and sets PR_SET_PDEATHSIG to SIGKILL again (an id change clears it).
 * Both return 0 or -errno with e set; the caller reports e and _exits.
 */
int deploy_enter(const struct target *t, bool pid_ns, struct err_text *e);
int deploy_become(const struct target *t, struct err_text *e);

/*
 * End jsym's child that called deploy_enter(): SIGTERM (its process in
 * between then kills the inner one and all it left), reap it; SIGKILL and
 * reap it when it has not ended within grace_ms.  0, or -ETIMEDOUT when it
 * had to be killed.  Only ever for our own child.
 */
int deploy_end_child(pid_t pid, int grace_ms);

/*
 * The real and saved uid of that process in between: a random uid from
 * the upper half of jsym's user namespace's widest uid_map range that no
 * process visible in jsym's /proc has as its real, effective or saved uid
 * and that no other user namespace among them maps (its root could take
 * it), never 0, 65534, the JVM's or jsym's; so that nothing but a process
 * with CAP_KILL, or CAP_SETUID over jsym's own namespace, may signal it
 * (kill(2)).  One scan of /proc, then up to 16 random picks.  When no
 * /proc or uid_map can be read or all picks were taken: 65534 (65533 for
 * a JVM of 65534), as before.
 */
uid_t deploy_reaper_uid(uid_t jvm_uid);

/*
 * The process between jsym and the container's code (reap_all_and_exit in
 * enter.c) has a real and saved uid no process has (deploy_reaper_uid),
 * so the probe cannot signal it; but in a shared-PID pod a container's
 * root (CAP_KILL, or CAP_SETUID to take that uid) can kill it, and the
 * orphans it was to kill would then go to the host's init.  So the
 * caller of deploy_enter's fork adopts orphans too (deploy_adopt_orphans,
 * before the fork: 0 or -errno), and once its child is reaped kills and
 * reaps every child left to it (deploy_sweep_orphans; one that does not
 * die within half a second of its SIGKILL, held by the kernel, is left
 * behind).  Only for a process whose other children are all gone by then
 * (jsym's attach worker).
 */
int deploy_adopt_orphans(void);
void deploy_sweep_orphans(void);

/*
 * Move the calling process into the cgroups /proc/<t->pid>/cgroup names
 * (cgroup.c), in every hierarchy mounted at jsym's /sys/fs/cgroup but the
 * freezer.  The file is the container's to shape (cgroup names), so it is
 * read bounded, a forged line refuses it all and each path component is
 * opened with O_NOFOLLOW, ".." refused.  0 when at least one hierarchy was
 * joined, else -errno (-EPROTO: a forged file); callers treat it as best
 * effort.  Before the mount namespace changes.
 */
int deploy_cgroup_join(const struct target *t);

/*
 * The same for the memory controller alone (v1's memory hierarchy, else
 * the unified one, with every controller), for a while: what the caller
 * writes to a tmpfs meanwhile is charged to the JVM's container, whose
 * /tmp it is, not to jsym's cgroup (a DaemonSet's limit would otherwise pay
 * for every JVM on the node).  *back gets the caller's own memory cgroup,
 * a directory opened before the move, which deploy_cgroup_return_memory
 * joins again and closes (-1: it did not move: t's cgroups are jsym's
 * own, or its own cgroup or joining t's failed).  0 or -errno.
 */
int deploy_cgroup_join_memory(const struct target *t, int *back);
int deploy_cgroup_return_memory(int back);

/*
 * Lock t's container against other jsyms (lock.c), waiting up to
 * timeout_ms: fds[0] gets jsym's own lock file of the container's root
 * (/run/jsym, else /tmp/.jsym-locks-<euid>), which no process of the
 * container can open; fds[1] the container's root directory, waited for
 * at most a second when fds[0] is held (for jsyms of other mount
 * namespaces; anyone in the container can hold it), going on without it.
 * Both -1 for a JVM of our own mount namespace.  0, or -ETIMEDOUT (another
 * jsym holds jsym's lock; without one of our own, the container's /) with
 * e set.  The caller closes the fds to unlock.
 */
int deploy_lock_jvm(const struct target *t, int timeout_ms, int fds[2],
		    const struct attach_log *log, struct err_text *e);

/* jsym-memfd-holder's executable (memfd_holder.c), carried in jsym: the
 * generated glibc-build/gen/memfd_holder_bin.c. */
extern const unsigned char deploy_holder_bin[];
extern const size_t deploy_holder_len;

/*
 * A memfd named `name` holding f's bytes (memfd.c): flags as memfd_create's
 * (MFD_CLOEXEC or 0); with vm.memfd_noexec=2 retried with MFD_NOEXEC_SEAL
 * (mapping code from it is still allowed: only the exec bits are sealed).
 * With MFD_EXEC (a program to exec) never sealed: on a kernel without that
 * flag (before 6.3) retried without it, else the error stands.
 * Returns the fd or -errno.
 */
int deploy_memfd_of(const char *name, const struct deploy_file *f,
		    unsigned flags);

/*
 * Start the helper holding build `which` in a memfd (memfd.c), in the
 * JVM's pid namespace as its ids, and learn /proc/<nspid>/fd/<n>; checked
 * by the helper itself in the JVM's mount namespace.  Returns 0 with h
 * filled, or -errno with e set (nothing left running).
 */
int deploy_memfd_start(const struct target *t, const struct deploy_builds *b,
		       enum deploy_libc which, int timeout_ms,
		       struct deploy_helper *h, const struct attach_log *log,
		       struct err_text *e);

#endif
