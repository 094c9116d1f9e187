/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_regular.c - files a target may have planted anything at are opened
 * only once they are known to be plain files (regular.h, issue 17 row 1):
 * a device node, a FIFO or a procfs file at the path is never opened (fdio,
 * inroot, OpenJ9's common-dir files, a non-JVM's argfiles), which
 * inotify's IN_OPEN (an event of every real open, none for O_PATH) shows.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_planted.h"
#include "check_tmp.h"
#include "fdio.h"
#include "inroot.h"
#include "openj9.h"
#include "openj9_int.h"
#include "regular.h"
#include "target.h"

Suite *regular_suite(void); /* the runner finds the definition below */

static char dir[64];

static void make_dir(void)
{
	tmp_dir(dir, sizeof(dir), "regular");
}

/* dir/name */
static const char *at(const char *name)
{
	static char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static int rename_to(const char *from, const char *to)
{
	char a[128];

	snprintf(a, sizeof(a), "%s", at(from));
	return rename(a, at(to));
}

static void refused_unopened(bool device)
{
	char *buf = NULL;
	int ifd;

	if (!planted_node(at("node"), device))
		return;         /* no CAP_MKNOD: the FIFO case still ran */
	ifd = planted_watch(at("node"));
	int d = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	ck_assert_int_eq(fdio_read_file_at(d, "node", O_NONBLOCK, 1, 4096, &buf), -EINVAL);
	ck_assert_ptr_null(buf);
	ck_assert_int_eq(reg_open_at(d, "node", O_RDONLY), -EINVAL);
	/* inside a container's root (target.c's argfiles and release,
	 * jsym resolve's perf map and journal) */
	ck_assert_int_eq(inroot_open_regular(d, "/node", O_RDONLY), -EINVAL);
	/* OpenJ9's files in its common dir (_notifier here; _attachlock and
	 * attachNotificationSync go through reg_open_at the same way) */
	ck_assert_int_eq(rename_to("node", "_notifier"), 0);
	key_t key;
	ck_assert_int_eq(openj9_notifier_key(d, &key), -EINVAL);
	ck_assert_msg(!planted_opened(ifd), "the planted %s was opened", device ? "device" : "FIFO");
	close(d);
}

/* A FIFO (anyone can make one) and a device node (root) at a name read
 * with regular_only: refused, and never opened (main opened them, then
 * looked at the type). */
START_TEST(planted_fifo_not_opened)
{
	make_dir();
	refused_unopened(false);
}
END_TEST

START_TEST(planted_device_not_opened)
{
	make_dir();
	if (geteuid() != 0) {
			fprintf(stderr, "skip: planted_device_not_opened needs root (mknod)\n");
		return;
	}
	refused_unopened(true);
}
END_TEST

/* /proc/kmsg is a "regular" file to fstat: a file system of kernel
 * interfaces is refused as a whole (harmless stand-in: /proc/self/status). */
START_TEST(procfs_file_refused)
{
	int d = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char *buf = NULL;

	ck_assert_int_ge(d, 0);
	ck_assert_int_eq(fdio_read_file_at(d, "status", 0, 1, 4096, &buf), -EINVAL);
	ck_assert_int_eq(reg_open_at(d, "status", O_RDONLY), -EINVAL);
	close(d);
}
END_TEST

/* A plain file is read, through the reopened O_PATH fd. */
START_TEST(plain_file_read)
{
	char path[128], *buf = NULL;
	int fd, d;

	make_dir();
	snprintf(path, sizeof(path), "%s/plain", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "-Xrs\n", 5), 5);
	close(fd);
	d = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(fdio_read_file_at(d, "plain", 0, 1, 4096, &buf), 5);
	ck_assert_str_eq(buf, "-Xrs\n");
	free(buf);
	/* a forked child has its own fd table: the parent's pin is not used */
	ck_assert_int_eq(reg_pin_self(), 0);
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int cfd = reg_open_at(d, "plain", O_RDONLY);
		char c;

		_exit(cfd >= 0 && read(cfd, &c, 1) == 1 && c == '-' ? 0 : 1);
	}
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(d);
}
END_TEST

/* jsym list and attach --all open every process: a process that is not a
 * JVM, with `@DIR/node` in its argv, must not get node opened (main read
 * every @argfile of every process, after opening it). */
START_TEST(non_jvm_argfile_not_opened)
{
	char arg[128];
	struct target t;
	struct err_text e = { "" };
	pid_t pid;
	int ifd, in[2];

	make_dir();
	ck_assert(planted_node(at("node"), false));
	ifd = planted_watch(at("node"));
	snprintf(arg, sizeof(arg), "@%s/node", dir);
	/* `sh -s @DIR/node`: a shell waiting for commands on a pipe we hold,
	 * with the @word where a JVM's launcher would take an argfile */
	ck_assert_int_eq(pipe(in), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(in[0], STDIN_FILENO);
		close(in[1]);
		execl("/bin/sh", "sh", "-s", arg, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	for (int i = 0; i < 200; i++) {     /* until the exec shows */
		char cl[256];
		FILE *f;
		size_t n = 0;

		snprintf(cl, sizeof(cl), "/proc/%d/cmdline", (int)pid);
		f = fopen(cl, "r");
		if (f) {
			n = fread(cl, 1, sizeof(cl), f);
			fclose(f);
		}
		if (n > 3 && memcmp(cl, "sh", 3) == 0)
			break;
		usleep(5000);
	}
	ck_assert_int_eq(target_open(pid, 0, &t, &e), 0);
	ck_assert_int_eq(t.opts.n_argfiles, 1);
	ck_assert_msg(!planted_opened(ifd), "the argfile of a non-JVM was opened");
	target_close(&t);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(in[1]);
}
END_TEST

Suite *regular_suite(void)
{
	Suite *s = suite_create("regular");
	TCase *tc = tcase_create("planted");

	tcase_add_unchecked_fixture(tc, tmp_setup, tmp_teardown);
	tcase_add_test(tc, planted_fifo_not_opened);
	tcase_add_test(tc, planted_device_not_opened);
	tcase_add_test(tc, procfs_file_refused);
	tcase_add_test(tc, plain_file_read);
	tcase_add_test(tc, non_jvm_argfile_not_opened);
	suite_add_tcase(s, tc);
	return s;
}
