/* SPDX-License-Identifier: Apache-2.0 */
/* creds.c - euid/egid switching and capability diagnosis (declared in target.h). */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if __has_include(<sys/capability.h>)
#include <sys/capability.h>
#define JSYM_HAVE_LIBCAP 1
#else
/* no libcap (musl build): capability numbers from capabilities(7) */
#define CAP_CHOWN 0
#define CAP_DAC_OVERRIDE 1
#define CAP_KILL 5
#define CAP_SETGID 6
#define CAP_SETUID 7
#define CAP_SYS_PTRACE 19
#define CAP_SYS_ADMIN 21
#endif

#include "target.h"

int creds_have_cap(int cap)
{
#ifdef JSYM_HAVE_LIBCAP
	cap_t caps = cap_get_proc();
	cap_flag_value_t v = CAP_CLEAR;
	int rc;

	if (!caps)
		return -errno;
	rc = cap_get_flag(caps, (cap_value_t)cap, CAP_EFFECTIVE, &v);
	cap_free(caps);
	if (rc != 0)
		return -EINVAL;
	return v == CAP_SET;
#else
	(void)cap;
	return -ENOTSUP;
#endif
}

struct cap_advice {
	int cap;
	const char *name;
	const char *missing;    /* what to do when we lack it */
	const char *missing_root; /* same, when we already are root (NULL: same) */
	const char *present;    /* likelier cause when we have it */
};

static const struct cap_advice advice[] = {
	[CREDS_PROC_READ] = { CAP_SYS_PTRACE, "CAP_SYS_PTRACE",
		"needs CAP_SYS_PTRACE or the same uid as the JVM; run as root or "
		"add --cap-add SYS_PTRACE to the debug container",
		"jsym runs as root but needs CAP_SYS_PTRACE here; add --cap-add "
		"SYS_PTRACE to the debug container or run jsym on the host",
		"CAP_SYS_PTRACE is effective: the JVM is probably in a user "
		"namespace we do not own, or not dumpable; run jsym from the host" },
	[CREDS_PROC_READ_SAMEUID] = { CAP_SYS_PTRACE, "CAP_SYS_PTRACE",
		"the JVM holds capabilities jsym lacks, so the kernel hides its "
		"/proc files even from the same uid; add --cap-add SYS_PTRACE to the "
		"debug container or run jsym on the host",
		NULL,
		"CAP_SYS_PTRACE is effective: the JVM is probably in a user "
		"namespace we do not own, or not dumpable; run jsym from the host" },
	[CREDS_SETNS] = { CAP_SYS_ADMIN, "CAP_SYS_ADMIN",
		"needs CAP_SYS_ADMIN; run as root on the host",
		NULL,
		"CAP_SYS_ADMIN is effective but not over the target's user "
		"namespace, or jsym is multithreaded" },
	[CREDS_SETUID] = { CAP_SETUID, "CAP_SETUID",
		"needs CAP_SETUID to act as the JVM's user; run as root or as "
		"the JVM's user",
		"jsym runs as root but without CAP_SETUID; add --cap-add SETUID to the "
		"debug container or run jsym on the host",
		"CAP_SETUID is effective: the uid may be unmapped in our user "
		"namespace" },
	[CREDS_SETGID] = { CAP_SETGID, "CAP_SETGID",
		"needs CAP_SETGID to act as the JVM's group; run as root or as "
		"the JVM's user",
		"jsym runs as root but without CAP_SETGID; add --cap-add SETGID to the "
		"debug container or run jsym on the host",
		"CAP_SETGID is effective: the gid may be unmapped in our user "
		"namespace" },
	[CREDS_KILL] = { CAP_KILL, "CAP_KILL",
		"needs CAP_KILL, or CAP_SETUID to act as the JVM's uid; run on the "
		"host or add --cap-add KILL (or SETUID) to the debug container",
		NULL,
		"CAP_KILL is effective: the JVM is in a user namespace we do not "
		"own" },
	[CREDS_CHOWN] = { CAP_CHOWN, "CAP_CHOWN",
		"needs CAP_CHOWN; run as root",
		"jsym runs as root but without CAP_CHOWN; add --cap-add CHOWN to the "
		"debug container or run jsym on the host",
		"CAP_CHOWN is effective: the id may be unmapped in the file "
		"system's user namespace" },
	[CREDS_DAC] = { CAP_DAC_OVERRIDE, "CAP_DAC_OVERRIDE",
		"needs CAP_DAC_OVERRIDE or the JVM's uid; run as root or as the "
		"JVM's user",
		"jsym runs as root but without CAP_DAC_OVERRIDE; add --cap-add DAC_OVERRIDE to the "
		"debug container or run jsym on the host",
		"CAP_DAC_OVERRIDE is effective: the file system is read-only or "
		"owned by an unmapped id" },
};

const char *creds_hint(enum creds_op op, char *buf, size_t n)
{
	const struct cap_advice *a;

	if ((size_t)op >= sizeof(advice) / sizeof(advice[0])) {
		snprintf(buf, n, "(insufficient privileges)");
		return buf;
	}
	a = &advice[op];
	snprintf(buf, n, "(%s)",
		 creds_have_cap(a->cap) == 1 ? a->present :
		 geteuid() == 0 && a->missing_root ? a->missing_root : a->missing);
	return buf;
}

int creds_become(uid_t euid, gid_t egid, const gid_t *groups, int ngroups,
		 struct creds_saved *sv, struct err_text *e)
{
	char hint[256];
	int n, err;

	memset(sv, 0, sizeof(*sv));
	sv->euid = geteuid();
	sv->egid = getegid();
	if (sv->euid == euid && sv->egid == egid)
		return 0;
	n = getgroups((int)(sizeof(sv->groups) / sizeof(sv->groups[0])),
		      sv->groups);
	sv->ngroups = n < 0 ? 0 : n;
	/* supplementary groups only when we may set them (root): a same-uid
	 * caller keeps its own, which the kernel checks anyway */
	if (sv->euid == 0 && ngroups >= 0) {
		if (setgroups(ngroups > 0 ? (size_t)ngroups : 1,
			      ngroups > 0 ? groups : &egid) == 0)
			sv->groups_set = true;
		else
			sv->groups_skipped = true;
	}
	sv->switched = true;
	if (sv->egid != egid && setegid(egid) != 0) {
		err = -errno;
		creds_restore(sv);
		return err_set(e, err, "cannot switch to gid %u of the JVM: %s %s",
			       (unsigned)egid, strerror(-err),
			       creds_hint(CREDS_SETGID, hint, sizeof(hint)));
	}
	if (sv->euid != euid && seteuid(euid) != 0) {
		err = -errno;
		creds_restore(sv);
		return err_set(e, err, "cannot switch to uid %u of the JVM: %s %s",
			       (unsigned)euid, strerror(-err),
			       creds_hint(CREDS_SETUID, hint, sizeof(hint)));
	}
	return 0;
}

int creds_restore(struct creds_saved *sv)
{
	int rc = 0;

	if (!sv->switched)
		return 0;
	/* euid first: back to 0 restores the effective capabilities that
	 * setegid and setgroups need */
	if (geteuid() != sv->euid && seteuid(sv->euid) != 0)
		rc = -errno;
	if (getegid() != sv->egid && setegid(sv->egid) != 0 && rc == 0)
		rc = -errno;
	if (sv->groups_set &&
	    setgroups((size_t)sv->ngroups, sv->groups) != 0 && rc == 0)
		rc = -errno;
	sv->switched = false;
	return rc;
}
