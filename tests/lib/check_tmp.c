/* SPDX-License-Identifier: Apache-2.0 */
/* check_tmp.c - temporary directories of the unit tests (check_tmp.h). */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_tmp.h"

static char root[64];

void tmp_setup(void)
{
	strcpy(root, "/tmp/jsym-check-XXXXXX");
	if (!mkdtemp(root)) {
		fprintf(stderr, "check_tmp: cannot make %s: %s\n", root, strerror(errno));
		exit(2);
	}
}

void tmp_teardown(void)
{
	int rc = tmp_rmtree(root);

	if (rc < 0)
		fprintf(stderr, "check_tmp: cannot remove %s: %s\n", root, strerror(-rc));
}

char *tmp_dir(char *buf, size_t cap, const char *name)
{
	int n = snprintf(buf, cap, "%s/%s-XXXXXX", root, name);

	ck_assert_msg(root[0] && n > 0 && (size_t)n < cap, "no room for a directory %s", name);
	ck_assert_msg(mkdtemp(buf) != NULL, "cannot make %s: %s", buf, strerror(errno));
	return buf;
}

