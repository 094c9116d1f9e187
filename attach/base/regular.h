/* SPDX-License-Identifier: Apache-2.0 */
/*
 * regular.h - open a file that someone else controls only once it is known
 * to be a plain file.
 *
 * A container or a fake JVM decides what sits at every path jsym opens in
 * it.  A device node it made with mknod opens the host's device, outside
 * the container's device cgroup (a watchdog armed by the open itself), and
 * a file of procfs or sysfs such as /proc/kmsg is "regular" to fstat but
 * reads, and consumes, the host kernel's log.  An open refused afterwards
 * has already done its harm, so such a path is opened O_PATH first (no
 * driver is called), its type checked (fstat, fstatfs), and only a regular
 * file on a file system that stores files is opened for real: through this
 * process's /proc/self/fd, the same inode, never the path a second time
 * (the container could swap it in between).
 */
#ifndef JSYM_REGULAR_H
#define JSYM_REGULAR_H

/*
 * Open /proc/self/fd of this process now and keep it.  Call it in a
 * process that is about to enter another mount namespace (where /proc, if
 * any, is not this process's), right after its fork.  The descriptor
 * stays open for the life of the process.  Without it, reg_reopen opens
 * /proc/self/fd for each call.  0 or -errno.
 */
int reg_pin_self(void);

/*
 * Reopen pathfd (an O_PATH fd) with flags (O_CLOEXEC and O_NONBLOCK added,
 * O_CREAT/O_NOFOLLOW ignored) when it is a regular file on a file system
 * that stores files.  pathfd stays open.  Returns a new fd, -ELOOP for a
 * symlink, -EINVAL for a device, FIFO, socket, directory or a file of
 * procfs, sysfs, debugfs and their kind, -ENOENT when this process has no
 * /proc, other -errno.
 */
int reg_reopen(int pathfd, int flags);

/* reg_reopen of dirfd/name opened O_PATH | O_NOFOLLOW (a symlink: -ELOOP). */
int reg_open_at(int dirfd, const char *name, int flags);

#endif
