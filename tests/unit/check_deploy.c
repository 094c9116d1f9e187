/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_deploy.c - attach/deploy without a JVM: finding the builds, and
 * placing them in a scratch "container root" owned by the caller, with
 * things planted where jsym writes.
 */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check_skip.h"
#include "check_tmp.h"
#include "deploy.h"
#include "deploy_int.h"
#include "jsym_arch.h"
#include "target.h"

extern Suite *deploy_suite(void); /* listed in the runner by tests/tests.mk */

static char builds[64], root[64];

static void put(const char *dir, const char *rel, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* Fake builds: DIR/{glibc,musl}/{libjsym-agent.so,jsym-probe}. */
static void make_builds(void)
{
	char p[128];

	tmp_dir(builds, sizeof(builds), "deploy-b");
	for (int l = 0; l < DEPLOY_NLIBC; l++) {
		snprintf(p, sizeof(p), "%s/%s", builds, deploy_libc_name(l));
		ck_assert_int_eq(mkdir(p, 0755), 0);
		snprintf(p, sizeof(p), "%s/%s", deploy_libc_name(l), DEPLOY_AGENT_NAME);
		put(builds, p, l ? "musl agent bytes" : "glibc agent bytes");
		snprintf(p, sizeof(p), "%s/%s", deploy_libc_name(l), DEPLOY_PROBE_NAME);
		put(builds, p, l ? "musl probe" : "glibc probe");
	}
}

/* A target whose root is a scratch dir with a sticky /tmp, ids our own. */
static void make_target(struct target *t)
{
	char p[128];

	memset(t, 0, sizeof(*t));
	tmp_dir(root, sizeof(root), "deploy-r");
	snprintf(p, sizeof(p), "%s/tmp", root);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	ck_assert_int_eq(chmod(p, 01777), 0);
	t->root_fd = open(root, O_PATH | O_DIRECTORY);
	t->proc_fd = -1;         /* its mounts are ours (confine_open) */
	ck_assert_int_ge(t->root_fd, 0);
	t->st.uid[1] = geteuid();
	t->st.gid[1] = getegid();
	t->starttime = 4242;
}

static int place(struct target *t, struct deploy_builds *b,
		 struct deploy_result *r, struct err_text *e)
{
	struct deploy_opts o = { .timeout_ms = 1000 };

	memset(r, 0, sizeof(*r));
	e->msg[0] = '\0';
	return deploy_place(t, b, &o, r, NULL, e);
}

START_TEST(find_builds_and_hash)
{
	struct deploy_builds b, b2;
	struct err_text e = { "" };

	make_builds();
	ck_assert_int_eq(deploy_find_builds(builds, &b, &e), 0);
	ck_assert_int_eq(deploy_builds_read(&b, &e), 0);
	ck_assert_uint_eq(b.agent[DEPLOY_MUSL].size, strlen("musl agent bytes"));
	ck_assert_uint_eq(strlen(b.hash), 16);
	ck_assert_int_eq(deploy_find_builds(builds, &b2, &e), 0);
	ck_assert_int_eq(deploy_builds_read(&b2, &e), 0);
	ck_assert_str_eq(b.hash, b2.hash);
	deploy_builds_free(&b2);
	/* one byte more in one file: another hash, another directory name */
	put(builds, "musl/jsym-probe", "musl probe!");
	ck_assert_int_eq(deploy_find_builds(builds, &b2, &e), 0);
	ck_assert_int_eq(deploy_builds_read(&b2, &e), 0);
	ck_assert_str_ne(b.hash, b2.hash);
	deploy_builds_free(&b);
	deploy_builds_free(&b2);
	/* a missing file: -ENOENT naming both places looked in */
	put(builds, "musl/jsym-probe", "");
	ck_assert_int_eq(unlink(strcat(strcpy((char[128]){0}, builds), "/glibc/jsym-probe")), 0);
	ck_assert_int_eq(deploy_find_builds(builds, &b, &e), -ENOENT);
	ck_assert_ptr_nonnull(strstr(e.msg, "{glibc,musl}/"));
	ck_assert_ptr_nonnull(strstr(e.msg, "{glibc-build" JSYM_TREE_SUFFIX
					 ",musl-build" JSYM_TREE_SUFFIX "}/"));
	ck_assert_ptr_nonnull(strstr(e.msg, "--agent-dir"));
}
END_TEST

START_TEST(place_copies_then_reuses)
{
	struct deploy_builds b;
	struct deploy_result r;
	struct err_text e;
	struct target t;
	char p[256], name[64], buf[64];
	struct stat st, st2;
	FILE *f;

	make_builds();
	make_target(&t);
	ck_assert_int_eq(deploy_find_builds(builds, &b, &e), 0);
	ck_assert_int_eq(deploy_builds_read(&b, &e), 0);
	ck_assert_int_eq(place(&t, &b, &r, &e), 0);
	deploy_dir_name(&t, &b, name, sizeof(name));
	snprintf(p, sizeof(p), "/tmp/%s", name);
	ck_assert_str_eq(r.dir, p);
	ck_assert(r.dir_created);
	snprintf(p, sizeof(p), "%s/tmp/%s/musl/%s", root, name, DEPLOY_AGENT_NAME);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0755);
	ck_assert_uint_eq(st.st_nlink, 1);
	f = fopen(p, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	ck_assert_str_eq(buf, "musl agent bytes");
	/* again: the same inode is kept (never replaced under the JVM) */
	ck_assert_int_eq(place(&t, &b, &r, &e), 0);
	ck_assert(!r.dir_created);
	ck_assert_int_eq(stat(p, &st2), 0);
	ck_assert_uint_eq(st.st_ino, st2.st_ino);
	deploy_builds_free(&b);
	close(t.root_fd);
}
END_TEST

/* plant(kind) at glibc/libjsym-agent.so, then place: refused, planted
 * thing unchanged. */
static void refused_with(int kind, const char *words)
{
	struct deploy_builds b;
	struct deploy_result r;
	struct err_text e;
	struct target t;
	char name[64], d[160], p[320], other[160];
	struct stat st;

	make_builds();
	make_target(&t);
	ck_assert_int_eq(deploy_find_builds(builds, &b, &e), 0);
	ck_assert_int_eq(deploy_builds_read(&b, &e), 0);
	deploy_dir_name(&t, &b, name, sizeof(name));
	snprintf(d, sizeof(d), "%s/tmp/%s", root, name);
	ck_assert_int_eq(mkdir(d, 0755), 0);
	snprintf(p, sizeof(p), "%s/glibc", d);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/glibc/%s", d, DEPLOY_AGENT_NAME);
	snprintf(other, sizeof(other), "%s/outside", builds);
	put(builds, "outside", "do not touch");
	switch (kind) {
	case 0: ck_assert_int_eq(mkfifo(p, 0644), 0); break;
	case 1: ck_assert_int_eq(link(other, p), 0); break;
	case 2: ck_assert_int_eq(symlink(other, p), 0); break;
	case 3: put(d, "glibc/" DEPLOY_AGENT_NAME, "not the build"); break;
	}
	ck_assert_int_lt(place(&t, &b, &r, &e), 0);
	ck_assert_msg(strstr(e.msg, words) != NULL, "message: %s", e.msg);
	ck_assert_int_eq(lstat(p, &st), 0);     /* still there, as planted */
	ck_assert_int_eq(stat(other, &st), 0);
	ck_assert_int_eq(st.st_size, (off_t)strlen("do not touch"));
	deploy_builds_free(&b);
	close(t.root_fd);
}

START_TEST(place_refuses_fifo) { refused_with(0, "is a FIFO"); }
END_TEST
START_TEST(place_refuses_hard_link) { refused_with(1, "2 hard links"); }
END_TEST
START_TEST(place_refuses_symlink) { refused_with(2, "is a symlink"); }
END_TEST
START_TEST(place_refuses_other_bytes) { refused_with(3, "differs from jsym's build"); }
END_TEST

START_TEST(place_refuses_symlinked_tmpdir)
{
	struct deploy_builds b;
	struct deploy_result r;
	struct err_text e;
	struct target t;
	char p[128];

	make_builds();
	make_target(&t);
	ck_assert_int_eq(deploy_find_builds(builds, &b, &e), 0);
	ck_assert_int_eq(deploy_builds_read(&b, &e), 0);
	snprintf(p, sizeof(p), "%s/evil", root);
	ck_assert_int_eq(symlink(builds, p), 0);
	strcpy(t.opts.tmpdir, "/evil");
	ck_assert_int_lt(place(&t, &b, &r, &e), 0);
	ck_assert_msg(strstr(e.msg, "not a directory") != NULL, "message: %s", e.msg);
	/* a TMPDIR with a blank is not used at all: /tmp instead */
	strcpy(t.opts.tmpdir, "/a b");
	ck_assert_str_eq(deploy_tmpdir(&t), "/tmp");
	deploy_builds_free(&b);
	close(t.root_fd);
}
END_TEST

/* Does root/tmp/dir/rel exist? */
static bool exists_in_tmp(const char *dir, const char *rel)
{
	char p[320];
	struct stat st;

	snprintf(p, sizeof(p), "%s/tmp/%s/%s", root, dir, rel);
	return lstat(p, &st) == 0;
}

/*
 * Copies of two jsym versions for one JVM (another build: another hash):
 * the clean after a failed attach removes this version's only; detach
 * (all_versions) the other's too, but keeps the file the JVM maps (named
 * in its maps without the doubled slash a TMPDIR of "/tmp/" gives), a
 * hard link planted at jsym's name, and another JVM's directory.
 */
START_TEST(clean_every_version_keeps_the_mapped)
{
	struct deploy_builds a, b;
	struct deploy_result r;
	struct err_text e;
	struct target t;
	char na[64], nb[64], other[64], p[320], kept[256];

	make_builds();
	make_target(&t);
	strcpy(t.opts.tmpdir, "/tmp/");
	ck_assert_int_eq(deploy_find_builds(builds, &a, &e), 0);
	ck_assert_int_eq(deploy_builds_read(&a, &e), 0);
	ck_assert_int_eq(place(&t, &a, &r, &e), 0);
	put(builds, "musl/jsym-probe", "musl probe, next version");
	ck_assert_int_eq(deploy_find_builds(builds, &b, &e), 0);
	ck_assert_int_eq(deploy_builds_read(&b, &e), 0);
	ck_assert_int_eq(place(&t, &b, &r, &e), 0);
	deploy_dir_name(&t, &a, na, sizeof(na));
	deploy_dir_name(&t, &b, nb, sizeof(nb));
	ck_assert_str_ne(na, nb);
	/* a hard link at one of b's names; another JVM's directory */
	snprintf(p, sizeof(p), "%s/tmp/%s/musl/%s", root, nb, DEPLOY_PROBE_NAME);
	ck_assert_int_eq(unlink(p), 0);
	put(builds, "outside", "do not touch");
	ck_assert_int_eq(link(strcat(strcpy((char[160]){0}, builds), "/outside"), p), 0);
	t.st.nspid = 7;
	deploy_dir_name(&t, &a, other, sizeof(other));
	ck_assert_int_eq(place(&t, &a, &r, &e), 0);
	t.st.nspid = 0;
	snprintf(t.maps.agent, sizeof(t.maps.agent), "/tmp/%s/glibc/%s", na, DEPLOY_AGENT_NAME);

	ck_assert_int_eq(deploy_clean(&t, &b, false, NULL, 0, &e), 3);
	ck_assert(exists_in_tmp(nb, "musl/" DEPLOY_PROBE_NAME));        /* the link */
	ck_assert(exists_in_tmp(na, "musl/" DEPLOY_PROBE_NAME));        /* not this version's */
	ck_assert_int_eq(deploy_clean(&t, &b, true, kept, sizeof(kept), &e), 3);
	ck_assert(exists_in_tmp(na, "glibc/" DEPLOY_AGENT_NAME));
	ck_assert(!exists_in_tmp(na, "musl/" DEPLOY_AGENT_NAME));
	ck_assert(!exists_in_tmp(na, "glibc/" DEPLOY_PROBE_NAME));
	snprintf(p, sizeof(p), "/tmp//%s/glibc/%s", na, DEPLOY_AGENT_NAME);
	ck_assert_str_eq(kept, p);
	ck_assert(exists_in_tmp(other, "glibc/" DEPLOY_AGENT_NAME));
	deploy_builds_free(&a);
	deploy_builds_free(&b);
	close(t.root_fd);
}
END_TEST

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* Root only: `flock /` by uid 65534 inside a container does not stop an
 * attach (issue 24 row 6: it made jsym give up, "another jsym has been
 * attaching this JVM's container"); the container's / is waited for a
 * second at most.  Two jsyms still take turns: the second, while the
 * first holds the lock, gives up at its timeout. */
START_TEST(lock_ignores_a_flock_of_the_containers_root)
{
	struct err_text e = { "" }, e2 = { "" };
	int ready[2], fds[2], fds2[2], rc, rc2;
	char c, lockfile[160];
	struct target t;
	struct stat st;
	long t0, took;
	pid_t child;

	make_target(&t);
	t.ns[TNS_MNT].known = t.ns[TNS_MNT].differs = true;
	ck_assert_int_eq(chmod(root, 0755), 0);
	ck_assert_int_eq(pipe(ready), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		int fd;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (setgid(65534) || setuid(65534))
			_exit(1);
		fd = openat(t.root_fd, ".", O_RDONLY | O_DIRECTORY);
		if (fd >= 0 && flock(fd, LOCK_EX) == 0 && write(ready[1], "r", 1) == 1)
			pause();
		_exit(1);
	}
	close(ready[1]);
	ck_assert_int_eq(read(ready[0], &c, 1), 1);

	t0 = now_ms();
	rc = deploy_lock_jvm(&t, 3000, fds, NULL, &e);
	took = now_ms() - t0;
	rc2 = deploy_lock_jvm(&t, 200, fds2, NULL, &e2);
	for (int i = 0; i < 2; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		if (rc2 == 0 && fds2[i] >= 0)
			close(fds2[i]);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	ck_assert_int_eq(fstat(t.root_fd, &st), 0);
	snprintf(lockfile, sizeof(lockfile), "/run/jsym/root-%llx-%llx.lock",
		 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	unlink(lockfile);
	close(t.root_fd);

	ck_assert_msg(rc == 0, "a container's uid 65534 holding a flock of its / stopped "
		      "the attach: %s", e.msg);
	ck_assert_msg(took < 2500, "the lock took %ld ms", took);
	ck_assert_int_ge(fds[0], 0);
	ck_assert_int_eq(fds[1], -1);
	ck_assert_int_eq(rc2, -ETIMEDOUT);
	ck_assert_msg(strstr(e2.msg, "another jsym has been attaching"), "%s", e2.msg);
}
END_TEST

/* Review of row 10: a process of another user namespace whose uid_map
 * covers the upper half of ours could, with CAP_SETUID there, take any uid
 * of it and signal the reaper.  With such a namespace visible (0 inside
 * is 2^31-1 outside, 2^31-1 of them: podman's --userns=auto range) no
 * random pick is free, and the old 65534 is used. */
START_TEST(reaper_uid_not_in_another_namespace_map)
{
	int ready[2], go[2];
	char map[64], path[64], c;
	pid_t child;
	FILE *f;

	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(pipe(go), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		/* a multithreaded process (qemu-user runs the aarch64 suites)
		 * cannot unshare a user namespace: say so, and stop */
		c = unshare(CLONE_NEWUSER) == 0 ? 'u' : 'x';
		if (write(ready[1], &c, 1) != 1 || c != 'u')
			_exit(1);
		(void)!read(go[0], &c, 1);
		_exit(0);
	}
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	if (c != 'u') {
		printf("reaper_uid_not_in_another_namespace_map: skipped (cannot "
		       "unshare a user namespace here)\n");
		waitpid(child, NULL, 0);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)child);
	snprintf(map, sizeof(map), "0 2147483647 2147483647\n");
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(map, f) >= 0 && fflush(f) == 0, 1);
	fclose(f);
	ck_assert_uint_eq(deploy_reaper_uid(0), 65534);
	ck_assert_uint_eq(deploy_reaper_uid(65534), 65533);
	ck_assert_int_eq(write(go[1], "g", 1), 1);
	waitpid(child, NULL, 0);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
}
END_TEST

/* Issue 24 row 10: the reaper's uid is no visible process's, so a process
 * of the pod's nobody (65534, present here) gets EPERM when it signals a
 * process of that uid; a second pick differs (random). */
START_TEST(reaper_uid_is_nobodys_and_no_ones)
{
	int ready[2], rc_pipe[2];
	pid_t nobody, reaper, killer;
	uid_t u1, u2;
	char c;
	int st, err = 0;

	ck_assert_int_eq(pipe(ready), 0);
	nobody = fork();
	ck_assert_int_ge(nobody, 0);
	if (nobody == 0) {
		if (setresuid(65534, 65534, 65534) == 0 && write(ready[1], "r", 1) == 1)
			pause();
		_exit(1);
	}
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	u1 = deploy_reaper_uid(0);
	u2 = deploy_reaper_uid(0);
	ck_assert_msg(u1 != 65534 && u1 != 0 && u1 != 65533, "picked %u", (unsigned)u1);
	ck_assert_msg(u1 != u2, "two picks gave the same uid %u", (unsigned)u1);
	{
		char map[256] = "";
		FILE *f = fopen("/proc/self/uid_map", "r");

		if (f) {
			(void)!fread(map, 1, sizeof(map) - 1, f);
			fclose(f);
		}
		if (strstr(map, "4294967295"))  /* the initial user namespace */
			ck_assert_msg(u1 >= 0x80000000u && u2 >= 0x80000000u,
				      "%u, %u: not from the upper half", (unsigned)u1,
				      (unsigned)u2);
	}

	/* a stand-in reaper of that uid, and nobody signalling it */
	reaper = fork();
	ck_assert_int_ge(reaper, 0);
	if (reaper == 0) {
		if (setresuid(u1, (uid_t)-1, u1) == 0 && write(ready[1], "r", 1) == 1)
			pause();
		_exit(1);
	}
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	ck_assert_int_eq(pipe(rc_pipe), 0);
	killer = fork();
	ck_assert_int_ge(killer, 0);
	if (killer == 0) {
		int e = 0;

		if (setresuid(65534, 65534, 65534) != 0)
			_exit(1);
		if (kill(reaper, SIGKILL) != 0)
			e = errno;
		(void)!write(rc_pipe[1], &e, sizeof(e));
		_exit(0);
	}
	ck_assert_int_eq(read(rc_pipe[0], &err, sizeof(err)), (ssize_t)sizeof(err));
	waitpid(killer, &st, 0);
	ck_assert_int_eq(waitpid(reaper, &st, WNOHANG), 0);  /* still there */
	kill(reaper, SIGKILL);
	kill(nobody, SIGKILL);
	waitpid(reaper, &st, 0);
	waitpid(nobody, &st, 0);
	close(ready[0]);
	close(ready[1]);
	close(rc_pipe[0]);
	close(rc_pipe[1]);
	ck_assert_msg(err == EPERM, "uid 65534 signalling the reaper's uid %u: %s",
		      (unsigned)u1, err ? strerror(err) : "it succeeded");
}
END_TEST

Suite *deploy_suite(void)
{
	Suite *s = suite_create("deploy");
	TCase *tc = tcase_create("deploy");

	tcase_add_unchecked_fixture(tc, tmp_setup, tmp_teardown);
	tcase_add_test(tc, find_builds_and_hash);
	tcase_add_test(tc, place_copies_then_reuses);
	tcase_add_test(tc, place_refuses_fifo);
	tcase_add_test(tc, place_refuses_hard_link);
	tcase_add_test(tc, place_refuses_symlink);
	tcase_add_test(tc, place_refuses_other_bytes);
	tcase_add_test(tc, place_refuses_symlinked_tmpdir);
	tcase_add_test(tc, clean_every_version_keeps_the_mapped);
	suite_add_tcase(s, tc);
	if (geteuid() == 0) {
		TCase *root_tc = tcase_create("deploy-root");

		tcase_add_unchecked_fixture(root_tc, tmp_setup, tmp_teardown);
		tcase_add_test(root_tc, lock_ignores_a_flock_of_the_containers_root);
		tcase_add_test(root_tc, reaper_uid_is_nobodys_and_no_ones);
		tcase_add_test(root_tc, reaper_uid_not_in_another_namespace_map);
		suite_add_tcase(s, root_tc);
	} else {
		check_skip("deploy", lock_ignores_a_flock_of_the_containers_root, "needs root");
		check_skip("deploy", reaper_uid_is_nobodys_and_no_ones, "needs root");
		check_skip("deploy", reaper_uid_not_in_another_namespace_map, "needs root");
	}
	return s;
}
