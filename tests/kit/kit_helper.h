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
