/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_tmp.h - temporary directories of the unit tests, owned by Check
 * fixtures (tests/lib/check_tmp.c).
 *
 * A test case that needs directories adds the unchecked fixture
 *
 *     tcase_add_unchecked_fixture(tc, tmp_setup, tmp_teardown);
 *
 * and each test takes its own directory with tmp_dir().  The fixture runs
 * in the runner, not in the forked test: its teardown removes every
 * directory of the case even when a test failed (in fork mode a failed
 * test's process exits at the failed check, so its own clean-up code and a
 * checked teardown never run).  Nothing is removed through a shell.
 */
#ifndef JSYM_CHECK_TMP_H
#define JSYM_CHECK_TMP_H

#include <stddef.h>

/* Make the case's directory /tmp/jsym-check-XXXXXX; aborts the run if it cannot. */
void tmp_setup(void);

/* Remove the case's directory and everything below it. */
void tmp_teardown(void);

/* A new empty directory NAME-XXXXXX inside the case's, its path in buf
 * (cap bytes); fails the test when it cannot.  Returns buf. */
char *tmp_dir(char *buf, size_t cap, const char *name);

#include "rmtree.h"     /* tmp_rmtree */

#endif
