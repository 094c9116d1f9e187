/* SPDX-License-Identifier: Apache-2.0 */
/* rmtree.c - a directory removed with everything below it (rmtree.h). */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>

#include "rmtree.h"

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path) == 0 ? 0 : -errno;
}

int tmp_rmtree(const char *dir)
{
	int rc = nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);

	return rc < 0 ? -errno : rc;
}
