/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_vm_write.c - what `jsym map` writes into a container, and how much
 * memory its text may take (attach/vmstructs/vm_write.c).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_tmp.h"
#include "target.h"
#include "vm_write.h"

extern Suite *vm_write_suite(void); /* listed in the runner by tests/tests.mk */

/* A JVM of uid/gid 1000 whose map directory ("/tmp", as the JVM names it:
 * what JDK 28's -XX:AltTempDir=/etc makes of a root-owned /etc) is a
 * root-owned 0755 directory: root could write there, the JVM's user
 * cannot, so jsym must not (issue 24 row 5).  Once the directory is the
 * JVM's, the map is written and is the JVM's. */
START_TEST(map_written_only_where_the_jvm_could)
{
	char root[128], dir[160], path[192], where[128];
	struct err_text e = { "" };
	struct target t;
	struct stat st;
	int rc;

	tmp_dir(root, sizeof(root), "vmw-root");
	snprintf(dir, sizeof(dir), "%s/tmp", root);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	memset(&t, 0, sizeof(t));
	t.root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(t.root_fd, 0);
	t.st.nspid = 1;
	t.st.uid[1] = 1000;
	t.st.gid[1] = 1000;
	snprintf(path, sizeof(path), "%s/perf-1.map", dir);

	rc = vm_map_write(&t, "1 2 x\n", 6, where, sizeof(where), &e);
	ck_assert_msg(rc == -EACCES, "vm_map_write into a root-owned 0755 directory of a "
		      "uid-1000 JVM returned %d (%s)", rc, e.msg);
	ck_assert_msg(strstr(e.msg, "as the JVM's uid 1000 gid 1000"), "%s", e.msg);
	ck_assert_int_eq(stat(path, &st), -1);
	ck_assert_int_eq(errno, ENOENT);

	ck_assert_int_eq(chown(dir, 1000, 1000), 0);
	ck_assert_int_eq(vm_map_write(&t, "1 2 x\n", 6, where, sizeof(where), &e), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_uid, 1000);
	ck_assert_uint_eq(st.st_gid, 1000);
	ck_assert_int_eq((int)(st.st_mode & 0777), 0644);
	/* and jsym's own file-system ids are back: root creates here again */
	snprintf(path, sizeof(path), "%s/after", root);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	close(t.root_fd);
}
END_TEST

Suite *vm_write_suite(void)
{
	Suite *s = suite_create("vm_write");

	if (geteuid() == 0) {
		TCase *root = tcase_create("vm_write-root");

		tcase_add_unchecked_fixture(root, tmp_setup, tmp_teardown);
		tcase_add_test(root, map_written_only_where_the_jvm_could);
		suite_add_tcase(s, root);
	} else {
		fprintf(stderr, "skip: vm_write: map_written_only_where_the_jvm_could: "
			"needs root\n");
	}
	return s;
}
