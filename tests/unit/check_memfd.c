/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_memfd.c - the memfd helper (attach/deploy/memfd.c) against a
 * "JVM" of uid 1000 in our own namespaces: the JVM's uid reaches the
 * agent's memfd through /proc/<helper>/fd, and reads nothing of jsym's
 * memory there (issue 17 row 4).  Needs root (the helper takes the JVM's
 * ids): memfd_suite registers it as root only, and otherwise says why it
 * is skipped (check_skip.h).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_skip.h"
#include "deploy.h"
#include "deploy_int.h"
#include "target.h"

Suite *memfd_suite(void); /* the runner finds the definition below */

#define JVM_UID 1000

/* A "JVM": a child that has taken JVM_UID by the time this returns (it
 * says so through a pipe: the helper takes the ids target_open reads). */
static pid_t start_jvm(void)
{
	int p[2];
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		if (setresgid(JVM_UID, JVM_UID, JVM_UID) || setresuid(JVM_UID, JVM_UID, JVM_UID))
			_exit(1);
		if (write(p[1], "u", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

/* As the JVM's uid, read up to cap bytes of /proc/<pid>/<what> (a link:
 * its target) into out; the length, or -errno.  A child does it. */
static ssize_t read_as_jvm(pid_t pid, const char *what, bool link, char *out, size_t cap)
{
	int p[2];
	pid_t r;
	ssize_t n;

	ck_assert_int_eq(pipe(p), 0);
	r = fork();
	ck_assert_int_ge(r, 0);
	if (r == 0) {
		char path[64], buf[8192];
		ssize_t k = -EIO;
		int fd;

		close(p[0]);
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
		if (setresgid(JVM_UID, JVM_UID, JVM_UID) == 0 &&
		    setresuid(JVM_UID, JVM_UID, JVM_UID) == 0) {
			if (link) {
				k = readlink(path, buf, sizeof(buf));
			} else if ((fd = open(path, O_RDONLY)) >= 0) {
				k = read(fd, buf, sizeof(buf));
				close(fd);
			}
			if (k < 0)
				k = -errno;
		}
		if (write(p[1], &k, sizeof(k)) != sizeof(k) ||
		    (k > 0 && write(p[1], buf, (size_t)k) != k))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], &n, sizeof(n)), sizeof(n));
	if (n > 0) {
		size_t want = (size_t)n < cap - 1 ? (size_t)n : cap - 1, got = 0;
		ssize_t k;

		while (got < want && (k = read(p[0], out + got, want - got)) > 0)
			got += (size_t)k;
		out[got] = '\0';
		n = (ssize_t)got;
	}
	close(p[0]);
	waitpid(r, NULL, 0);
	return n;
}

START_TEST(holder_shows_nothing_of_jsym)
{
	static char agent[] = "agent bytes";
	struct deploy_builds b;
	struct deploy_helper h;
	struct target t;
	struct err_text e = { "" };
	char buf[8192], self[256], fdname[32];
	ssize_t n;
	pid_t jvm;

	memset(&b, 0, sizeof(b));
	b.agent[DEPLOY_GLIBC].data = (unsigned char *)agent;
	b.agent[DEPLOY_GLIBC].size = sizeof(agent) - 1;
	jvm = start_jvm();
	ck_assert_int_eq(target_open(jvm, TARGET_FDS, &t, &e), 0);
	ck_assert_msg(deploy_memfd_start(&t, &b, DEPLOY_GLIBC, 3000, &h, NULL, &e) == 0,
		      "%s", e.msg);
	/* the JVM's open of the agent works */
	snprintf(fdname, sizeof(fdname), "fd/%d", h.fd);
	ck_assert_int_eq(read_as_jvm(h.nspid, fdname, false, buf, sizeof(buf)),
			 (ssize_t)sizeof(agent) - 1);
	ck_assert_str_eq(buf, agent);
	/* and what the JVM's uid sees of the holder is not jsym */
	n = read_as_jvm(h.nspid, "exe", true, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	ck_assert_msg(strncmp(buf, "/memfd:jsym-memfd", 17) == 0, "holder's exe: %s", buf);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	n = read_as_jvm(h.nspid, "maps", false, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	ck_assert_msg(!strstr(buf, self), "jsym's image is mapped in the holder:\n%s", buf);
	n = read_as_jvm(h.nspid, "environ", false, buf, sizeof(buf));
	ck_assert_int_le(n, 0);
	close(h.ctl);
	waitpid(h.pid, NULL, 0);
	target_close(&t);
	kill(jvm, SIGKILL);
	waitpid(jvm, NULL, 0);
}
END_TEST

Suite *memfd_suite(void)
{
	Suite *s = suite_create("memfd");
	TCase *tc = tcase_create("helper");

	check_add_if(tc, geteuid() == 0, "memfd", holder_shows_nothing_of_jsym,
		     "needs root (the helper takes the JVM's ids)");
	suite_add_tcase(s, tc);
	return s;
}
