/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_vm_write.c - what `jsym map` writes into a container, and how much
 * memory its text may take (attach/vmstructs/vm_write.c).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_skip.h"
#include "check_tmp.h"
#include "target.h"
#include "vm_scan.h"
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
	t.proc_fd = -1;         /* its mounts are this process's */
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

/* A line of /proc/self/status ("VmHWM:", "VmRSS:") in KiB, or -1. */
static long status_kib(const char *key)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = atol(line + strlen(key));
	fclose(f);
	return v;
}

/* A snapshot of n entries whose names are len bytes of c each. */
static void fill(struct vm_snapshot *s, size_t n, size_t len, int c)
{
	for (size_t k = 0; k < n; k++) {
		memset(s->names + k * (len + 1), c, len);
		s->names[k * (len + 1) + len] = '\0';
		s->e[k].start = 0x7f0000000000ull + k * 0x100;
		s->e[k].size = 0x100;
		s->e[k].name = (uint32_t)(k * (len + 1));
		s->e[k].name_len = (uint32_t)(len + 1);
	}
}

static size_t lines_of(const char *text, long len)
{
	size_t n = 0;

	for (long i = 0; i < len; i++)
		n += text[i] == '\n';
	return n;
}

/*
 * Issue 24 row 9: 32,768 names of 4,095 bytes of 0x9b (the walk's caps on
 * a name and on all names, 128 MiB) escape to four times that: 512 MiB of
 * map text, 643 MiB resident.  The escaped names now stop at 128 MiB, and
 * the peak resident set that rendering adds (the snapshot's 128 MiB of
 * names not counted) stays near that; names with nothing to escape, to
 * the same cap, are rendered whole.  The measured figures are printed
 * (docs/security.md quotes them).
 */
START_TEST(escaped_map_text_capped)
{
	const size_t n = 32768, len = VM_MAX_NAME - 1, budget = VM_MAX_NAME_BYTES;
	struct vm_snapshot s = { 0 };
	char *text;
	long tlen, rss0, hwm, lines;
	int fd;

	s.n = s.cap = n;
	s.e = calloc(n, sizeof(*s.e));
	s.names_len = s.names_cap = n * (len + 1);
	s.names = malloc(s.names_cap);
	ck_assert_ptr_nonnull(s.e);
	ck_assert_ptr_nonnull(s.names);

	fill(&s, n, len, 'a');
	tlen = vm_map_render(&s, &text);
	ck_assert_int_gt(tlen, 0);
	ck_assert_uint_eq(lines_of(text, tlen), n);     /* nothing to escape: whole */
	free(text);

	fill(&s, n, len, 0x9b);
	/* the peak from here: "5" to clear_refs resets VmHWM to VmRSS */
	fd = open("/proc/self/clear_refs", O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "5", 1), 1);
	close(fd);
	rss0 = status_kib("VmRSS:");
	tlen = vm_map_render(&s, &text);
	hwm = status_kib("VmHWM:");
	ck_assert_int_gt(tlen, 0);
	lines = (long)lines_of(text, tlen);
	fprintf(stderr, "vm_write: %zu names of %zu bytes of 0x9b: %ld MiB of map text "
		"(%ld of %zu entries), rendering added %ld MiB to the peak resident set\n",
		n, len, tlen >> 20, lines, n, (hwm - rss0) >> 10);
	ck_assert_msg((size_t)tlen <= budget + 36 * n, "%ld MiB of map text", tlen >> 20);
#if defined(__SANITIZE_ADDRESS__)
	/* ASan keeps freed blocks in its quarantine (256 MiB by default), so
	 * the buffers a growing text leaves behind stay resident: 416 MiB
	 * measured under make asan-unit; the bound holds for the real
	 * allocators only */
	fprintf(stderr, "vm_write: the peak resident set is not checked under ASan\n");
#else
	ck_assert_msg(hwm - rss0 < (160L << 10), "rendering took %ld MiB more resident memory",
		      (hwm - rss0) >> 10);
#endif
	ck_assert_int_gt(lines, 0);
	ck_assert_int_lt(lines, (long)n);
	/* the map ends with a whole line, each name escaped whole */
	ck_assert_int_eq(text[tlen - 1], '\n');
	ck_assert_uint_eq((size_t)tlen, (size_t)lines * (4 * len + 2 + 12 + 1 + 3));
	free(text);
	free(s.e);
	free(s.names);
}
END_TEST

Suite *vm_write_suite(void)
{
	Suite *s = suite_create("vm_write");
	TCase *tc = tcase_create("vm_write");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, escaped_map_text_capped);
	suite_add_tcase(s, tc);
	if (geteuid() == 0) {
		TCase *root = tcase_create("vm_write-root");

		tcase_add_unchecked_fixture(root, tmp_setup, tmp_teardown);
		tcase_add_test(root, map_written_only_where_the_jvm_could);
		suite_add_tcase(s, root);
	} else {
		check_skip("vm_write", map_written_only_where_the_jvm_could, "needs root");
	}
	return s;
}
