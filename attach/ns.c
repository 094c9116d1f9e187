/* ns.c - confined path resolution and setns (see ns.h). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "creds.h"
#include "ns.h"
#include "target.h"

#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#else
/* musl-gcc has no kernel headers: the openat2(2) ABI, from the man page */
struct open_how {
	unsigned long long flags, mode, resolve;
};
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_IN_ROOT 0x10
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

int ns_open_walk(int root_fd, const char *rel, int flags)
{
	char comp[256];
	const char *p = rel;
	int dir = root_fd, fd = -1;

	for (;;) {
		const char *slash;
		size_t n;
		bool last;
		int f;

		while (*p == '/')
			p++;
		slash = strchr(p, '/');
		n = slash ? (size_t)(slash - p) : strlen(p);
		last = !slash || slash[strspn(slash, "/")] == '\0';
		if (n == 0 || n >= sizeof(comp)) {
			fd = n == 0 ? -EINVAL : -ENAMETOOLONG;
			break;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		if (strcmp(comp, "..") == 0) {
			fd = -EXDEV;
			break;
		}
		f = last ? flags : O_PATH | O_DIRECTORY;
		fd = openat(dir, comp, f | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
		if (dir != root_fd)
			close(dir);
		if (fd < 0 || last)
			return fd;
		dir = fd;
		p += n;
	}
	if (dir != root_fd)
		close(dir);
	return fd;
}

int ns_open_in_root(int root_fd, const char *rel, int flags, bool *used_walk)
{
	struct open_how how;
	long fd;

	if (used_walk)
		*used_walk = false;
	if (root_fd < 0 || !rel || !*rel)
		return -EINVAL;
	memset(&how, 0, sizeof(how));
	how.flags = (unsigned long long)(flags | O_CLOEXEC);
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
#ifdef SYS_openat2
	fd = syscall(SYS_openat2, root_fd, rel, &how, sizeof(how));
	if (fd >= 0)
		return (int)fd;
	if (errno != ENOSYS && errno != EPERM)   /* EPERM: seccomp filters */
		return -errno;
#endif
	if (used_walk)
		*used_walk = true;
	fd = ns_open_walk(root_fd, rel, flags);
	return (int)fd;
}

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
	if (which == TNS_MNT && err == -EPERM)
		return err;     /* the caller falls back to the dirfds */
	return err_set(e, err, "cannot enter the %s namespace of %d: %s %s",
		       name, (int)t->pid, strerror(-err),
		       err == -EINVAL ? "(jsym must be single-threaded here)" :
		       creds_hint(CREDS_SETNS, hint, sizeof(hint)));
}

int ns_enter(const struct target *t, unsigned which, struct ns_result *res,
	     const struct attach_log *log, struct err_text *e)
{
	int rc;

	memset(res, 0, sizeof(*res));
	/* ipc and net first: entering mnt first would not hurt them (the ns
	 * fds are already open), but a refused mnt must not skip them */
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
	if (which & NS_ENTER_MNT) {
		rc = enter_one(t, TNS_MNT, CLONE_NEWNS, &res->mnt_entered, log, e);
		if (rc == -EPERM && t->root_fd >= 0 && t->cwd_fd >= 0) {
			res->mnt_fallback = true;
			attach_step(log, "setns mnt: Operation not permitted (no "
				    "CAP_SYS_ADMIN); using /proc/%d/root and "
				    "/proc/%d/cwd instead", (int)t->pid, (int)t->pid);
			return 0;
		}
		if (rc == -EPERM) {
			char hint[256];

			return err_set(e, rc, "cannot enter the mount namespace of %d "
				       "and cannot open /proc/%d/root: %s %s",
				       (int)t->pid, (int)t->pid, strerror(EPERM),
				       creds_hint(CREDS_PROC_READ, hint, sizeof(hint)));
		}
		if (rc)
			return rc;
	}
	return 0;
}
