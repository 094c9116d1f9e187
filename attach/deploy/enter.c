/* SPDX-License-Identifier: Apache-2.0 */
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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"
#include "deploy.h"
#include "deploy_int.h"
#include "target.h"

/* How long a SIGKILLed child may take to die before it is left behind. */
#define KILL_REAP_MS 500

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

/* SIGKILL every child listed in /proc/self/task/<tid>/children (a
 * seq_file: reading from offset 0 again lists them anew).  A list longer
 * than the buffer loses its cut last number: the caller comes back. */
static void kill_children(int fd)
{
	char buf[16384], *p = buf, *end;
	ssize_t n;

	if (fd < 0)
		return;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (;;) {
		long pid = strtol(p, &end, 10);

		if (end == p || (*end == '\0' && n == (ssize_t)sizeof(buf) - 1))
			break;
		if (pid > 0)
			kill((pid_t)pid, SIGKILL);
		p = end;
	}
}

/* What a reaper's uid must not be: the real, effective and saved uids of
 * every process this one sees (the ids kill(2) compares), and the outside
 * ranges of every other user namespace's uid_map among them (a process
 * with CAP_SETUID there could take any of those).  /proc is jsym's own. */
struct taken {
	uid_t *uids;
	size_t n, cap;
	struct { unsigned long long lo, hi; } ranges[64];
	int nranges;
	bool crowded;           /* more than we can hold: take no uid at all */
};

static void take_uid(struct taken *tk, uid_t u)
{
	if (tk->n == tk->cap) {
		size_t nc = tk->cap ? tk->cap * 2 : 256;
		uid_t *nu = realloc(tk->uids, nc * sizeof(*nu));

		if (!nu) {
			tk->crowded = true;
			return;
		}
		tk->uids = nu;
		tk->cap = nc;
	}
	tk->uids[tk->n++] = u;
}

/* One "inside outside count" line of a uid_map at p: the next line, or
 * NULL at the end (or at a line that is not three numbers). */
static const char *uid_map_line(const char *p, unsigned long long *in,
				unsigned long long *out, unsigned long long *cnt)
{
	char *end;

	*in = strtoull(p, &end, 10);
	if (end == p)
		return NULL;
	*out = strtoull(end, &end, 10);
	*cnt = strtoull(end, &end, 10);
	while (*end == '\n' || *end == ' ')
		end++;
	return end;
}

/* Each line of a uid_map other than ours: its outside range. */
static void take_ranges(struct taken *tk, const char *map, const char *ours)
{
	const int max = (int)(sizeof(tk->ranges) / sizeof(tk->ranges[0]));
	unsigned long long in, out, cnt;
	const char *p = map;

	if (!strcmp(map, ours))
		return;
	while ((p = uid_map_line(p, &in, &out, &cnt)) != NULL) {
		int i;

		for (i = 0; i < tk->nranges; i++)
			if (tk->ranges[i].lo == out && tk->ranges[i].hi == out + cnt)
				break;
		if (i == tk->nranges && i < max) {
			tk->ranges[i].lo = out;
			tk->ranges[i].hi = out + cnt;
			tk->nranges++;
		} else if (i == tk->nranges) {
			tk->crowded = true;
		}
	}
}

static void scan_taken(DIR *d, const char *ours, struct taken *tk)
{
	struct dirent *de;

	while ((de = readdir(d)) != NULL) {
		struct proc_status st;
		char name[32], *text = NULL;
		ssize_t n;

		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    strlen(de->d_name) > 12)
			continue;
		snprintf(name, sizeof(name), "%s/status", de->d_name);
		n = confine_proc_read(dirfd(d), name, 16384, &text);
		if (n > 0 && proc_parse_status(text, (size_t)n, &st) == 0) {
			take_uid(tk, st.uid[0]);
			take_uid(tk, st.uid[1]);
			take_uid(tk, st.uid[2]);
		}
		free(text);
		text = NULL;
		snprintf(name, sizeof(name), "%s/uid_map", de->d_name);
		if (confine_proc_read(dirfd(d), name, 4096, &text) > 0)
			take_ranges(tk, text, ours);
		free(text);
	}
}

static bool is_taken(const struct taken *tk, uid_t u)
{
	for (size_t i = 0; i < tk->n; i++)
		if (tk->uids[i] == u)
			return true;
	for (int i = 0; i < tk->nranges; i++)
		if (u >= tk->ranges[i].lo && u < tk->ranges[i].hi)
			return true;
	return tk->crowded;
}

uid_t deploy_reaper_uid(uid_t jvm_uid)
{
	uid_t fallback = jvm_uid == 65534 ? 65533 : 65534;
	unsigned long long lo = 0, count = 0, in, out, cnt;
	struct taken tk = { 0 };
	const char *p;
	char *map = NULL;
	ssize_t n;
	DIR *d = opendir("/proc");

	if (!d)
		return fallback;
	/* the widest range of our user namespace's uid_map: a uid outside it
	 * cannot be taken (setresuid: EINVAL) */
	n = confine_proc_read(dirfd(d), "self/uid_map", 4096, &map);
	if (n <= 0) {
		free(map);
		closedir(d);
		return fallback;
	}
	for (p = map; (p = uid_map_line(p, &in, &out, &cnt)) != NULL; )
		if (cnt > count) {
			lo = in;
			count = cnt;
		}
	/* a random one from its upper half (above the ids of people and
	 * services), held by no process we see and mapped by no other user
	 * namespace among them: one scan, then up to 16 picks */
	if (count >= 4)
		scan_taken(d, map, &tk);
	free(map);
	closedir(d);
	for (int tries = 0; count >= 4 && tries < 16; tries++) {
		unsigned long long r = 0;
		uid_t u;

		if (syscall(SYS_getrandom, &r, sizeof(r), 0) != (long)sizeof(r))
			r = (unsigned long long)clock_ms() * 2654435761u ^ (unsigned)getpid();
		u = (uid_t)(lo + count / 2 + r % (count / 2));
		if (u == (uid_t)-1 || u == 0 || u == 65534 || u == jvm_uid ||
		    u == getuid() || is_taken(&tk, u))
			continue;
		free(tk.uids);
		return u;
	}
	free(tk.uids);
	return fallback;
}

/*
 * The process in between.  It stays in jsym's mount namespace (so /proc is
 * still jsym's) and outside the JVM's pid namespace, and runs no container
 * code.  It reaps the one inside, so no zombie is ever left to the
 * container's init (often the JVM itself, which reaps nobody), and then
 * kills what that one left behind: the container's loader, its libc or a
 * library its /etc/ld.so.preload names may fork and daemonize.
 *
 * Such orphans come to us as a child subreaper, but only from our own pid
 * namespace level (the kernel's find_new_reaper): when jsym could not enter
 * the JVM's pid namespace (no CAP_SYS_ADMIN: a hostPID DaemonSet, or a
 * sidecar that shares the pod's) they would otherwise go to an init that
 * is not the container's, with jsym's cgroup and no pod limit.  Once the
 * inner process has ended (or jsym wants it ended: SIGTERM, or jsym itself
 * ended), every child we have is killed and reaped, then every child that
 * came to us meanwhile, until none is left.  When the pid namespace was
 * entered, orphans go to the container's init instead: then they are the
 * container's own processes, in its namespaces and (deploy_cgroup_join)
 * its cgroup.
 *
 * Our real and saved uid are one no process we can see has
 * (deploy_reaper_uid): what runs inside is of the JVM's uid (0 for a root
 * JVM) without capabilities, and kill(2) lets a process without CAP_KILL
 * signal us only when its real or effective uid is our real or saved one,
 * so neither the probe nor any other unprivileged process of the pod (its
 * nobody included) can.  A process with CAP_KILL, or with CAP_SETUID in a
 * user namespace that maps our uid, still can: in a shared-PID pod that
 * is the pod's root, who can kill any process of the pod (jsym's sidecar
 * too) anyway; then deploy_adopt_orphans' sweep does our work.  If our
 * uid cannot be taken while we are privileged and share the JVM's, we
 * kill the inner process and end (126) rather than run unguarded.  The
 * effective uid stays 0, with CAP_KILL for the children.  The uid is
 * taken first thing, before the inner process can run anything of the
 * container's.
 */
static void reap_all_and_exit(pid_t inner, pid_t jsym, uid_t own_uid, uid_t jvm_uid)
{
	bool inner_done = false;
	int status = 0, fd;
	char path[64];
	sigset_t set;
	uid_t ru, eu, su;

	/* Fail closed: a privileged reaper whose real or saved uid stayed
	 * the JVM's (no CAP_SETUID, or an unmapped uid) could be killed by
	 * the probe, and its orphans would go to an init not the pod's.  A
	 * jsym without privileges shares the JVM's uid anyway: nothing to
	 * guard then. */
	if (setresuid(own_uid, (uid_t)-1, own_uid) != 0) {
		uid_t fallback = jvm_uid == 65534 ? 65533 : 65534;

		(void)setresuid(fallback, (uid_t)-1, fallback);
	}
	if (getresuid(&ru, &eu, &su) != 0 ||
	    (eu == 0 && (ru == jvm_uid || su == jvm_uid))) {
		kill(inner, SIGKILL);
		(void)waitpid(inner, NULL, 0);
		_exit(126);
	}
	close_from(0);
	/* Wait by sigwaitinfo, never in a handler: SIGCHLD says a child
	 * ended, SIGTERM that jsym gave up (a timeout), SIGHUP that its
	 * session is gone; jsym's own end sends SIGTERM too: we must kill
	 * the rest before going, so it must not kill us. */
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGINT, SIG_IGN);
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != jsym)
		kill(inner, SIGKILL);
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	while (!inner_done) {
		pid_t r;
		int st;

		while ((r = waitpid(-1, &st, WNOHANG)) > 0)
			if (r == inner) {
				inner_done = true;
				status = st;
			}
		if (inner_done || (r < 0 && errno == ECHILD))
			break;
		if (sigwaitinfo(&set, NULL) != SIGCHLD)
			kill(inner, SIGKILL);   /* then wait for it */
	}
	for (;;) {
		int ignored;

		kill_children(fd);
		if (waitpid(-1, &ignored, 0) < 0 && errno == ECHILD)
			break;
	}
	if (!inner_done)
		_exit(127);
	if (WIFSIGNALED(status))
		_exit(128 + WTERMSIG(status));
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

int deploy_adopt_orphans(void)
{
	return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 0 : -errno;
}

void deploy_sweep_orphans(void)
{
	long deadline = clock_ms() + KILL_REAP_MS;
	char path[64];
	int fd, ignored;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)syscall(SYS_gettid));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	/* each SIGKILLed; one the kernel holds in an uninterruptible wait
	 * (deploy_end_child) is left behind at the deadline, not waited for */
	for (;;) {
		pid_t r;

		kill_children(fd);
		r = waitpid(-1, &ignored, WNOHANG);
		if (r < 0 && errno == ECHILD)
			break;
		if (r <= 0 && clock_ms() >= deadline)
			break;
		if (r == 0)
			usleep(2000);
	}
	if (fd >= 0)
		close(fd);
}

int deploy_enter(const struct target *t, bool pid_ns, struct err_text *e)
{
	pid_t inner, jsym = getppid();
	uid_t reaper_uid;
	bool pid_in;
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
	rc = ns_enter_allowed(t, NS_ENTER_IPC | NS_ENTER_NET | NS_ENTER_PID,
			      pid_ns ? NS_ENTER_PID : 0, &pid_in, e);
	if (rc)
		return rc;
	/* The fork comes before the mount namespace or the chroot: the
	 * process in between keeps jsym's /proc and /sys to find and kill
	 * what the inner one leaves (reap_all_and_exit). */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
		return err_set(e, -errno, "cannot become a child subreaper: %s",
			       strerror(errno));
	reaper_uid = deploy_reaper_uid(t->st.uid[1]);
	inner = fork();
	if (inner < 0)
		return err_set(e, -errno, "cannot fork%s: %s", pid_in ?
			       " into the JVM's pid namespace" : "", strerror(errno));
	if (inner > 0)
		reap_all_and_exit(inner, jsym, reaper_uid, t->st.uid[1]);
	/* die with the process in between (in the JVM's pid namespace our
	 * parent is invisible: getppid() is 0 before and after) */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	(void)prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);  /* not inherited anyway */
	/* Into the JVM's cgroups (best effort: a sidecar, a read-only
	 * /sys/fs/cgroup or a cgroup namespace leave us where we are, and the
	 * reaper above still holds): what the container's code starts then
	 * counts against the pod's memory and pids limits, also when it is
	 * orphaned to the container's init.  Before the mount namespace:
	 * /sys/fs/cgroup must be ours. */
	if (!t->ns[TNS_MNT].known || t->ns[TNS_MNT].differs)  /* host JVMs: host code */
		(void)deploy_cgroup_join(t);
	rc = ns_enter_root(t, e);
	if (rc)
		return rc;
	/* nothing open beyond 0-2 goes in: jsym's descriptors are
	 * close-on-exec, but those it inherited from its caller are not, and
	 * a descriptor of a host directory is a way out of a chroot */
	close_from(3);
	return 0;
}

/* Reap pid by deadline: 0, or -ETIMEDOUT while it still runs. */
static int reap_by(pid_t pid, long deadline)
{
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			return 0;
		if (clock_ms() >= deadline)
			return -ETIMEDOUT;
		usleep(2000);
	}
}

/*
 * Ask the process in between to end what runs inside and everything it
 * left, then reap it; SIGKILL it when it has not within grace_ms.  Even
 * SIGKILL does not end a process the kernel holds in an uninterruptible
 * wait (the container's loader opening a FUSE file whose server never
 * answers, planted at /etc/ld.so.preload: 95-audit-opens), so the reap
 * after it is bounded too: such a child is left behind, reaped if it ever
 * ends, and jsym goes on.
 */
int deploy_end_child(pid_t pid, int grace_ms)
{
	kill(pid, SIGTERM);
	if (reap_by(pid, clock_ms() + grace_ms) == 0)
		return 0;
	kill(pid, SIGKILL);
	(void)reap_by(pid, clock_ms() + KILL_REAP_MS);
	return -ETIMEDOUT;
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
