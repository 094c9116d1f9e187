/* SPDX-License-Identifier: Apache-2.0 */
/* ns.c - entering a target's namespaces (declared in target.h). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target.h"

static int enter_one(const struct target *t, enum target_ns which, int type,
		     bool *entered, const struct attach_log *log,
		     struct err_text *e)
{
	const struct target_nsinfo *ni = &t->ns[which];
	const char *name = target_ns_name(which);
	char hint[256];
	int err;

	if (!ni->known) {
		return err_set(e, -EACCES,
			       "cannot open /proc/%d/ns/%s: cannot tell whether the JVM "
			       "is in another %s namespace %s", (int)t->pid, name, name,
			       creds_hint(CREDS_PROC_READ, hint, sizeof(hint)));
	}
	if (!ni->differs) {
		attach_step(log, "%s ns: same as ours", name);
		return 0;
	}
	if (setns(ni->fd, type) == 0) {
		*entered = true;
		attach_step(log, "setns %s: ok", name);
		return 0;
	}
	err = -errno;
	/* the caller falls back to the dirfds: without CAP_SYS_ADMIN (EPERM),
	 * or when this process has other threads (EINVAL: the kernel moves
	 * only a single-threaded caller; a qemu-user process always has a
	 * second thread, so an emulated jsym lands here) */
	if (which == TNS_MNT && (err == -EPERM || err == -EINVAL))
		return err;
	return err_set(e, err, "cannot enter the %s namespace of %d: %s %s",
		       name, (int)t->pid, strerror(-err),
		       err == -EINVAL ? "(jsym must be single-threaded here)" :
		       creds_hint(CREDS_SETNS, hint, sizeof(hint)));
}

/*
 * setns(mnt) puts us at the root of the JVM's mount namespace, and a JVM in
 * our own mount namespace leaves us at ours: neither is the JVM's root when
 * it runs chrooted (runc --no-pivot on a ramdisk, systemd's
 * RootDirectory=, a JVM started in a chroot), or when jsym itself runs in
 * one.  What we resolve from here on (the loader the probe runs, the paths
 * handed to it) must be the JVM's, so chroot into the root dirfd opened
 * before setns, as nsenter --root does, whenever it is not already ours.
 */
static int enter_root(const struct target *t, struct ns_result *res,
		      const struct attach_log *log, struct err_text *e)
{
	struct stat ours, its;

	if (t->root_fd < 0 || fstat(t->root_fd, &its) != 0 || stat("/", &ours) != 0)
		return 0;       /* nothing better to go by: the namespace's root */
	if (ours.st_dev == its.st_dev && ours.st_ino == its.st_ino)
		return 0;
	if (fchdir(t->root_fd) != 0 || chroot(".") != 0)
		return err_set(e, -errno, "cannot chroot into the root of %d "
			       "(/proc/%d/root, %s): %s (needs CAP_SYS_CHROOT)",
			       (int)t->pid, (int)t->pid,
			       t->root_path[0] ? t->root_path : "?", strerror(errno));
	res->root_entered = true;
	attach_step(log, "chroot into the JVM's root (%s): ok",
		    t->root_path[0] ? t->root_path : "?");
	return 0;
}

int ns_enter(const struct target *t, unsigned which, struct ns_result *res,
	     const struct attach_log *log, struct err_text *e)
{
	int rc;

	memset(res, 0, sizeof(*res));
	/* ipc, net and pid first: entering mnt first would not hurt them (the
	 * ns fds are already open), but a refused mnt must not skip them */
	if (which & NS_ENTER_IPC) {
		rc = enter_one(t, TNS_IPC, CLONE_NEWIPC, &res->ipc_entered, log, e);
		if (rc)
			return rc;
	}
	if (which & NS_ENTER_NET) {
		rc = enter_one(t, TNS_NET, CLONE_NEWNET, &res->net_entered, log, e);
		if (rc)
			return rc;
	}
	if (which & NS_ENTER_PID) {
		rc = enter_one(t, TNS_PID, CLONE_NEWPID, &res->pid_entered, log, e);
		if (rc)
			return rc;
	}
	if (which & NS_ENTER_MNT) {
		rc = enter_one(t, TNS_MNT, CLONE_NEWNS, &res->mnt_entered, log, e);
		if ((rc == -EPERM || rc == -EINVAL) && t->root_fd >= 0 && t->cwd_fd >= 0) {
			res->mnt_fallback = true;
			attach_step(log, "setns mnt: %s; using /proc/%d/root and "
				    "/proc/%d/cwd instead", rc == -EPERM ?
				    "Operation not permitted (no CAP_SYS_ADMIN)" :
				    "Invalid argument (jsym has other threads: run by "
				    "an emulator such as qemu-user?)", (int)t->pid,
				    (int)t->pid);
			return 0;
		}
		if (rc == -EPERM) {
			char hint[256];

			return err_set(e, rc, "cannot enter the mount namespace of %d "
				       "and cannot open /proc/%d/root: %s %s",
				       (int)t->pid, (int)t->pid, strerror(EPERM),
				       creds_hint(CREDS_PROC_READ, hint, sizeof(hint)));
		}
		if (rc == -EINVAL)
			return err_set(e, rc, "cannot enter the mount namespace of %d "
				       "(jsym must be single-threaded here) and cannot "
				       "open /proc/%d/root", (int)t->pid, (int)t->pid);
		if (rc)
			return rc;
		return enter_root(t, res, log, e);
	}
	return 0;
}

int ns_enter_allowed(const struct target *t, unsigned which, unsigned required,
		     bool *pid_entered, struct err_text *e)
{
	static const unsigned each[] = { NS_ENTER_IPC, NS_ENTER_NET, NS_ENTER_PID };
	struct ns_result nr;
	int rc;

	*pid_entered = false;
	for (size_t i = 0; i < sizeof(each) / sizeof(each[0]); i++) {
		if (!(which & each[i]))
			continue;
		rc = ns_enter(t, each[i], &nr, NULL, e);
		if (rc == -EPERM && !(required & each[i])) {
			e->msg[0] = '\0';
			continue;
		}
		if (rc)
			return rc;
		*pid_entered = *pid_entered || nr.pid_entered;
	}
	return 0;
}

int ns_enter_root(const struct target *t, struct err_text *e)
{
	struct ns_result nr;
	int rc = ns_enter(t, NS_ENTER_MNT, &nr, NULL, e);

	if (rc)
		return rc;
	if (nr.mnt_fallback && (fchdir(t->root_fd) != 0 || chroot(".") != 0))
		return err_set(e, -errno, "cannot enter the container's mount "
			       "namespace (no CAP_SYS_ADMIN) nor chroot into its root: "
			       "%s (needs CAP_SYS_CHROOT)", strerror(errno));
	if (chdir("/") != 0)
		return err_set(e, -errno, "cannot change to the container's /: %s",
			       strerror(errno));
	return 0;
}
