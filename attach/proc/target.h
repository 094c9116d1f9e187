/* SPDX-License-Identifier: Apache-2.0 */
/*
 * target.h - everything jsym learns about a target before touching it.
 *
 * target_open() pins the process with an O_PATH dirfd of /proc/<pid> (reads
 * through it fail with ESRCH once the process is gone, even if the pid is
 * reused), reads status, stat, maps, cmdline and environ through it, and,
 * with TARGET_FDS, opens every namespace file plus the root and cwd dirfds
 * and a pidfd **before** anything is entered (after setns(mnt) those paths
 * would name other things).  Nothing is changed in the target.
 */
#ifndef JSYM_TARGET_H
#define JSYM_TARGET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base.h"
#include "proc.h"

enum target_ns { TNS_MNT, TNS_NET, TNS_IPC, TNS_PID, TNS_USER, TNS_COUNT };

struct target_nsinfo {
	int fd;                 /* open ns file (-1: not opened) */
	bool known;             /* inode compared with ours */
	bool differs;           /* the target is in another namespace */
};

struct target {
	pid_t pid;              /* host pid (as seen by us) */
	pid_t thread;           /* the thread id the caller gave, when it was
	                           a thread of pid (0 otherwise) */
	int proc_fd;            /* O_PATH dirfd of /proc/<pid> */
	int pidfd;              /* pidfd_open(), -1 if unsupported */
	int root_fd;            /* O_PATH dirfd of /proc/<pid>/root, or -1 */
	int cwd_fd;             /* O_PATH dirfd of /proc/<pid>/cwd, or -1 */
	int root_err;           /* -errno of opening root_fd/cwd_fd (0 ok) */
	bool opened_as_owner;   /* the fds were opened with the target's euid
	                           (root without CAP_SYS_PTRACE) */
	struct proc_status st;
	char state;
	uint64_t starttime;
	struct proc_maps_facts maps;
	int maps_err;           /* -errno reading maps (0 ok) */
	struct proc_jvm_opts opts;
	bool cmdline_read;
	int jdk_major;          /* from <JDK home>/release, 0 if unknown */
	char jdk_version[32];
	char cwd_path[256];     /* readlink of cwd, for messages only */
	char root_path[256];    /* readlink of root as jsym sees it: "/" but
	                           for a chrooted JVM (maps paths are re-rooted
	                           from it, proc_maps_in_root); "" unreadable */
	char cgroup[256];       /* last line of /proc/<pid>/cgroup, for hints */
	struct target_nsinfo ns[TNS_COUNT];
};

#define TARGET_FDS 1u           /* open ns, root, cwd dirfds and the pidfd */

/*
 * Learn about pid.  A thread id (/proc/<tid> exists for every thread) is
 * taken as its process: t->pid is the thread group leader and t->thread
 * the id given.  Returns 0; -ESRCH (no such process), or another -errno
 * with e set when status cannot be read.  Maps, cmdline, environ, release and
 * the fds are best effort: their errors are recorded in the struct
 * (maps_err, root_err) for the caller to judge, because which of them
 * matter depends on the command.  Free with target_close().
 */
int target_open(pid_t pid, unsigned flags, struct target *t,
		struct err_text *e);

void target_close(struct target *t);

/*
 * target_open(pid, 0) and fn(t, out) in a forked child that has budget_ms
 * for both: the scan of every process (list, attach --all) goes on when
 * one process's files stall the kernel (visit.c).  out (out_len bytes,
 * fixed: no pointers into memory fn changes) is fn's result, copied back
 * when the child ended in time; what fn prints goes to the same stdout.
 * Returns TARGET_VISIT_DONE (fn returned 0), _STOP (fn returned non-zero),
 * _GONE (the process exited meanwhile), _STALLED (the child was killed at
 * the budget and left behind; out unchanged), or -errno (no child).
 */
enum { TARGET_VISIT_DONE, TARGET_VISIT_STOP, TARGET_VISIT_GONE, TARGET_VISIT_STALLED };
int target_visit_bounded(pid_t pid, int budget_ms,
			 int (*fn)(struct target *t, void *out), void *out, size_t out_len);

/*
 * The host name of t's UTS namespace (the pod's name under Kubernetes), as
 * uname(2) answers inside it, asked by a short-lived child (uts.c); without
 * CAP_SYS_ADMIN, the first line of /etc/hostname in t's root (what the
 * runtime wrote there at start).  t needs its root fd (target_open does it
 * always).  Returns 0 with out set (target text: escape it), -ESRCH when t
 * shares our UTS namespace, or -errno.
 */
int target_hostname(const struct target *t, char *out, size_t cap);

/*
 * Open read-only the file t maps at path (t's view, as t->maps gives it),
 * found inside t's root by confine_open (a plain file on a local file
 * system, symlinks followed inside the root), and only when it is the
 * file of the maps line: its inode is ino, its device dev where stat and
 * maps agree on devices (not overlayfs, btrfs, bcachefs).  A file renamed
 * over the path since it was mapped (a package upgrade, or a target's
 * plant) is never opened: -ESTALE, e naming both.  fd, or -errno with e
 * set (confine_open's vocabulary).  For t->maps.jvm_lib: jvm_lib_dev,
 * jvm_lib_ino.
 */
int target_open_mapped(const struct target *t, const char *path, dev_t dev,
		       uint64_t ino, struct err_text *e);

/* Name of a namespace type ("mnt", "net", ...). */
const char *target_ns_name(enum target_ns ns);

/* "HotSpot", "OpenJ9", "not a JVM" or "unknown (maps unreadable)". */
const char *target_kind_name(const struct target *t);

/*
 * The directory a HotSpot JVM keeps its temporary files in, as it names it:
 * "/tmp" before JDK 28; from JDK 28 on (and for a JVM of unknown version)
 * the directory of the hsperfdata file it maps, else the -XX:AltTempDir it
 * was started with when that is an absolute path, else "/tmp"
 * (JDK-8384557, docs/protocols.md A2a).  A relative
 * AltTempDir the JVM replaces by /tmp; an absolute one it keeps even when
 * the directory is missing or read-only (it only warns), which the caller
 * checks inside the JVM's root.  Points into t or at a literal.
 */
const char *target_hs_tmpdir(const struct target *t);

/* An AltTempDir jsym may hand on: absolute, short, printable ASCII without
 * blanks, and without what LD_PRELOAD lists and the agent's options (dir=)
 * would split at. */
bool target_plain_dir(const char *d);

/*
 * Where the symbol files of t go (the agent's, with no dir= of the user's,
 * and jsym map's), as the JVM names it: "/tmp" (perf reads
 * /tmp/perf-<pid>.map), unless the JVM runs with JDK 28's -XX:AltTempDir
 * and its /tmp is missing or read-only: then that directory.  jsym
 * resolve --pid looks there too.  Points into t or at a literal.
 */
const char *target_out_dir(const struct target *t);

/* "glibc", "musl" or "unknown". */
const char *target_libc_name(const struct target *t);

/*
 * True when the process still is the one target_open() saw (same start
 * time, not a zombie).  False when it exited.
 */
bool target_alive(const struct target *t);

/*
 * Read the maps again (t->maps), e.g. to see an agent another jsym just
 * loaded; as the JVM's uid when root may not (a sidecar without
 * CAP_SYS_PTRACE).  0 or -errno (t->maps unchanged).
 */
int target_reread_maps(struct target *t);

/*
 * True when the process has exited, or does within ms.  A process that is
 * exiting closes its files (its sockets reset) before it is a zombie, so a
 * caller that saw a connection die asks this before blaming anything else.
 */
bool target_gone_within(const struct target *t, int ms);

/* True when the process is stopped right now (SIGSTOP, a debugger). */
bool target_stopped(const struct target *t);

/*
 * The rest of the layer's entry (the confined open inside a target's root
 * is base.h's confine.h): entering its namespaces (ns.h), taking its ids (creds.h), the
 * JDK's version and what jsym makes of it (jdk_version.h).
 */
#include "creds.h"
#include "jdk_version.h"
#include "ns.h"

#endif
