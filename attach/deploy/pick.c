/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pick.c - run jsym-probe under the JVM's own loader, in its container.
 *
 * A forked child enters the JVM's mount, pid, net and ipc namespaces (or,
 * from a sidecar without CAP_SYS_ADMIN, chroots into /proc/<pid>/root:
 * CAP_SYS_CHROOT is in Docker's default set; a sidecar shares the others),
 * leaves jsym's session, takes the JVM's uid/gid for real (real, saved
 * and effective: with differing ids the kernel marks the exec secure and
 * the loader would ignore LD_PRELOAD), and execs the loader the JVM maps
 * with the probe as its program and LD_PRELOAD naming the candidate agent
 * (docs/protocols.md E3).  For a memfd delivery nothing is in the container
 * to run: the child also enters the JVM's pid namespace, puts the probe and
 * the agent in memfds of its own and gives the loader /proc/self/fd/<m> and
 * LD_PRELOAD=/proc/self/fd/<n> (E5); the entering steps are enter.c's, the
 * same as the memfd helper's.  The parent reads the probe's stdout and the
 * loader's stderr, bounded in time and size; all of it is target-controlled
 * text, parsed strictly and never printed unescaped.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"
#include "deploy.h"
#include "deploy_int.h"
#include "target.h"

#define PROBE_OUT_MAX 2048

/* The child: never returns. Failures before exec go to stderr (the pipe). */
static void probe_child(const struct target *t, enum deploy_libc which,
			const struct deploy_probe_files *f, int out, int err)
{
	char env_preload[PATH_MAX + 16], agent[32], probe[32];
	char *argv[3], *envp[3];
	struct err_text e = { "" };
	bool mem = f->agent_mem && f->probe_mem;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0)
		_exit(126);
	close(STDIN_FILENO);
	/* in the JVM's pid namespace whenever we may (what runs is the
	 * container's code); required from memfds: the probe names them
	 * /proc/self/fd/<n>, which resolves only in a procfs of its own pid
	 * namespace */
	if (deploy_enter(t, mem, &e) != 0 || deploy_become(t, &e) != 0) {
		dprintf(STDERR_FILENO, "%s\n", e.msg);
		_exit(126);
	}
	if (mem) {
		char name[40];
		/* no close-on-exec: the loader reads both after execve */
		int pfd = deploy_memfd_of("jsym-probe", f->probe_mem, 0);
		int afd;

		snprintf(name, sizeof(name), "jsym-agent-%s", deploy_libc_name(which));
		afd = deploy_memfd_of(name, f->agent_mem, 0);
		if (pfd < 0 || afd < 0) {
			dprintf(STDERR_FILENO, "cannot create a memfd in the JVM's pid "
				"namespace: %s\n", strerror(pfd < 0 ? -pfd : -afd));
			_exit(126);
		}
		snprintf(probe, sizeof(probe), "/proc/self/fd/%d", pfd);
		snprintf(agent, sizeof(agent), "/proc/self/fd/%d", afd);
	}
	snprintf(env_preload, sizeof(env_preload), "LD_PRELOAD=%s", mem ? agent : f->agent);
	argv[0] = (char *)t->maps.loader;
	argv[1] = mem ? probe : (char *)f->probe;
	argv[2] = NULL;
	envp[0] = env_preload;
	envp[1] = "PATH=/usr/sbin:/usr/bin:/sbin:/bin";
	envp[2] = NULL;
	execve(t->maps.loader, argv, envp);
	dprintf(STDERR_FILENO, "cannot run the JVM's loader %s in its container: %s\n",
		t->maps.loader, strerror(errno));
	_exit(127);
}

/* Read both pipes until EOF on both or the deadline. */
static bool drain(int out, int err, char *obuf, size_t *olen, char *ebuf,
		  size_t *elen, long deadline)
{
	struct pollfd pf[2] = { { out, POLLIN, 0 }, { err, POLLIN, 0 } };
	char *bufs[2] = { obuf, ebuf };
	size_t *lens[2] = { olen, elen };
	int open_fds = 2;

	while (open_fds > 0) {
		long left = deadline - clock_ms();

		if (left <= 0)
			return false;
		if (poll(pf, 2, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		for (int i = 0; i < 2; i++) {
			char scratch[512];
			ssize_t n;

			if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(pf[i].fd, scratch, sizeof(scratch));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				pf[i].fd = -1;
				open_fds--;
				continue;
			}
			for (ssize_t k = 0; k < n && *lens[i] < PROBE_OUT_MAX - 1; k++)
				bufs[i][(*lens[i])++] = scratch[k];
		}
	}
	return true;
}

/* Copy the first line of src into dst with anything unprintable as '?'. */
static void first_line(char *dst, size_t cap, const char *src)
{
	size_t i = 0;

	for (; src[i] && src[i] != '\n' && i + 1 < cap; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
	dst[i] = '\0';
}

/* "jsym-probe 1" / "libc ..." / "agent ok|fail ...": 0 when well-formed. */
static int parse_probe(char *out, struct deploy_probe *p, enum deploy_libc which)
{
	char *save = NULL, *line;
	int seen = 0;

	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (seen == 0 && !strcmp(line, "jsym-probe 1"))
			seen = 1;
		else if (seen == 1 && !strncmp(line, "libc ", 5)) {
			first_line(p->runtime_libc, sizeof(p->runtime_libc), line + 5);
			seen = 2;
		} else if (seen == 2 && !strncmp(line, "agent ok ", 9)) {
			p->ok[which] = true;
			seen = 3;
		} else if (seen == 2 && !strncmp(line, "agent fail ", 11)) {
			if (!p->why[which][0])
				first_line(p->why[which], sizeof(p->why[which]), line + 11);
			seen = 3;
		} else {
			return -EPROTO;
		}
	}
	return seen >= 2 ? 0 : -EPROTO;
}

int deploy_run_probe(const struct target *t, enum deploy_libc which,
		     const struct deploy_probe_files *f, int timeout_ms,
		     struct deploy_probe *p, const struct attach_log *log,
		     struct err_text *e)
{
	char obuf[PROBE_OUT_MAX] = "", ebuf[PROBE_OUT_MAX] = "";
	size_t olen = 0, elen = 0;
	int out[2], err[2], status = 0;
	bool done;
	pid_t child;

	if (!t->maps.loader[0])
		return err_set(e, -ENOEXEC, "cannot tell which dynamic loader the JVM "
			       "runs under (no ld-linux or musl libc in its maps)");
	snprintf(p->loader, sizeof(p->loader), "%s", t->maps.loader);
	if (pipe2(out, O_CLOEXEC) != 0)
		return err_set(e, -errno, "cannot create a pipe: %s", strerror(errno));
	if (pipe2(err, O_CLOEXEC) != 0) {
		close(out[0]);
		close(out[1]);
		return err_set(e, -errno, "cannot create a pipe: %s", strerror(errno));
	}
	fflush(NULL);
	(void)deploy_adopt_orphans();   /* see deploy.h: a killed reaper */
	child = fork();
	if (child == 0)
		probe_child(t, which, f, out[1], err[1]);
	close(out[1]);
	close(err[1]);
	if (child < 0) {
		close(out[0]);
		close(err[0]);
		return err_set(e, -errno, "cannot fork: %s", strerror(errno));
	}
	done = drain(out[0], err[0], obuf, &olen, ebuf, &elen, clock_ms() + timeout_ms);
	close(out[0]);
	close(err[0]);
	/* our own child, never the JVM; it takes what the probe left with it */
	if (!done)
		deploy_end_child(child, 500);
	else
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
	deploy_sweep_orphans();         /* what a killed reaper left to us */
	if (!done)
		return err_set(e, -ETIMEDOUT, "the libc probe under the container's "
			       "loader %s gave no answer within %d ms (a file its loader "
			       "opens may lie on a file system that does not answer)",
			       t->maps.loader,
			       timeout_ms);
	p->ran = true;
	p->tried[which] = true;
	obuf[olen] = ebuf[elen] = '\0';
	first_line(p->why[which], sizeof(p->why[which]), ebuf);
	if (parse_probe(obuf, p, which) != 0) {
		if (!p->why[which][0])
			snprintf(p->why[which], sizeof(p->why[which]), "the probe said "
				 "nothing usable (exit status %d)", WIFEXITED(status) ?
				 WEXITSTATUS(status) : 128 + WTERMSIG(status));
		p->ok[which] = false;
	}
	if (p->ok[which])
		p->why[which][0] = '\0';
	attach_step(log, "probe %s build%s under %s: %s%s%s (libc %s)",
		    deploy_libc_name(which), f->agent_mem ? " (from a memfd)" : "",
		    t->maps.loader, p->ok[which] ? "loads" :
		    "fails", p->ok[which] ? "" : ": ", p->why[which],
		    p->runtime_libc[0] ? p->runtime_libc : "?");
	return 0;
}
