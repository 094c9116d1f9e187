/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_planted.h - what a hostile target plants where jsym opens files, for
 * the unit tests (tests/lib/check_planted.c): a FIFO (any user can make
 * one) or, as root, a character device with /dev/null's numbers (harmless
 * if it were opened), and an inotify watch that tells whether it was opened
 * for real (the kernel queues IN_OPEN for every open, none for O_PATH).
 */
#ifndef JSYM_CHECK_PLANTED_H
#define JSYM_CHECK_PLANTED_H

#include <stdbool.h>

/* Make path a device node (device) or a FIFO.  false when it cannot be
 * made (a device needs CAP_MKNOD). */
bool planted_node(const char *path, bool device);

/* An inotify fd watching path for IN_OPEN; fails the test when it cannot. */
int planted_watch(const char *path);

/* Was the watched file opened since planted_watch?  Closes ifd. */
bool planted_opened(int ifd);

#endif
