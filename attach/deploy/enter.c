/*
 * enter.c - the first steps of a child jsym runs inside a JVM's container
 * for delivery: the libc probe (pick.c) and the memfd helper (memfd.c).
 *
 * Both want the container's view of the file system (the probe runs the
 * container's loader; the helper must resolve /proc in the container's
 * procfs, and its own /proc/<pid>/root must not lead a container process
 * to the host's tree), both want the JVM's ids, and a memfd hand-over also
 * wants the JVM's pid namespace, which setns() gives only to children
 * forked afterwards (docs/protocols.md C3, C5, E5).
 */
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "deploy.h"
#include "ns.h"
#include "target.h"

/* Close every fd from `from` on (close_range when the kernel has it). */
static void close_from(int from)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)from, ~0u, 0u) == 0)
		return;
#endif
	for (int fd = from; fd < 65536; fd++)
		close(fd);
}

/*
 * The process in between: it stays outside the JVM's pid namespace and
 * reaps the one inside, so no zombie is ever left to the container's init
 * (often the JVM itself, which reaps nobody).  It holds no descriptor:
 * whoever waits for EOF on a pipe sees it when the inner process ends.
 */
static void reap_and_exit(pid_t inner)
{
	int status = 0;

	close_from(0);
	while (waitpid(inner, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status))
		_exit(128 + WTERMSIG(status));
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

int deploy_enter(const struct target *t, bool pid_ns, struct err_text *e)
{
	struct ns_result nr;
	pid_t inner;
	int rc;

	rc = ns_enter(t, NS_ENTER_MNT | (pid_ns ? NS_ENTER_PID : 0u), &nr, NULL, e);
	if (rc)
		return rc;
	if (nr.mnt_fallback && (fchdir(t->root_fd) != 0 || chroot(".") != 0))
		return err_set(e, -errno, "cannot enter the container's mount "
			       "namespace (no CAP_SYS_ADMIN) nor chroot into its root: "
			       "%s (needs CAP_SYS_CHROOT)", strerror(errno));
	if (chdir("/") != 0)
		return err_set(e, -errno, "cannot change to the container's /: %s",
			       strerror(errno));
	if (!nr.pid_entered)
		return 0;
	inner = fork();
	if (inner < 0)
		return err_set(e, -errno, "cannot fork into the JVM's pid namespace: "
			       "%s", strerror(errno));
	if (inner > 0)
		reap_and_exit(inner);
	/* die with the process in between (our parent is invisible from here:
	 * getppid() is 0, so there is nothing to compare) */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	return 0;
}

int deploy_become(const struct target *t, struct err_text *e)
{
	uid_t uid = t->st.uid[1];
	gid_t gid = t->st.gid[1];
	pid_t parent = getppid();

	/* supplementary groups are best effort, as for the attach itself */
	if (t->st.ngroups >= 0 && setgroups((size_t)t->st.ngroups, t->st.groups) != 0)
		(void)!setgroups(0, NULL);
	/* all three ids: with differing ones the kernel marks an exec secure
	 * (the loader would ignore LD_PRELOAD), and the JVM's ptrace-read
	 * check on a memfd holder compares real, effective and saved ids */
	if (setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0)
		return err_set(e, -errno, "cannot take the JVM's uid %u gid %u: %s "
			       "(needs CAP_SETUID and CAP_SETGID)", (unsigned)uid,
			       (unsigned)gid, strerror(errno));
	/* an id change cleared the parent-death signal: set it again, then
	 * make sure the parent did not end in between (a parent in another pid
	 * namespace shows as 0 before and after: the window is this call) */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		return err_set(e, -ESRCH, "jsym ended while the child started");
	return 0;
}
