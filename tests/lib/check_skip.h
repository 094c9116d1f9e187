/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_skip.h - unit tests that need what a run may lack (root, a
 * namespace of their own): the suite registers such a test only where it
 * can run, and otherwise says on stderr that it is skipped and why
 * (tests/lib/check_skip.c).  A test that found out for itself and returned
 * early would be counted by Check as passed, without having checked
 * anything (STYLE.md: a skipped case says why and is never a pass).
 *
 *     check_add_if(tc, geteuid() == 0, "confine", chrooted_target_files_open,
 *                  "needs root (chroot)");
 */
#ifndef JSYM_CHECK_SKIP_H
#define JSYM_CHECK_SKIP_H

#include <check.h>
#include <stdbool.h>

/* "skip: SUITE: TEST: WHY" on stderr, for a test the suite leaves out. */
void check_skip(const char *suite, const TTest *test, const char *why);

/* Add test to tc when can holds, else check_skip it.  Returns can. */
bool check_add_if(TCase *tc, bool can, const char *suite, const TTest *test,
		  const char *why);

/* Can this process make new namespaces of the kinds in flags (CLONE_NEWNS,
 * CLONE_NEWPID, ...)?  Tried in a forked child, so nothing here changes:
 * root may still be refused (no CAP_SYS_ADMIN in a container, a process
 * with threads under qemu-user for a pid namespace). */
bool check_can_unshare(int flags);

#endif
