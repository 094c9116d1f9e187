/* SPDX-License-Identifier: Apache-2.0 */
/* check_fdio.c - attach/base/fdio.c: write all (common/wholeio.c, the agent's
 * write_all too), read small files, lock waits. */
#include <errno.h>
#include <check.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bbuf.h"
#include "base.h"
#include "confine.h"
#include "wholeio.h"
#include "wholeread.h"

extern Suite *fdio_suite(void); /* listed in the runner by tests/tests.mk */

static char tmpdir[] = "/tmp/check_fdio.XXXXXX";

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
	static const char *const names[] = { "f", "empty", "fifo", "link", "lock0", "lock1" };
	char path[128];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, names[i]);
		unlink(path);
	}
	rmdir(tmpdir);
}

static void put_file(const char *name, const char *s, size_t n)
{
	int fd = openat(AT_FDCWD, name, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fdio_write_all(fd, s, n, 0), 0);
	close(fd);
}

START_TEST(write_all_pipe_and_socket)
{
	char big[200000], got[16];
	int p[2], sv[2];
	pid_t child;

	memset(big, 'x', sizeof(big));
	ck_assert_int_eq(pipe(p), 0);
	/* more than a pipe holds: a child drains it so short writes happen */
	child = fork();
	if (child == 0) {
		char buf[4096];
		size_t total = 0;
		ssize_t n;

		close(p[1]);
		while ((n = read(p[0], buf, sizeof(buf))) > 0)
			total += (size_t)n;
		_exit(total == sizeof(big) ? 0 : 1);
	}
	close(p[0]);
	ck_assert_int_eq(fdio_write_all(p[1], big, sizeof(big), 0), 0);
	close(p[1]);
	ck_assert_int_eq(waitpid(child, &child, 0) > 0 && WIFEXITED(child) ?
			 WEXITSTATUS(child) : -1, 0);

	/* a socket whose peer is gone: -EPIPE, no SIGPIPE (it would kill us) */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ck_assert_int_eq(fdio_write_all(sv[0], "hi", 3, 0), 0);
	ck_assert_int_eq(read(sv[1], got, sizeof(got)), 3);
	ck_assert_str_eq(got, "hi");
	close(sv[1]);
	ck_assert_int_eq(fdio_write_all(sv[0], "hi", 2, 0), -EPIPE);
	close(sv[0]);
}
END_TEST

/* The agent's write_all is the same loop (common/wholeio.c): into a full
 * non-blocking pipe it gives up after its 100 ms wait instead of hanging
 * the flush thread, and it never tries send() on a file. */
START_TEST(agent_write_all_gives_up_on_a_full_pipe)
{
	static char big[1 << 20];
	int p[2];
	long t0;

	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	t0 = clock_ms();
	ck_assert_int_eq(write_all(p[1], big, sizeof(big)), -ETIMEDOUT);
	ck_assert_int_ge(clock_ms() - t0, 90);
	ck_assert_int_lt(clock_ms() - t0, 2000);
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(write_all_full_nonblocking_times_out)
{
	char big[1 << 20];
	int sv[2];
	long t0;

	memset(big, 'y', sizeof(big));
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	t0 = clock_ms();
	ck_assert_int_eq(fdio_write_all(sv[0], big, sizeof(big), 50), -ETIMEDOUT);
	ck_assert_int_ge(clock_ms() - t0, 40);
	ck_assert_int_eq(fdio_wait(sv[1], POLLIN, 10), 0);
	ck_assert_int_eq(fdio_wait(sv[0], POLLOUT, 10), -ETIMEDOUT);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(read_all_caps_and_terminates)
{
	char path[128], *buf, *data = malloc(10000);
	ssize_t n;
	int fd;

	for (int i = 0; i < 10000; i++)
		data[i] = (char)('a' + i % 26);
	snprintf(path, sizeof(path), "%s/f", tmpdir);
	put_file(path, data, 10000);
	fd = open(path, O_RDONLY);
	n = fdio_read_all(fd, 1 << 20, &buf);
	ck_assert_int_eq(n, 10000);
	ck_assert_int_eq(memcmp(buf, data, 10000), 0);
	ck_assert_int_eq(buf[n], '\0');
	free(buf);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	n = fdio_read_all(fd, 5000, &buf);         /* cut at max */
	ck_assert_int_eq(n, 5000);
	ck_assert_int_eq(buf[n], '\0');
	free(buf);
	close(fd);
	ck_assert_int_eq(confine_read(-1, AT_FDCWD, path, 100, 1000, &buf, NULL), 100);
	free(buf);
	snprintf(path, sizeof(path), "%s/empty", tmpdir);
	put_file(path, "", 0);
	ck_assert_int_eq(confine_read(-1, AT_FDCWD, path, 100, 1000, &buf, NULL), 0);
	ck_assert_str_eq(buf, "");
	free(buf);
	free(data);
}
END_TEST

/*
 * The one read loop (common/wholeio.h): a full buffer and EOF are told
 * apart, and a pipe's deadline ends the wait even on a blocking pipe,
 * whose read alone would wait for the writer forever.
 */
START_TEST(whole_read_full_eof_and_deadline)
{
	char buf[8], *out = (char *)1;
	size_t len = 0;
	long t0;
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write(p[1], "0123456789", 10), 10);
	ck_assert_int_eq(whole_read(p[0], buf, sizeof(buf), &len, 0), 0);     /* full */
	ck_assert_int_eq(len, 8);
	ck_assert_int_eq(memcmp(buf, "01234567", 8), 0);
	len = 0;
	t0 = whole_clock_ms();
	/* two bytes wait there; then nothing comes before the deadline */
	ck_assert_int_eq(whole_read(p[0], buf, sizeof(buf), &len, t0 + 50), -ETIMEDOUT);
	ck_assert_int_eq(len, 2);
	ck_assert_int_ge(whole_clock_ms() - t0, 50);
	t0 = whole_clock_ms();
	ck_assert_int_eq(whole_read_alloc(p[0], 100, 50, &out), -ETIMEDOUT);
	ck_assert_ptr_null(out);
	ck_assert_int_ge(whole_clock_ms() - t0, 50);
	ck_assert_int_eq(fdio_read_buf(p[0], buf, sizeof(buf), clock_ms() + 20), -ETIMEDOUT);
	ck_assert_int_eq(write(p[1], "xy", 2), 2);
	ck_assert_int_eq(fdio_read_buf(p[0], buf, 2, clock_ms() + 1000), 2);  /* full */
	ck_assert_int_eq(memcmp(buf, "xy", 2), 0);
	ck_assert_int_eq(write(p[1], "abc", 3), 3);
	close(p[1]);
	ck_assert_int_eq(whole_read_alloc(p[0], 100, 1000, &out), 3);           /* EOF */
	ck_assert_str_eq(out, "abc");
	free(out);
	len = 0;
	ck_assert_int_eq(whole_read(p[0], buf, sizeof(buf), &len, 0), 1);
	ck_assert_int_eq(len, 0);
	close(p[0]);
}
END_TEST

START_TEST(read_refuses_what_is_not_a_file)
{
	char path[128], link[128], *buf = (char *)1;

	snprintf(path, sizeof(path), "%s/fifo", tmpdir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	/* O_NONBLOCK keeps the open from waiting for a writer */
	ck_assert_int_eq(confine_read(-1, AT_FDCWD, path, 100, 1000, &buf, NULL), -EINVAL);
	ck_assert_ptr_null(buf);
	snprintf(link, sizeof(link), "%s/link", tmpdir);
	ck_assert_int_eq(symlink("/etc/hostname", link), 0);
	ck_assert_int_eq(confine_read(-1, AT_FDCWD, link, 100, 1000, &buf, NULL), -ELOOP);
	ck_assert_int_eq(confine_read(-1, AT_FDCWD, "/nonexistent/x", 100, 1000, &buf, NULL),
			 -ENOENT);
	ck_assert_int_eq(confine_read_fd(-1, 100, 0, &buf), -EBADF);
}
END_TEST

/* A child takes the lock, says so, and holds it for hold_ms. */
static pid_t hold_lock(const char *path, enum fdio_lock kind, int hold_ms)
{
	int p[2];
	char c;
	pid_t child;

	ck_assert_int_eq(pipe(p), 0);
	child = fork();
	if (child == 0) {
		int fd = open(path, O_RDWR);

		if (fd < 0 || fdio_lock_until(fd, kind, clock_ms() + 1000) != 0)
			_exit(1);
		if (write(p[1], "L", 1) != 1)
			_exit(1);
		poll(NULL, 0, hold_ms);
		_exit(0);
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	close(p[0]);
	return child;
}

static void lock_waits(enum fdio_lock kind)
{
	char path[128];
	pid_t child;
	long t0;
	int fd, st;

	snprintf(path, sizeof(path), "%s/lock%d", tmpdir, (int)kind);
	put_file(path, "", 0);
	fd = open(path, O_RDWR);
	child = hold_lock(path, kind, 300);
	t0 = clock_ms();
	ck_assert_int_eq(fdio_lock_until(fd, kind, clock_ms() + 50), -ETIMEDOUT);
	ck_assert_int_ge(clock_ms() - t0, 40);
	/* the holder exits: the lock is ours within the deadline */
	ck_assert_int_eq(fdio_lock_until(fd, kind, clock_ms() + 5000), 0);
	waitpid(child, &st, 0);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(fd);
	ck_assert_int_eq(fdio_lock_until(-1, kind, clock_ms() + 50), -EBADF);
}

START_TEST(lock_flock_waits_then_times_out)
{
	lock_waits(FDIO_FLOCK);
}
END_TEST

START_TEST(lock_record_waits_then_times_out)
{
	lock_waits(FDIO_RECORD);
}
END_TEST

Suite *fdio_suite(void)
{
	Suite *s = suite_create("fdio");
	TCase *tc = tcase_create("fdio");

	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_test(tc, write_all_pipe_and_socket);
	tcase_add_test(tc, write_all_full_nonblocking_times_out);
	tcase_add_test(tc, agent_write_all_gives_up_on_a_full_pipe);
	tcase_add_test(tc, read_all_caps_and_terminates);
	tcase_add_test(tc, whole_read_full_eof_and_deadline);
	tcase_add_test(tc, read_refuses_what_is_not_a_file);
	tcase_add_test(tc, lock_flock_waits_then_times_out);
	tcase_add_test(tc, lock_record_waits_then_times_out);
	suite_add_tcase(s, tc);
	return s;
}
