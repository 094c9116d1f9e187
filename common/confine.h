/* SPDX-License-Identifier: Apache-2.0 */
/*
 * confine.h - the one way jsym opens a path that a target names or
 * controls: a JVM's libjvm.so, its release and argfiles, a container's
 * /etc/hostname, the attach trigger and sockets' directories, the agent's
 * symbol files, the outputs of `jsym map`.  The CLI and the lookup library
 * (both in attach/) use it; tests/lib/confine_check.sh fails the build's
 * tests on any other open, or stat of a name, in attach/.
 *
 * A container or a fake JVM decides what sits at every such path.  So the
 * path is walked here one component at a time, each opened O_PATH (no
 * driver, no file system's open is called), and before the next step:
 *
 *  - the component's mount is looked up by its id (from /proc/self/fdinfo,
 *    which asks no file system) in the mountinfo the kernel writes for the
 *    target; a file system that can stall (FUSE, NFS, CIFS, 9p, ceph, ...)
 *    or that is a kernel interface (procfs, sysfs, ...) ends the walk there:
 *    no lookup, stat, statfs or read is ever sent to it;
 *  - symlinks are read and followed by this code, inside the root: an
 *    absolute one restarts at root_fd, ".." never climbs above it (the
 *    semantics of openat2's RESOLVE_IN_ROOT, the same on every kernel);
 *  - the last component must be a regular file (or, with O_DIRECTORY, a
 *    directory): a device node, FIFO or socket is never opened.
 *
 * Only then is the file opened for real, through /proc/self/fd/N, the
 * inode that was checked, never the path a second time.
 *
 * Unlike the rest of common/, this allocates (the mount table): the agent
 * does not link it (common.mk's CONFINE_SRCS).
 *
 * One error vocabulary, for every function here:
 *   -EINVAL     a device, FIFO, socket, or a directory where a file was
 *               wanted (a file where a directory was: -ENOTDIR), an empty
 *               path, a negative root_fd, flags this module refuses
 *   -EREMOTE    a component lies on a file system that may stall a reader
 *               forever (FUSE, network file systems; confine_fs_kind)
 *   -EPERM      a component lies on a kernel interface (procfs, sysfs ...)
 *   -ELOOP      a symlink as last component under O_NOFOLLOW, or more
 *               than 40 symlinks
 *   -ESTALE     a mount that the target's mountinfo does not list (mounted
 *               while jsym walked, or another mount namespace's)
 *   -ETIMEDOUT  a read that passed its deadline
 *   other -errno from the kernel (-ENOENT, -EACCES, -ENOTDIR, ...)
 * and a message in e (if not NULL) naming the path and the cause.
 */
#ifndef JSYM_CONFINE_H
#define JSYM_CONFINE_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "errtext.h"

/*
 * Pin /proc/self of this process now (an O_PATH dirfd, kept for the life
 * of the process).  Call it right after a fork in a process that is about
 * to enter another mount namespace, where /proc, if any, is not its own.
 * Without a pin each open looks /proc/self up once.  0 or -errno.
 */
int confine_pin_self(void);

/*
 * Open path inside root_fd.  mnt_fd is an O_PATH dirfd of /proc/PID for a
 * process whose mount namespace holds root_fd's mounts (the target's own
 * /proc/PID, whose mountinfo is read); -1 means this process's, right for
 * a process that has entered the target's namespace and for jsym's own
 * files.  A relative path starts at root_fd too (root_fd may be a cwd).
 * root_fd AT_FDCWD: a path jsym's own user named (a command line's file,
 * maybe below /proc/<pid>/root), resolved by the kernel as written, for
 * reading only; what it names gets the same checks of its mount and type
 * before it is opened.
 *
 * flags: O_RDONLY, O_WRONLY or O_RDWR, and
 *   O_PATH       return the checked O_PATH fd, opening nothing for real
 *   O_DIRECTORY  the end must be a directory (opened O_RDONLY unless
 *                O_PATH)
 *   O_NOFOLLOW   a symlink as the last component is refused (-ELOOP);
 *                without it, it is followed inside the root
 *   O_CREAT|O_EXCL  create the last component as a new file (mode), in a
 *                parent that passed the walk; O_CREAT without O_EXCL is
 *                refused (it would open whatever is there)
 *   O_TMPFILE    an unnamed file in the directory path names (mode)
 *   O_TRUNC      allowed with O_WRONLY/O_RDWR on a regular file
 * O_CLOEXEC and O_NONBLOCK are always added.
 * Returns the fd (the caller closes it) or -errno (above; errno is set to
 * it too, for callers that branch on errno after a failed open).
 */
int confine_open(int mnt_fd, int root_fd, const char *path, int flags,
		 mode_t mode, struct err_text *e);

/*
 * What fstatat(dir_fd, path, st, flags & O_NOFOLLOW ? AT_SYMLINK_NOFOLLOW
 * : 0) would say, found by confine_open's walk (mnt_fd and dir_fd as its
 * mnt_fd and root_fd; symlinks followed inside dir_fd): every component's
 * mount is checked first, the last one's too, so no stat is ever sent to
 * a file system that may stall (-EREMOTE) or to a kernel interface
 * (-EPERM).  Any kind of file is described (a socket, a device: an
 * O_PATH descriptor opens nothing); with O_NOFOLLOW a symlink as the
 * last component is described, not refused.  0, or -errno (-ENOENT when
 * nothing is there) with e set.
 */
int confine_stat(int mnt_fd, int dir_fd, const char *path, int flags,
		 struct stat *st, struct err_text *e);

/*
 * confine_stat's walk, keeping what it found: the O_PATH descriptor of
 * the last component (any kind of file, *st describing it), which the
 * caller closes, or -errno.  For a name that is used by name later (a
 * socket jsym connects to): give the kernel "fd/N" below
 * confine_self_dir() instead, which reaches exactly that inode.
 */
int confine_lookup(int mnt_fd, int dir_fd, const char *path, int flags,
		   struct stat *st, struct err_text *e);

/*
 * An O_PATH dirfd of this process's own /proc/PID (procfs, checked; the
 * one confine_pin_self pinned, duplicated, even after entering a mount
 * namespace whose /proc is another's), which the caller closes, or
 * -errno.  Below it, "fd/N" is a name for the inode of this process's
 * fd N that needs no path lookup anywhere else.
 */
int confine_self_dir(void);

/*
 * For an O_PATH fd jsym got without a walk (a /proc/PID/map_files/ link,
 * the mapping itself): the check confine_open makes of each component's
 * file system, from the target's mountinfo (mnt_fd as confine_open's).
 * Its type is confine_reopen's to check, which opens it next.  path names
 * it in e.  0 or -errno in confine_open's vocabulary.
 */
int confine_check_fd(int mnt_fd, int fd, const char *path, struct err_text *e);

/*
 * Open for real (O_RDONLY, O_WRONLY or O_RDWR; with O_DIRECTORY a
 * directory) the O_PATH fd that confine_open(O_PATH) gave, after the
 * caller has looked at it (fstat: is it the file it expects?): that
 * inode, through /proc/self/fd, never a path again.  Its mount was
 * checked by the walk that gave it.  O_CLOEXEC and O_NONBLOCK are
 * added.  fd or -errno (-EINVAL: not a regular file; -ENOTDIR).
 */
int confine_reopen(int path_fd, int flags, struct err_text *e);

/*
 * Read all of a file that confine_open gave (fd): until EOF or max bytes
 * (a longer file is cut there), and no longer than timeout_ms (<= 0: no
 * limit; it is checked between reads; each read returns promptly, since
 * the file lies on a file system that stores its data).  *out (malloc'd,
 * NUL-terminated past the length) is the caller's to free.  Returns the
 * length or -errno (-ETIMEDOUT, -ENOMEM, -EINVAL for a non-regular fd),
 * *out NULL then.
 */
ssize_t confine_read_fd(int fd, size_t max, int timeout_ms, char **out);

/* confine_open(O_RDONLY | O_NOFOLLOW) and confine_read_fd in one. */
ssize_t confine_read(int mnt_fd, int root_fd, const char *path, size_t max,
		     int timeout_ms, char **out, struct err_text *e);

/*
 * A file of the kernel's own about a process: name (no "..", no leading
 * '/') below proc_fd, a dirfd of /proc/PID (or /proc), which must lie on
 * procfs (else -EPERM).  Such a file is the kernel's text, not something
 * the target planted; its magic links (root, cwd, ns/...) are followed
 * unless flags has O_NOFOLLOW.  O_CLOEXEC is added.  fd or -errno.
 */
int confine_proc(int proc_fd, const char *name, int flags);

/* confine_proc(O_RDONLY | O_NOFOLLOW) read whole (max bytes at most). */
ssize_t confine_proc_read(int proc_fd, const char *name, size_t max, char **out);

/* The same, for a text that is only good whole: one longer than max bytes
 * is -EFBIG (nothing in *out), never a cut text that might pass for it. */
ssize_t confine_proc_read_whole(int proc_fd, const char *name, size_t max, char **out);

enum confine_fs {
	CONFINE_FS_STORED,      /* stores files: ext4, xfs, btrfs, tmpfs, overlay ... */
	CONFINE_FS_STALLS,      /* a reader may wait forever: FUSE, network */
	CONFINE_FS_KERNEL,      /* a kernel interface: proc, sysfs, cgroup ... */
};

/* What a file system type of mountinfo ("fuse.sshfs", "nfs4") is. */
enum confine_fs confine_fs_kind(const char *type);

#endif
