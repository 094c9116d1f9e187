/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_cgroup.c - attach/deploy/cgroup.c as root: the attach worker joins
 * a JVM's memory cgroup for the writing of its copies and then really goes
 * back to where it was (issue 24 row 4: it used to read /proc/self/cgroup
 * after the move and "return" to the JVM's cgroup).
 *
 * The "JVM" is a sleeping child moved into a scratch memory cgroup made at
 * the top of jsym's memory hierarchy (v1's memory controller, else the
 * unified one); the runner's fixture removes it even when a test failed.
 */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check_skip.h"
#include "deploy_int.h"
#include "target.h"

extern Suite *cgroup_suite(void); /* listed in the runner by tests/tests.mk */

static char mnt[64], scratch[128];

/* The path of pid's memory cgroup (v1's `memory` line, else the unified
 * "0::" line) into buf; the mount it is below into mnt.  0 or -1. */
static int memory_path(pid_t pid, char *buf, size_t cap)
{
	char file[64], line[512], v2[512] = "";
	FILE *f;
	int found = -1;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	f = fopen(file, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(c1, ":memory:", 8)) {
			snprintf(buf, cap, "%s", c2 + 1);
			snprintf(mnt, sizeof(mnt), "/sys/fs/cgroup/memory");
			found = 0;
		} else if (!strncmp(c1, "::", 2)) {
			snprintf(v2, sizeof(v2), "%s", c2 + 1);
		}
	}
	fclose(f);
	if (found && v2[0]) {
		struct stat st;

		snprintf(buf, cap, "%s", v2);
		snprintf(mnt, sizeof(mnt), "%s", stat("/sys/fs/cgroup/unified/cgroup.procs", &st) ?
			 "/sys/fs/cgroup" : "/sys/fs/cgroup/unified");
		found = 0;
	}
	return found;
}

static void cg_setup(void)
{
	char mine[512];

	scratch[0] = '\0';
	if (memory_path(getpid(), mine, sizeof(mine)))
		return;
	snprintf(scratch, sizeof(scratch), "%s/jsym-check-cg-%d", mnt, (int)getpid());
	if (mkdir(scratch, 0755) != 0)
		scratch[0] = '\0';
}

/* Whether cg_setup can make its scratch cgroup here: root alone is not
 * enough in a container whose cgroup file system is read-only or absent
 * (05-first-run's fresh container). */
static bool can_make_memory_cgroup(void)
{
	cg_setup();
	if (!scratch[0])
		return false;
	(void)rmdir(scratch);
	scratch[0] = '\0';
	return true;
}

/* The forked test's sleeper dies with it (parent-death signal) and may
 * take a moment to leave the cgroup. */
static void cg_teardown(void)
{
	for (int i = 0; scratch[0] && i < 200 && rmdir(scratch) != 0 && errno == EBUSY; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
}

static int join_path(const char *dir, pid_t pid)
{
	char p[640], n[16];
	int fd, len, rc;

	snprintf(p, sizeof(p), "%s/cgroup.procs", dir);
	fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = snprintf(n, sizeof(n), "%d", (int)pid);
	rc = write(fd, n, (size_t)len) == len ? 0 : -1;
	close(fd);
	return rc;
}

START_TEST(join_memory_then_back_where_it_was)
{
	char before[512], jvm[512], during[512], after[512], home[640], p[64];
	int ready[2], back = -1, join_rc, back_rc;
	struct target t;
	pid_t child;
	char c;

	ck_assert_msg(scratch[0], "cannot make a scratch memory cgroup under %s", mnt);
	ck_assert_int_eq(memory_path(getpid(), before, sizeof(before)), 0);
	ck_assert_int_eq(pipe(ready), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (join_path(scratch, 0) == 0 && write(ready[1], "r", 1) == 1)
			pause();
		_exit(1);
	}
	close(ready[1]);
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	ck_assert_int_eq(memory_path(child, jvm, sizeof(jvm)), 0);
	ck_assert_str_ne(jvm, before);

	memset(&t, 0, sizeof(t));
	snprintf(p, sizeof(p), "/proc/%d", (int)child);
	t.proc_fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(t.proc_fd, 0);
	t.pid = child;

	join_rc = deploy_cgroup_join_memory(&t, &back);
	memory_path(getpid(), during, sizeof(during));
	back_rc = deploy_cgroup_return_memory(back);
	memory_path(getpid(), after, sizeof(after));
	/* leave the scratch cgroup whatever happened, so it can go */
	snprintf(home, sizeof(home), "%s%s", mnt, before);
	join_path(home, 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	ck_assert_int_eq(join_rc, 0);
	ck_assert_int_ge(back, 0);
	ck_assert_str_eq(during, jvm);
	ck_assert_int_eq(back_rc, 0);
	ck_assert_msg(!strcmp(after, before), "after the load jsym is in %s, not back in %s",
		      after, before);
}
END_TEST

Suite *cgroup_suite(void)
{
	Suite *s = suite_create("cgroup");

	char why[192];

	if (geteuid() == 0 && !can_make_memory_cgroup()) {
		snprintf(why, sizeof(why), "cannot make a memory cgroup under %s (a "
			 "container without a writable cgroup file system)",
			 mnt[0] ? mnt : "/sys/fs/cgroup");
		check_skip("cgroup", join_memory_then_back_where_it_was, why);
	} else if (geteuid() == 0) {
		TCase *tc = tcase_create("cgroup-root");

		tcase_add_unchecked_fixture(tc, cg_setup, cg_teardown);
		tcase_add_test(tc, join_memory_then_back_where_it_was);
		suite_add_tcase(s, tc);
	} else {
		check_skip("cgroup", join_memory_then_back_where_it_was, "needs root");
	}
	return s;
}
