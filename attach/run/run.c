/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run.c - run one attach command in a forked, single-threaded child.
 *
 * The child enters the namespaces the protocol needs, takes the JVM's
 * credentials where it must, speaks HotSpot or OpenJ9, streams the JVM's
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
#include "target.h"

static int child_hotspot(const struct run_request *rq, const struct target *t,
			 int out_fd, const struct attach_log *log,
			 struct run_result *res)
{
	struct hs_request hr = { rq->cmd, rq->args, rq->nargs, rq->protocol };
	struct hs_opts o = { rq->timeout_ms, rq->read_timeout_ms, out_fd,
			     STDERR_FILENO, log, NULL };
	struct creds_saved sv;
	struct ns_result nr;
	int rc;

	rc = ns_enter(t, NS_ENTER_MNT, &nr, log, &res->err);
	if (rc)
		return rc;
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
	rc = hotspot_exec(t, &hr, &o, &res->reply, &res->err);
	creds_restore(&sv);
	return rc;
}

static int child_openj9(const struct run_request *rq, const struct target *t,
			int out_fd, const struct attach_log *log,
			struct run_result *res)
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
	struct ns_result nr;
	int rc;

	rc = ns_enter(t, NS_ENTER_IPC | NS_ENTER_NET, &nr, log, &res->err);
	if (rc)
		return rc;
	argv[0] = rq->cmd;
	for (int i = 0; i < rq->nargs; i++)
		argv[i + 1] = rq->args[i];
	return openj9_exec(&ot, rq->nargs + 1, argv, out_fd, &res->reply, &res->err);
}

int run_attach(const struct target *t, const struct run_request *rq,
		     int out_fd, const struct attach_log *log,
		     struct run_result *res)
{
	int p[2], status;
	pid_t child, parent;
	ssize_t n;

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
		r.rc = t->maps.kind == PROC_OPENJ9 ?
		       child_openj9(rq, t, out_fd, log, &r) :
		       child_hotspot(rq, t, out_fd, log, &r);
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
