/* SPDX-License-Identifier: Apache-2.0 */
/* tests/kit/kit_helper.h - pieces of the container kit's C helper (jsym-kit).
 *
 * The helper exists because the steps between "new namespaces" and "exec the
 * workload" (overlay root, /proc, /dev, /tmp, bind mounts, pivot_root, drop
 * credentials and capabilities) must all happen in the process that becomes
 * the container's PID 1 or the sidecar, with no shell or setpriv left in the
 * picture: a musl-only root has neither.  tests/kit/kit.sh drives it.
 *
 * Every function returns 0 or -errno and, on failure, writes a one-line
 * reason (what failed first, with the path) into err; none prints or exits.
 */
#ifndef JSYM_KIT_HELPER_H
#define JSYM_KIT_HELPER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define KIT_MAX_BINDS 32

struct kit_bind {
	const char *host;	/* existing host path (file or directory) */
	const char *ct;		/* absolute path inside the container */
	int ro;
};

struct kit_fs {
	const char *rootfs;	/* cached tree, used read-only as overlay lower */
	const char *state;	/* host scratch dir: mountpoints state/root, state/rw */
	const char *tmp_size;	/* tmpfs size= for /tmp, NULL for the default */
	int tmp_ro;		/* mount the private /tmp read-only */
	int tmp_noexec;		/* mount the private /tmp noexec */
	int userns;		/* in a new user namespace that does not map the
				   rootfs owner: bind mountpoints go to the upper layer */
	int nbinds;
	struct kit_bind binds[KIT_MAX_BINDS];
};

/* Build the container's filesystem in the caller's (new, unshared) mount
 * namespace and pivot_root into it: mounts are made private first so none
 * propagates to the host.  Afterwards "/" is the overlay (lower = rootfs,
 * upper on a tmpfs) and the old root is detached.  Must run in the pid
 * namespace whose /proc is wanted.  Errors: -errno of the failing step. */
int kit_fs_enter(const struct kit_fs *fs, char *err, size_t errlen);

/* Bring the loopback interface of the current network namespace up. */
int kit_net_lo_up(char *err, size_t errlen);

/* A rootless container's id range: container ids 0..count-1 are host ids
 * host..host+count-1, for uids and gids alike. */
struct kit_userns {
	unsigned host;
	unsigned count;
};

/* Parse "CT:HOST:COUNT" (CT must be 0: the child builds the filesystem as
 * the namespace's root).  -EINVAL with the reason in err. */
int kit_userns_parse(const char *spec, struct kit_userns *map, char *err, size_t errlen);

/* The host id of container id ct_id, or (unsigned)-1 when it is unmapped. */
unsigned kit_userns_host_id(const struct kit_userns *map, unsigned ct_id);

/* Keeper side: write /proc/CHILD/uid_map and gid_map (one line each).  The
 * caller needs CAP_SETUID and CAP_SETGID in the parent namespace.  Errors:
 * -errno of the open or write. */
int kit_userns_map(pid_t child, const struct kit_userns *map, char *err, size_t errlen);

/* Keeper side: kit_userns_map, then write one byte to go_w; go_w is closed
 * either way, so a child whose maps failed reads EOF and gives up. */
int kit_userns_release(pid_t child, const struct kit_userns *map, int go_w,
		       char *err, size_t errlen);

/* Keeper side, before the clone: give the container's state directory to
 * the namespace's root and make it the working directory, which the child
 * inherits (it may not be able to look the path up: the caller then sets
 * kit_fs.state to ".").  Errors: -errno of chown or chdir. */
int kit_userns_enter_state(const struct kit_userns *map, const char *state,
			   char *err, size_t errlen);

/* Child side, first thing after the clone: block until the keeper writes a
 * byte to the other end of go_fd (closed here; EOF means the keeper failed:
 * -EINVAL), then switch to uid and gid 0 of the new namespace. */
int kit_userns_wait_map(int go_fd, char *err, size_t errlen);

/* Capability sets as a bit mask (bit n = capability number n). */

/* Parse "chown,dac_override,..." (case-insensitive, optional "cap_" prefix,
 * "" or "none" = empty) into *mask.  -EINVAL with the bad name in err. */
int kit_caps_parse(const char *list, uint64_t *mask, char *err, size_t errlen);

/* Highest capability number the kernel knows (/proc/sys/kernel/cap_last_cap),
 * read before pivot_root; falls back to 40. */
int kit_caps_last(void);

/* Make bounding, permitted, effective, inheritable and ambient sets all equal
 * to mask.  Caller is root (uid 0) with CAP_SETPCAP; the sets then survive
 * execve of an ordinary binary unchanged. */
int kit_caps_apply(uint64_t mask, int last_cap, char *err, size_t errlen);

#endif
