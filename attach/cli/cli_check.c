/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_check.c - what `jsym exec` says about a target before attaching, and
 * the refusals that need no attach child (not a JVM, unreadable target).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "cli.h"
#include "target.h"

#define STATUS_MAX 4096 /* /proc/<pid>/status: the ppid is near the top */

void cli_log_facts(const struct target *t, const struct attach_log *log)
{
	char ver[4 * sizeof(t->jdk_version)];

	term_str(ver, sizeof(ver), t->jdk_version);
	if (t->thread)
		attach_step(log, "%d is a thread of process %d: attaching to %d",
			    (int)t->thread, (int)t->pid, (int)t->pid);
	attach_step(log, "target %d: %s%s%s, pid %d in its namespace, uid %u gid "
		    "%u, libc %s, QUIT handler %s%s%s", (int)t->pid, target_kind_name(t),
		    ver[0] ? " " : "", ver, (int)t->st.nspid,
		    (unsigned)t->st.uid[1], (unsigned)t->st.gid[1],
		    target_libc_name(t),
		    proc_catches_signal(&t->st, SIGQUIT) ? "yes" : "no",
		    t->opts.xrs ? ", -Xrs" : "",
		    t->opts.disable_attach ? ", -XX:+DisableAttachMechanism" : "");
	for (int i = 0; i < TNS_COUNT; i++)
		if (t->ns[i].known && t->ns[i].differs)
			attach_step(log, "%s namespace differs from ours",
				    target_ns_name((enum target_ns)i));
	if (t->opened_as_owner)
		attach_step(log, "opened /proc/%d/root as uid %u (no CAP_SYS_PTRACE)",
			    (int)t->pid, (unsigned)t->st.uid[1]);
}

/*
 * A container's PID 1 is often a shell or an init that started the JVM:
 * find a JVM among pid's children so the message can name it.  0 if none.
 */
static pid_t jvm_child(pid_t pid)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t found = 0;

	while (d && !found && (de = readdir(d)) != NULL) {
		struct proc_status st;
		struct target c;
		char path[64], *buf;
		pid_t p;
		ssize_t n;
		int rc;

		if (text_parse_pid(de->d_name, &p) != 0)
			continue;
		snprintf(path, sizeof(path), "%d/status", (int)p);
		n = confine_proc_read(dirfd(d), path, STATUS_MAX, &buf);
		if (n <= 0) {
			free(buf);
			continue;
		}
		rc = proc_parse_status(buf, (size_t)n, &st);
		free(buf);
		if (rc != 0 || st.ppid != pid)
			continue;
		if (target_open(p, 0, &c, NULL) == 0 && !c.maps_err &&
		    c.maps.kind != PROC_NOT_JVM)
			found = p;
		target_close(&c);
	}
	if (d)
		closedir(d);
	return found;
}

/* Refusals that need no child: not a JVM, unreadable target. */
int cli_precheck(const struct target *t, struct err_text *e)
{
	char hint[256];

	enum creds_op why = geteuid() == t->st.uid[1] ? CREDS_PROC_READ_SAMEUID :
			    CREDS_PROC_READ;

	if (t->maps_err)
		return err_set(e, t->maps_err, "cannot read /proc/%d/maps to confirm "
			       "that it is a JVM: %s %s", (int)t->pid,
			       strerror(-t->maps_err),
			       creds_hint(why, hint, sizeof(hint)));
	if (t->maps.kind == PROC_NOT_JVM) {
		pid_t child = jvm_child(t->pid);
		char name[4 * sizeof(t->st.name)];

		err_set(e, -ENOEXEC, "process %d (%s) is not a JVM: neither "
			"libjvm.so nor libj9vm*.so is mapped; nothing was sent to it",
			(int)t->pid, term_str(name, sizeof(name), t->st.name));
		if (child)
			err_add(e, 0, " (its child %d is a JVM: jsym exec %d ...)",
				(int)child, (int)child);
		return -ENOEXEC;
	}
	if (t->st.ns_levels == 0 && t->ns[TNS_PID].known && t->ns[TNS_PID].differs)
		return err_set(e, -ENOTSUP, "the kernel shows no NStgid for %d, so "
			       "its pid inside its pid namespace is unknown (Linux "
			       "4.1 or later needed)", (int)t->pid);
	if (t->root_fd < 0 || t->cwd_fd < 0)
		return err_set(e, t->root_err ? t->root_err : -EACCES,
			       "cannot read /proc/%d/root: %s %s", (int)t->pid,
			       strerror(t->root_err ? -t->root_err : EACCES),
			       creds_hint(why, hint, sizeof(hint)));
	return 0;
}
