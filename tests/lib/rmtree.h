/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rmtree.h - what the tests use to remove a directory tree: in C, with
 * nftw, never through a shell (tests/lib/rmtree.c; no Check, so the
 * sanitizer harnesses link it too).
 */
#ifndef JSYM_RMTREE_H
#define JSYM_RMTREE_H

/* Remove dir and everything below it, symbolic links not followed.
 * 0 or -errno. */
int tmp_rmtree(const char *dir);

#endif
