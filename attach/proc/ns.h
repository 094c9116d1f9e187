/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ns.h - reaching a target's files and entering its namespaces.
 *
 * Call these only in a forked, single-threaded child (setns(mnt) fails with
 * EINVAL in a multithreaded process, and an entered namespace must not leak
 * into the CLI).  All paths inside the target are resolved relative to the
 * root dirfd that target_open() opened before anything was entered.
 */
#ifndef JSYM_NS_H
#define JSYM_NS_H

#include <stdbool.h>

#include "base.h"

struct target;

#define NS_ENTER_MNT 1u
#define NS_ENTER_NET 2u         /* OpenJ9: its connect-back is to loopback */
#define NS_ENTER_IPC 4u         /* OpenJ9: SysV semaphores are per ipc ns */
#define NS_ENTER_PID 8u         /* memfd hand-over: only children forked
                                   afterwards are in it (protocols.md E5) */

struct ns_result {
	bool mnt_entered;       /* setns(mnt) done */
	bool mnt_fallback;      /* refused (EPERM, EINVAL): use root/cwd dirfds */
	bool net_entered, ipc_entered;
	bool pid_entered;       /* the next fork() lands in the JVM's pid ns */
	bool root_entered;      /* chrooted into the JVM's root, which was not
	                           where mnt left us */
};

/*
 * Enter the namespaces in `which` that differ from ours (same ns: nothing to
 * do).  mnt: EPERM (a sidecar without CAP_SYS_ADMIN) and EINVAL (a caller
 * with other threads: any process run by qemu-user has one) are not errors:
 * the caller goes on with the /proc/<pid>/root and cwd dirfds, res->mnt_fallback
 * says so and a step is logged.  Every other failure, and any failure for
 * net/ipc, returns -errno with e naming the namespace, the reason and the
 * remedy.  A namespace whose file could not be opened is an error too (we
 * cannot know whether it differs).  pid: the caller stays where it is; only
 * the children it forks afterwards are in the JVM's pid namespace.  mnt,
 * entered or the same as ours: when the JVM's own root (/proc/<pid>/root)
 * is not where that leaves us (a chrooted JVM, or jsym itself in a chroot),
 * chroot into it (res->root_entered); refused: -errno with e naming
 * CAP_SYS_CHROOT.
 */
int ns_enter(const struct target *t, unsigned which, struct ns_result *res,
	     const struct attach_log *log, struct err_text *e);

/*
 * As many of `which` (ipc, net, pid) as we may: each is entered on its
 * own, and one refused with EPERM (no CAP_SYS_ADMIN: a DaemonSet with
 * hostPID) is skipped unless it is in `required`.  *pid_entered says
 * whether the next fork() lands in the JVM's pid namespace.  0 or -errno
 * with e set (e is empty after a skip).
 */
int ns_enter_allowed(const struct target *t, unsigned which, unsigned required,
		     bool *pid_entered, struct err_text *e);

/*
 * The JVM's files as its "/" for code that runs inside (a probe, a
 * loader): its mount namespace, or, refused, a chroot into its root dir;
 * then cwd "/".  0 or -errno with e naming CAP_SYS_CHROOT.
 */
int ns_enter_root(const struct target *t, struct err_text *e);

#endif
