/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inroot.h - open a path inside a container's root without leaving it.
 *
 * Every file jsym touches in a target (HotSpot trigger and socket dir,
 * OpenJ9 common dir, the agent's symbol files, the JDK's release file) is
 * reached through a dirfd of the target's root, usually /proc/<pid>/root.
 * The container owns everything below that dirfd and may have planted
 * absolute symlinks or ".." tricks meant to make jsym act on the host.
 */
#ifndef JSYM_INROOT_H
#define JSYM_INROOT_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Open `path` (absolute or relative: both are taken from root_fd) with
 * openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS), so absolute symlinks
 * and ".." resolve inside the root, never above it.  Kernels without
 * openat2 (< 5.6) or seccomp profiles that refuse it get inroot_walk(),
 * and *walked (if not NULL) says so.  O_CLOEXEC is always added; `mode`
 * matters only with O_CREAT.  Returns an fd (the caller closes it) or
 * -errno: -EINVAL for an empty path or a negative root_fd.
 */
int inroot_open(int root_fd, const char *path, int flags, mode_t mode, bool *walked);

/*
 * inroot_open of a file the container may have planted anything at: opened
 * O_PATH | O_NOFOLLOW, then for real with flags only when it is a regular
 * file on a file system that stores files (reg_reopen, regular.h): a device
 * node, FIFO, socket, symlink or procfs file is never opened.  Returns an
 * fd or -errno (-EINVAL for the refused kinds).
 */
int inroot_open_regular(int root_fd, const char *path, int flags);

/*
 * The fallback, exported for tests: one component at a time with
 * O_NOFOLLOW, so any symlink on the way fails (-ELOOP or -ENOTDIR) and ".."
 * is refused (-EXDEV).  Empty and "." components are skipped; a path with
 * no component opens the root itself.  Returns an fd or -errno.
 */
int inroot_walk(int root_fd, const char *path, int flags, mode_t mode);

#endif
