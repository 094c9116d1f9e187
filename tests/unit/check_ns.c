/* SPDX-License-Identifier: Apache-2.0 */
/* check_ns.c - confined path resolution inside a target root (confine.h). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_tmp.h"
#include "confine.h"
#include "target.h"

extern Suite *ns_suite(void); /* listed in the runner by tests/tests.mk */

static char base[64];
static int root_fd;

/* A fake target root: tmp/ (real dir), lnk -> /etc (absolute symlink),
 * up -> ../.. (relative escape), in/tmp2 -> /tmp (absolute, inside). */
static void setup(void)
{
	char p[128];

	tmp_dir(base, sizeof(base), "ns");
	snprintf(p, sizeof(p), "%s/tmp", base);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/tmp/file", base);
	close(open(p, O_CREAT | O_WRONLY, 0600));
	snprintf(p, sizeof(p), "%s/lnk", base);
	ck_assert_int_eq(symlink("/etc", p), 0);
	snprintf(p, sizeof(p), "%s/up", base);
	ck_assert_int_eq(symlink("../..", p), 0);
	snprintf(p, sizeof(p), "%s/in", base);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/in/tmp2", base);
	ck_assert_int_eq(symlink("/tmp", p), 0);
	root_fd = open(base, O_PATH | O_DIRECTORY);
	ck_assert_int_ge(root_fd, 0);
}

static void teardown(void)
{
	close(root_fd);
}

START_TEST(plain_dir_opens)
{
	int fd = confine_open(-1, root_fd, "tmp", O_PATH | O_DIRECTORY, 0, NULL);

	ck_assert_int_ge(fd, 0);
	close(fd);
	fd = confine_open(-1, root_fd, "tmp/file", O_RDONLY, 0, NULL);
	ck_assert_int_ge(fd, 0);
	close(fd);
}
END_TEST

START_TEST(absolute_symlink_stays_inside)
{
	/* /etc of the fake root does not exist: the host's must not be found */
	ck_assert_int_eq(confine_open(-1, root_fd, "lnk/passwd", O_RDONLY, 0, NULL),
			 -ENOENT);
	/* an absolute link to /tmp lands on the fake root's tmp */
	int fd = confine_open(-1, root_fd, "in/tmp2/file", O_RDONLY, 0, NULL);

	ck_assert_int_ge(fd, 0);
	close(fd);
}
END_TEST

START_TEST(dotdot_cannot_escape)
{
	int fd = confine_open(-1, root_fd, "up/tmp/file", O_RDONLY, 0, NULL);

	/* "../.." clamps at the fake root, so this is the fake root's file */
	ck_assert_int_ge(fd, 0);
	close(fd);
}
END_TEST

START_TEST(walk_refuses_links_and_dotdot)
{
	int fd;

	/* ".." at the root stays there: the fake root has no etc */
	ck_assert_int_eq(confine_open(-1, root_fd, "../etc/passwd", O_RDONLY, 0, NULL),
			 -ENOENT);
	ck_assert_int_eq(confine_open(-1, root_fd, "tmp/../../../etc/passwd", O_RDONLY, 0,
				      NULL), -ENOENT);
	fd = confine_open(-1, root_fd, "tmp//file", O_RDONLY, 0, NULL);
	ck_assert_int_ge(fd, 0);
	close(fd);
	/* a symlink as last component under O_NOFOLLOW */
	ck_assert_int_eq(confine_open(-1, root_fd, "in/tmp2", O_PATH | O_DIRECTORY |
				      O_NOFOLLOW, 0, NULL), -ELOOP);
	ck_assert_int_eq(confine_open(-1, root_fd, "", O_RDONLY, 0, NULL), -EINVAL);
	ck_assert_int_eq(confine_open(-1, -1, "tmp", O_RDONLY, 0, NULL), -EINVAL);
}
END_TEST

Suite *ns_suite(void)
{
	Suite *s = suite_create("ns");
	TCase *tc = tcase_create("confined paths");

	tcase_add_unchecked_fixture(tc, tmp_setup, tmp_teardown); /* removes base */
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, plain_dir_opens);
	tcase_add_test(tc, absolute_symlink_stays_inside);
	tcase_add_test(tc, dotdot_cannot_escape);
	tcase_add_test(tc, walk_refuses_links_and_dotdot);
	suite_add_tcase(s, tc);
	return s;
}
