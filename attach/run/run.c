/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run.c - run one attach command in a forked, single-threaded child.
 *
 * The child enters the namespaces the protocol needs, takes the JVM's
 * credentials where it must, speaks the protocol of the JVM's kind (the
 * table protocols[]: HotSpot or OpenJ9), streams the JVM's
 * output to out_fd itself and sends a struct run_result back through a
 * pipe.  The caller's own namespaces, ids and threads are never touched:
 * setns(mnt) refuses multithreaded callers, and a failed id switch must not
 * leave the CLI half-switched (docs/protocols.md C2, C5).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"
#include "hotspot.h"
#include "openj9.h"
#include "run.h"
#include "run_int.h"
#include "target.h"

static int exec_hotspot(const struct run_request *rq, const struct target *t,
			int out_fd, const struct attach_log *log, struct run_result *res)
{
	struct hs_request hr = { rq->cmd, rq->args, rq->nargs, rq->protocol };
	struct hs_opts o = { rq->timeout_ms, rq->read_timeout_ms, out_fd,
			     STDERR_FILENO, log, NULL, -1 };

	return hotspot_exec(t, &hr, &o, &res->reply, &res->err);
}

static int exec_openj9(const struct run_request *rq, const struct target *t,
		       int out_fd, const struct attach_log *log, struct run_result *res)
{
	const char *argv[RUN_MAX_ARGS + 1];
	struct openj9_target ot = {
		.root_fd = t->root_fd, .mnt_fd = t->proc_fd, .nspid = t->st.nspid,
		.uid = t->st.uid[1], .gid = t->st.gid[1],
		.tmpdir = t->opts.tmpdir[0] ? t->opts.tmpdir : NULL,
		.attach_dir = t->opts.attach_dir[0] ? t->opts.attach_dir : NULL,
		.timeout_ms = rq->timeout_ms,
		.read_timeout_ms = rq->read_timeout_ms,
		.log = log,
	};

	argv[0] = rq->cmd;
	for (int i = 0; i < rq->nargs; i++)
		argv[i + 1] = rq->args[i];
	return openj9_exec(&ot, rq->nargs + 1, argv, out_fd, &res->reply, &res->err);
}

/* The protocol table: what run_attach, attach's printing and list read. */
static const struct run_protocol protocols[] = {
	/* the trigger file, the socket and the peer check are the JVM's uid's */
	{ PROC_HOTSPOT, "HotSpot", NS_ENTER_MNT, true, exec_hotspot },
	/* SysV semaphores are per ipc ns, the connect-back is to loopback;
	 * openj9_exec takes the JVM's ids for its files itself */
	{ PROC_OPENJ9, "OpenJ9", NS_ENTER_IPC | NS_ENTER_NET, false, exec_openj9 },
};

const struct run_protocol *run_protocol_of(int kind)
{
	for (size_t i = 0; i < sizeof(protocols) / sizeof(protocols[0]); i++)
		if (protocols[i].kind == kind)
			return &protocols[i];
	return NULL;
}

const char *run_kind_name(int kind)
{
	const struct run_protocol *p = run_protocol_of(kind);

	return p ? p->name : "not a JVM";
}

const char *run_target_kind_name(const struct target *t)
{
	return t->maps_err ? "unknown (maps unreadable)" : run_kind_name(t->maps.kind);
}

/* In the child: the protocol's namespaces entered, the JVM's ids taken
 * when it says so, its exec run, the ids given back. */
static int child_run(const struct run_protocol *p, const struct run_request *rq,
		     const struct target *t, int out_fd, const struct attach_log *log,
		     struct run_result *res)
{
	struct creds_saved sv;
	struct ns_result nr;
	int rc;

	rc = ns_enter(t, p->namespaces, &nr, log, &res->err);
	if (rc || !p->jvm_ids)
		return rc ? rc : p->exec(rq, t, out_fd, log, res);
	/* C5: capabilities are needed up to here; the JVM's ids from now on */
	rc = creds_become(t->st.uid[1], t->st.gid[1], t->st.groups,
			  t->st.ngroups, &sv, &res->err);
	if (rc == -EPERM && geteuid() == 0 && t->jdk_major != 8) {
		/* JDK 11+ accept root as trigger owner and peer: go on as root;
		 * a later step that needs the uid names its capability */
		attach_step(log, "%s; continuing as root, which JDK 11+ accept",
			    res->err.msg);
		res->err.msg[0] = '\0';
	} else if (rc) {
		return rc;
	}
	if (sv.groups_skipped)
		attach_step(log, "setgroups refused (no CAP_SETGID): keeping our "
			    "supplementary groups");
	if (sv.switched)
		attach_step(log, "acting as uid %u gid %u", (unsigned)geteuid(),
			    (unsigned)getegid());
	rc = p->exec(rq, t, out_fd, log, res);
	creds_restore(&sv);
	return rc;
}

int run_attach(const struct target *t, const struct run_request *rq,
		     int out_fd, const struct attach_log *log,
		     struct run_result *res)
{
	const struct run_protocol *proto = run_protocol_of(t->maps.kind);
	int p[2], status;
	pid_t child, parent;
	ssize_t n;

	if (!proto)
		return err_set(&res->err, -ENOEXEC, "process %d is not a JVM jsym "
			       "knows how to attach to", (int)t->pid);

	if (pipe2(p, O_CLOEXEC) != 0)
		return err_set(&res->err, -errno, "cannot create a pipe: %s",
			       strerror(errno));
	fflush(NULL);
	parent = getpid();
	child = fork();
	if (child < 0) {
		close(p[0]);
		close(p[1]);
		return err_set(&res->err, -errno, "cannot fork: %s", strerror(errno));
	}
	if (child == 0) {
		struct run_result r;

		/*
		 * No helper outlives a killed jsym.  SIGTERM runs hotspot.c's
		 * handler, which removes the trigger file, or openj9.c's, which
		 * ends every wait so that its bounded clean-up (replyInfo
		 * removed, semaphore posts cancelled) runs before it exits.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
			_exit(3);
		/* before any namespace is entered: the JVM's files are
		 * reopened through this process's own /proc (confine.h) */
		(void)confine_pin_self();
		close(p[0]);
		memset(&r, 0, sizeof(r));
		r.rc = child_run(proto, rq, t, out_fd, log, &r);
		if (write(p[1], &r, sizeof(r)) != (ssize_t)sizeof(r))
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	do
		n = read(p[0], res, sizeof(*res));
	while (n < 0 && errno == EINTR);
	close(p[0]);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(*res)) {
		memset(res, 0, sizeof(*res));
		if (WIFSIGNALED(status))
			return err_set(&res->err, -EIO, "the attach helper died of "
				       "signal %d (a jsym bug: please report it with -v "
				       "output)", WTERMSIG(status));
		if (WIFEXITED(status) && WEXITSTATUS(status) > 128)
			return err_set(&res->err, -EINTR, "interrupted by signal %d "
				       "(the trigger file was removed)",
				       WEXITSTATUS(status) - 128);
		return err_set(&res->err, -EIO, "the attach helper ended without a "
			       "result (exit %d)", WEXITSTATUS(status));
	}
	return res->rc;
}
