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

/* The capset(2) ABI, version 3 (musl has no <sys/capability.h>). */
struct cap_header { unsigned version; int pid; };
struct cap_data { unsigned effective, permitted, inheritable; };
#define CAP_VERSION_3 0x20080522u

/*
 * Leave nothing of the host's privileges to what runs inside: the ids alone
 * do not do it for a JVM run as root (uid 0 to uid 0 keeps every
 * capability), and the probe then execs the container's loader, which
 * loads whatever the container's /etc/ld.so.preload names.  So: an empty
 * bounding set (best effort: it needs CAP_SETPCAP, which a sidecar may
 * lack), no ambient capabilities, empty permitted/effective/inheritable
 * sets, and no_new_privs, which also keeps an exec as uid 0 or of a
 * set-uid/file-capability binary of the container's from gaining any.
 */
static void drop_bounding_set(void)
{
	for (int cap = 0; cap < 64; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL)
			break;
}

static int drop_privileges(void)
{
	struct cap_header h = { CAP_VERSION_3, 0 };
	struct cap_data d[2];

	memset(d, 0, sizeof(d));
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (syscall(SYS_capset, &h, d) != 0)
		return -errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -errno;
	return 0;
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
	bool pid_in;
	pid_t inner;
	int rc;

	/* Out of jsym's session: nothing started inside may open jsym's
	 * controlling terminal (/dev/tty) to read it or push input into it
	 * (TIOCSTI).  Not dumpable while we still hold jsym's ids and
	 * capabilities: a process of the container must not ptrace us or read
	 * our /proc files in between (deploy_become() and the memfd helper
	 * decide that again once nothing of the host's is left). */
	(void)setsid();
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* All of the JVM's namespaces that matter, not only its files: what
	 * runs inside is the container's code (its loader, its libc and its
	 * ld.so.preload), which should not see our pids (to signal or ptrace
	 * processes of the same uid), our loopback and abstract sockets, or
	 * our System V IPC.  Without CAP_SYS_ADMIN (a DaemonSet with hostPID)
	 * setns refuses them: then only the pid namespace a memfd needs is
	 * required, and what runs has no capability and no_new_privs
	 * (deploy_become) but shares jsym's pid and net namespaces. */
	pid_in = false;
	for (int i = 0; i < 3; i++) {
		static const unsigned which[3] = { NS_ENTER_IPC, NS_ENTER_NET, NS_ENTER_PID };

		rc = ns_enter(t, which[i], &nr, NULL, e);
		if (rc == -EPERM && !(which[i] == NS_ENTER_PID && pid_ns)) {
			e->msg[0] = '\0';
			continue;
		}
		if (rc)
			return rc;
		pid_in = pid_in || nr.pid_entered;
	}
	rc = ns_enter(t, NS_ENTER_MNT, &nr, NULL, e);
	if (rc)
		return rc;
	if (nr.mnt_fallback && (fchdir(t->root_fd) != 0 || chroot(".") != 0))
		return err_set(e, -errno, "cannot enter the container's mount "
			       "namespace (no CAP_SYS_ADMIN) nor chroot into its root: "
			       "%s (needs CAP_SYS_CHROOT)", strerror(errno));
	if (chdir("/") != 0)
		return err_set(e, -errno, "cannot change to the container's /: %s",
			       strerror(errno));
	/* nothing open beyond 0-2 goes in: jsym's descriptors are
	 * close-on-exec, but those it inherited from its caller are not, and
	 * a descriptor of a host directory is a way out of a chroot */
	close_from(3);
	if (!pid_in)
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
	int rc;

	/* supplementary groups are best effort, as for the attach itself */
	if (t->st.ngroups >= 0 && setgroups((size_t)t->st.ngroups, t->st.groups) != 0)
		(void)!setgroups(0, NULL);
	drop_bounding_set();    /* while CAP_SETPCAP may still be ours */
	/* all three ids: with differing ones the kernel marks an exec secure
	 * (the loader would ignore LD_PRELOAD), and the JVM's ptrace-read
	 * check on a memfd holder compares real, effective and saved ids */
	if (setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0)
		return err_set(e, -errno, "cannot take the JVM's uid %u gid %u: %s "
			       "(needs CAP_SETUID and CAP_SETGID)", (unsigned)uid,
			       (unsigned)gid, strerror(errno));
	rc = drop_privileges();
	if (rc)
		return err_set(e, rc, "cannot drop the capabilities left with uid "
			       "%u: %s", (unsigned)uid, strerror(-rc));
	/* an id change cleared the parent-death signal: set it again, then
	 * make sure the parent did not end in between (a parent in another pid
	 * namespace shows as 0 before and after: the window is this call) */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		return err_set(e, -ESRCH, "jsym ended while the child started");
	return 0;
}
