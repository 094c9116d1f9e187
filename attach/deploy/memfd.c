/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memfd.c - hand the agent to a JVM without writing it into its container.
 *
 * A helper process holds a memfd with the agent's bytes; the JVM loads
 * /proc/<helper>/fd/<n>, resolved in its own /proc (docs/protocols.md E5):
 *
 *   jsym ── fork ──► child: setns(mnt) (or chroot into the JVM's root),
 *                    setns(pid) ── fork ──► helper, in the JVM's pid ns
 *                    (reaps the helper)     memfd of jsym-memfd-holder;
 *                                           ids := the JVM's (real, eff,
 *                                           saved): no capabilities left;
 *                                           the agent's memfd at fd 3;
 *                                           checks /proc/<getpid()>/fd/3
 *                                           is that memfd; reports; execs
 *                                           the holder, which makes itself
 *                                           dumpable, says so, and waits
 *                                           for its pipe to close
 *
 * Why each step: the JVM's open of /proc/<helper>/fd/<n> is a ptrace-read
 * check with the JVM as caller, which passes only when the helper's three
 * uids and gids are the JVM's, its permitted capabilities are a subset of
 * the JVM's (empty here) and it is dumpable (the id change cleared that).
 * The helper's pid must be the one the JVM's procfs shows: getpid() in its
 * pid namespace.  Being dumpable as the JVM's uid also lets processes of
 * that uid in the container read all of the helper's memory
 * (/proc/<pid>/mem): so what is dumpable is never jsym's image (a fork
 * holds jsym's host paths, its layout and its stack canary) but a fresh,
 * tiny program exec'd from a memfd (memfd_holder.c, carried in jsym), with
 * no argument, no environment and no descriptor but its two pipes and the
 * agent's memfd.  jsym's image stays undumpable until the exec.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"
#include "deploy.h"
#include "deploy_int.h"
#include "target.h"

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008u
#endif
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010u
#endif

/* What the helper tells jsym, once. */
struct helper_report {
	int rc;                 /* 0, or -errno with err */
	pid_t nspid;
	int fd;
	struct err_text err;
};

int deploy_memfd_of(const char *name, const struct deploy_file *f,
		    unsigned flags)
{
	int fd = memfd_create(name, flags);
	int rc;

	if (fd < 0 && errno == EINVAL && (flags & MFD_EXEC))
		/* before Linux 6.3: no such flag, and every memfd may be exec'd */
		fd = memfd_create(name, flags & ~MFD_EXEC);
	else if (fd < 0 && !(flags & MFD_EXEC) &&
		 (errno == EACCES || errno == EPERM || errno == EINVAL))
		/* vm.memfd_noexec=2 refuses a memfd that could get exec bits */
		fd = memfd_create(name, flags | MFD_NOEXEC_SEAL);
	if (fd < 0)
		return -errno;
	rc = fdio_write_all(fd, f->data, f->size, 0);
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

/* Does /proc/<getpid()>/fd/<fd>, as the container resolves it, reach fd? */
static int check_procfs(int fd, struct err_text *e)
{
	char path[64], self[32] = "";
	struct stat a, b;
	ssize_t n;
	int pfd;

	n = readlink("/proc/self", self, sizeof(self) - 1);
	if (n > 0)
		self[n] = '\0';
	if (n <= 0 || atoi(self) != (int)getpid())
		return err_set(e, -ENOENT, "the JVM's mount namespace has no procfs of "
			       "its own pid namespace at /proc (/proc/self is %s, the "
			       "helper is pid %d there): the JVM could not open the "
			       "agent's memfd; mount a procfs of its pid namespace, or "
			       "give the JVM a writable, exec-able TMPDIR",
			       n > 0 ? self : "missing", (int)getpid());
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)getpid(), fd);
	pfd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (pfd < 0)
		return err_set(e, -errno, "cannot open %s in the JVM's container as "
			       "its uid: %s (an LSM or a hidepid= procfs?)", path,
			       strerror(errno));
	if (fstat(pfd, &a) != 0 || fstat(fd, &b) != 0 || a.st_ino != b.st_ino ||
	    a.st_dev != b.st_dev) {
		close(pfd);
		return err_set(e, -ESTALE, "%s in the JVM's container is not the "
			       "agent's memfd", path);
	}
	close(pfd);
	return 0;
}

/* The agent's memfd lives at this number in the holder. */
#define HOLDER_AGENT_FD 3

/* The helper's own steps, once it runs in the JVM's pid namespace; on
 * success *holder is the holder's executable (a memfd). */
static int helper_setup(const struct target *t, const struct deploy_builds *b,
			enum deploy_libc which, struct helper_report *rep, int *holder,
			struct err_text *e)
{
	const struct deploy_file prog = { .data = (unsigned char *)deploy_holder_bin,
					  .size = deploy_holder_len };
	char name[40];
	int fd, rc;

	/* made before the ids change: its bytes are jsym's own, public */
	/* MFD_EXEC: with vm.memfd_noexec=1 a memfd is sealed noexec unless
	 * asked; with 2 this fails, and the error names --delivery copy */
	*holder = deploy_memfd_of("jsym-memfd", &prog, MFD_CLOEXEC | MFD_EXEC);
	if (*holder < 0)
		return err_set(e, *holder, "cannot create a memfd for the memfd holder: %s",
			       strerror(-*holder));
	rc = deploy_become(t, e);      /* also drops every capability */
	if (rc)
		return rc;
	prctl(PR_SET_NAME, "jsym-memfd");
	snprintf(name, sizeof(name), "jsym-agent-%s", deploy_libc_name(which));
	fd = deploy_memfd_of(name, &b->agent[which], 0);
	if (fd < 0)
		return err_set(e, fd, "cannot create a memfd for the agent in the "
			       "JVM's pid namespace: %s", strerror(-fd));
	if (fd != HOLDER_AGENT_FD) {
		if (dup2(fd, HOLDER_AGENT_FD) < 0)
			return err_set(e, -errno, "cannot move the agent's memfd: %s",
				       strerror(errno));
		close(fd);
	}
	rc = check_procfs(HOLDER_AGENT_FD, e);
	if (rc)
		return rc;
	rep->nspid = getpid();
	rep->fd = HOLDER_AGENT_FD;
	return 0;
}

/* jsym's child: never returns.  info: write end of the report pipe; ctl:
 * read end whose EOF ends the helper. */
static void helper_child(const struct target *t, const struct deploy_builds *b,
			 enum deploy_libc which, int info, int ctl, pid_t parent)
{
	static char *const argv[] = { "jsym-memfd", NULL }, *const envp[] = { NULL };
	struct helper_report rep;
	int holder = -1;

	memset(&rep, 0, sizeof(rep));
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(3);
	/* the pipes at 0 and 1, everything else closed once inside */
	if (dup2(ctl, STDIN_FILENO) < 0 || dup2(info, STDOUT_FILENO) < 0)
		_exit(3);
	rep.rc = deploy_enter(t, true, &rep.err);
	if (rep.rc == 0) {
		/* inside now: nothing of jsym's but the two pipes stays open */
#ifdef SYS_close_range
		if (syscall(SYS_close_range, 2u, ~0u, 0u) != 0)
#endif
			for (int fd = 2; fd < 65536; fd++)
				close(fd);
		rep.rc = helper_setup(t, b, which, &rep, &holder, &rep.err);
	}
	if (write(STDOUT_FILENO, &rep, sizeof(rep)) != (ssize_t)sizeof(rep) || rep.rc)
		_exit(1);
	/* the holder replaces this image (same pid, fds 0, 1 and 3) and
	 * writes one byte to 1 once it runs; a failed exec writes none */
	syscall(SYS_execveat, holder, "", argv, envp, AT_EMPTY_PATH);
	_exit(4);
}
/* Reap our child within ms, killing it (never anything else) when late. */
static int reap(pid_t pid, int ms)
{
	long deadline = clock_ms() + ms;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			return 0;
		if (clock_ms() >= deadline) {
			deploy_end_child(pid, 1000);
			return -ETIMEDOUT;
		}
		usleep(2000);
	}
}

/* Read n bytes within the deadline: 0, or -ETIMEDOUT / -EPIPE (the
 * writer ended or failed first). */
static int read_exact(int fd, void *buf, size_t n, long deadline)
{
	ssize_t got = fdio_read_buf(fd, buf, n, deadline);

	if (got == -ETIMEDOUT)
		return -ETIMEDOUT;
	return got == (ssize_t)n ? 0 : -EPIPE;
}

/* The helper's report within the deadline: 0, or -ETIMEDOUT / -EPIPE. */
static int read_report(int fd, struct helper_report *rep, long deadline)
{
	return read_exact(fd, rep, sizeof(*rep), deadline);
}

int deploy_memfd_start(const struct target *t, const struct deploy_builds *b,
		       enum deploy_libc which, int timeout_ms,
		       struct deploy_helper *h, const struct attach_log *log,
		       struct err_text *e)
{
	struct helper_report rep;
	int info[2], ctl[2], rc;
	pid_t child, parent = getpid();
	long deadline;
	char ok;

	memset(h, 0, sizeof(*h));
	h->ctl = -1;
	if (pipe2(info, O_CLOEXEC) != 0)
		return err_set(e, -errno, "cannot create a pipe: %s", strerror(errno));
	if (pipe2(ctl, O_CLOEXEC) != 0) {
		rc = -errno;
		close(info[0]);
		close(info[1]);
		return err_set(e, rc, "cannot create a pipe: %s", strerror(-rc));
	}
	fflush(NULL);
	(void)deploy_adopt_orphans();   /* deploy.h: a killed reaper's orphans */
	child = fork();
	if (child == 0) {
		close(info[0]);
		close(ctl[1]);
		helper_child(t, b, which, info[1], ctl[0], parent);
	}
	rc = child < 0 ? -errno : 0;
	close(info[1]);
	close(ctl[0]);
	if (rc) {
		close(info[0]);
		close(ctl[1]);
		return err_set(e, rc, "cannot fork: %s", strerror(-rc));
	}
	memset(&rep, 0, sizeof(rep));
	deadline = clock_ms() + timeout_ms;
	rc = read_report(info[0], &rep, deadline);
	if (rc == 0 && rep.rc)
		rc = err_set(e, rep.rc < 0 ? rep.rc : -EIO, "%.*s",
			     (int)sizeof(rep.err.msg), rep.err.msg);
	else if (rc == 0 && read_exact(info[0], &ok, 1, deadline) != 0)
		rc = err_set(e, -ENOEXEC, "the memfd holder did not start (its exec "
			     "from a memfd failed: vm.memfd_noexec=2, or a seccomp or "
			     "LSM policy?): give the JVM a writable, exec-able TMPDIR "
			     "for --delivery copy");
	else if (rc == -ETIMEDOUT)
		err_set(e, rc, "the memfd helper did not start within %d ms",
			timeout_ms);
	else if (rc)
		err_set(e, rc, "the memfd helper ended without a word (killed?)");
	close(info[0]);
	if (rc) {
		close(ctl[1]);
		reap(child, 1000);
		deploy_sweep_orphans();
		return rc;
	}
	h->pid = child;
	h->ctl = ctl[1];
	h->nspid = rep.nspid;
	h->fd = rep.fd;
	attach_step(log, "memfd helper: pid %d (%d in the JVM's pid namespace) "
		    "holds the %s build as fd %d", (int)child, (int)rep.nspid,
		    deploy_libc_name(which), rep.fd);
	return 0;
}

int deploy_finish(struct deploy_result *r)
{
	struct deploy_helper *h = &r->helper;
	int rc;

	for (int i = 0; i < 2; i++)     /* the per-JVM locks (lock.c) */
		if (r->lock_fd[i] >= 0) {
			close(r->lock_fd[i]);
			r->lock_fd[i] = -1;
		}
	if (h->pid <= 0)
		return 0;
	if (h->ctl >= 0)
		close(h->ctl);
	rc = reap(h->pid, 2000);
	deploy_sweep_orphans();
	h->pid = 0;
	h->ctl = -1;
	return rc;
}
