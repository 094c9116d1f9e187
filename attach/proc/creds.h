/* SPDX-License-Identifier: Apache-2.0 */
/*
 * creds.h - act as the JVM's user, and explain missing privileges.
 *
 * HotSpot accepts a trigger file and a socket peer only from its own euid
 * (or root on JDK 11+) as seen in its user namespace (docs/protocols.md A2, A4, C4),
 * so jsym creates files and connects with the target's host-side euid/egid.
 * The ordering rules of C5 apply: everything that needs capabilities
 * (opening /proc dirfds, setns, chown) happens before creds_become(),
 * because euid 0 -> non-zero clears the effective capability set.
 */
#ifndef JSYM_CREDS_H
#define JSYM_CREDS_H

#include <stdbool.h>
#include <sys/types.h>

#include "base.h"

struct creds_saved {
	bool switched;          /* creds_become() changed something */
	bool groups_set;        /* ... including the supplementary groups */
	bool groups_skipped;    /* setgroups was refused (no CAP_SETGID): the
	                           supplementary groups stayed ours */
	uid_t euid;
	gid_t egid;
	int ngroups;
	gid_t groups[256];
};

/*
 * Switch to euid/egid (and the supplementary groups, when ngroups >= 0 and
 * we are root): setgroups, then setegid, then seteuid.  A refused setgroups
 * is not an error (HotSpot checks only uid and gid; groups_skipped says so).  A no-op when we
 * already are that euid/egid.  Returns 0 or -errno with e describing the
 * missing capability (CAP_SETUID / CAP_SETGID) and the remedy; on failure
 * nothing stays changed.
 */
int creds_become(uid_t euid, gid_t egid, const gid_t *groups, int ngroups,
		 struct creds_saved *sv, struct err_text *e);

/* Undo creds_become(): seteuid first (regains capabilities), then egid and
 * groups.  Returns 0 or -errno. */
int creds_restore(struct creds_saved *sv);

/* Operations whose EPERM/EACCES creds_hint() can explain. */
enum creds_op {
	CREDS_PROC_READ,        /* /proc/<pid>/{root,cwd,ns,maps,environ} */
	CREDS_PROC_READ_SAMEUID, /* ... when we already have the JVM's uid */
	CREDS_SETNS,            /* setns() into the target's namespace */
	CREDS_SETUID,
	CREDS_SETGID,
	CREDS_KILL,
	CREDS_CHOWN,
	CREDS_DAC,              /* create a file in someone else's directory */
};

/*
 * Write a parenthesised hint such as "(needs CAP_SYS_PTRACE or the same uid
 * as the JVM; run as root or add --cap-add SYS_PTRACE to the debug
 * container)" into buf.  When libcap says the capability is already in our
 * effective set, the hint says so and names the likelier cause (another user
 * namespace, a non-dumpable process, a multithreaded caller).  Returns buf.
 */
const char *creds_hint(enum creds_op op, char *buf, size_t n);

/*
 * 1 if capability `cap` (a CAP_* number) is in our effective set, 0 if not,
 * -errno when unknown (no libcap in this build, cap_get_proc failed).
 */
int creds_have_cap(int cap);

#endif
