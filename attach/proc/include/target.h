/* SPDX-License-Identifier: Apache-2.0 */
/*
 * target.h - the entry of attach/proc, the one header of the folder that
 * the layers above see (attach/proc/include/), declaring all it offers:
 * the facts parsed from /proc/<pid> and the parsers of them the layers
 * above use; the target itself; taking the JVM's ids (creds); entering
 * its namespaces (ns); what jsym makes of the JDK's version.  The other
 * parsers (proc.h, jdk_version.h) stay inside the folder.  The confined
 * open inside a target's root is base.h's (common/confine.h).
 *
 * Everything jsym learns about a target before touching it:
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
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base.h"

/* ---- facts parsed from /proc/<pid> (proc.c, proc_ct.c, proc_opts.c) ---- */

#define PROC_MAX_GROUPS 64

/* /proc/<pid>/status, as seen from the reader's user namespace. */
struct proc_status {
	uid_t uid[4];           /* Uid: real, effective, saved, filesystem */
	gid_t gid[4];           /* Gid: same order */
	pid_t nspid;            /* NStgid: last value (pid in its own pid ns);
	                           the Tgid: value when NStgid is missing */
	int ns_levels;          /* number of NStgid values (0: line missing) */
	pid_t tgid;             /* Tgid: (reader's pid ns) */
	pid_t pid;              /* Pid: differs from tgid for a thread */
	pid_t ppid;             /* PPid: (0: none or not visible) */
	bool has_sigcgt;
	uint64_t sigcgt;        /* SigCgt: mask of caught signals */
	int ngroups;            /* Groups: supplementary groups, up to
	                           PROC_MAX_GROUPS; -1 when the list was longer */
	gid_t groups[PROC_MAX_GROUPS];
	char name[64];          /* Name: (truncated, never trusted) */
};

/*
 * Parse a status file.  Returns 0, or -EPROTO when Uid:, Gid: or a pid
 * (Tgid:/NStgid:) is missing or malformed.  Unknown lines are ignored.
 */
int proc_parse_status(const char *buf, size_t len, struct proc_status *st);

/* True when the SigCgt mask says signal `sig` (1..64) is caught. */
bool proc_catches_signal(const struct proc_status *st, int sig);

enum proc_jvm_kind { PROC_NOT_JVM = 0, PROC_HOTSPOT, PROC_OPENJ9 };
enum proc_libc { PROC_LIBC_UNKNOWN = 0, PROC_LIBC_GLIBC, PROC_LIBC_MUSL };

/* What the mappings say (the file names are the target's view once
 * proc_maps_in_root has re-rooted them; proc_parse_maps alone gives the
 * reader's). */
struct proc_maps_facts {
	enum proc_jvm_kind kind;  /* libj9vm*.so -> OpenJ9 (it also maps a
	                             libjvm.so shim), else libjvm.so -> HotSpot */
	enum proc_libc libc;      /* libc.so.6 (or glibc < 2.34's
	                             libc-2.NN.so) -> glibc; ld-musl-* or
	                             libc.musl-* -> musl */
	char jvm_lib[512];        /* path of libjvm.so / libj9vm*.so, "" if
	                             unknown or too long */
	dev_t jvm_lib_dev;        /* its maps line's device (makedev of the
	                             hex major:minor) and inode: the file */
	uint64_t jvm_lib_ino;     /* mapped (target_open_mapped checks them) */
	char jvm_lib_range[40];   /* that line's "start-end" (hex, as maps
	                             writes it): its map_files/ name; "" if
	                             malformed */
	char loader[256];         /* the dynamic loader the process runs
	                             under: ld-linux-*.so.* or glibc < 2.34's
	                             ld-2.NN.so (glibc), or musl's
	                             libc (ld-musl-*, libc.musl-*, or a libc.so
	                             in a *musl* directory, as Debian's musl
	                             package installs it); "" if none */
	char agent[512];          /* a jsym agent already mapped: a file
	                             named libjsym-agent.so, or a memfd
	                             "/memfd:jsym-agent..." (" (deleted)"
	                             dropped); "" if none or too long */
	bool agent_deleted;       /* that mapping's file was deleted */
	char perfdata_dir[256];   /* HotSpot's temp dir, from the perf data
	                             file it maps: <dir>/hsperfdata_<user>/<pid>
	                             gives <dir> (/tmp, or JDK 28's
	                             AltTempDir); "" if none mapped, deleted or
	                             too long */
};

/*
 * The container id a runtime (Docker, containerd, CRI-O, podman) gave the
 * cgroup path `cgroup` (as /proc/<pid>/cgroup shows it, without "N:ctrl:"),
 * shortened to its first 12 hex digits as `docker ps` and `crictl ps` show
 * it, into out (cap >= PROC_CT_ID_LEN + 1).  The deepest component that is
 * a 64-hex id, bare or as docker-, cri-containerd-, crio-, libpod- or
 * containerd-<id>[.scope], counts; conmon's cgroups do not.  Returns 0,
 * -ENOENT (no id: a host process, a cgroup namespace showing "/"), or
 * -EINVAL.
 */
#define PROC_CT_ID_LEN 12
int proc_container_id(const char *cgroup, char *out, size_t cap);

/*
 * The cgroup path of a /proc/<pid>/cgroup text (n bytes, not terminated):
 * its last line, without "N:ctrl:" when that is "0::" (cgroup v2's, or
 * the unified line of a hybrid v1 host), into out (cut at cap - 1).
 * Returns 0, or -ENOENT when the text is empty.
 */
int proc_cgroup_path(const char *text, size_t n, char *out, size_t cap);

/*
 * Whether a target is in another container than jsym.  pid_ns and mnt_ns:
 * 1 when the target's namespace differs from jsym's, 0 when it is jsym's,
 * -1 when they could not be compared (the /proc/<pid>/ns links need
 * CAP_SYS_PTRACE or the target's uid: a sidecar with the runtime's default
 * capabilities).  A known difference says yes, both known the same say
 * no; else the cgroup paths decide: yes when the target's names a
 * container id (proc_container_id) that self_cgroup, jsym's own, does not.
 */
bool proc_other_container(int pid_ns, int mnt_ns, const char *cgroup,
			  const char *self_cgroup);

#define PROC_MAX_ARGFILES 4

/* Attach-relevant JVM options seen in cmdline, environ and @argfiles. */
struct proc_jvm_opts {
	bool disable_attach;      /* -XX:+DisableAttachMechanism (last wins) */
	bool xrs;                 /* -Xrs: no SIGQUIT handler */
	bool start_listener;      /* -XX:+StartAttachListener */
	bool environ_read;        /* proc_parse_environ() saw the environment */
	char tmpdir[256];         /* TMPDIR= from environ ("" if unset/too long) */
	char attach_dir[256];     /* OpenJ9 -Dcom.ibm.tools.attach.directory= */
	char alt_tmpdir[256];     /* HotSpot -XX:AltTempDir= (JDK 28+, last
	                             wins; "" if unset, empty or too long) */
	int n_argfiles;           /* @argfiles named on the command line */
	char argfiles[PROC_MAX_ARGFILES][256]; /* their paths (target's view;
	                             relative ones are from its cwd) */
};

/* ---- the target (target.c, visit.c, uts.c) ------------------------------ */

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
 * Open read-only the file t maps at path (t's view, as t->maps gives it).
 * For t->maps.jvm_lib, first through /proc/PID/map_files/<range>, the
 * mapping itself (no lookup of a name in t's root; needs CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE), its file system checked as confine_open's.
 * Else found inside t's root by confine_open (a plain file on a local file
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

/* ---- taking the JVM's ids (creds.c) ------------------------------------- */

/*
 * Act as the JVM's user, and explain missing privileges.
 *
 * HotSpot accepts a trigger file and a socket peer only from its own euid
 * (or root on JDK 11+) as seen in its user namespace (docs/protocols.md A2, A4, C4),
 * so jsym creates files and connects with the target's host-side euid/egid.
 * The ordering rules of C5 apply: everything that needs capabilities
 * (opening /proc dirfds, setns, chown) happens before creds_become(),
 * because euid 0 -> non-zero clears the effective capability set.
 */

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

/* ---- entering its namespaces (ns.c) -------------------------------------- */

/*
 * Reaching a target's files and entering its namespaces.
 *
 * Call these only in a forked, single-threaded child (setns(mnt) fails with
 * EINVAL in a multithreaded process, and an entered namespace must not leak
 * into the CLI).  All paths inside the target are resolved relative to the
 * root dirfd that target_open() opened before anything was entered.
 */

#define NS_ENTER_MNT 1u
#define NS_ENTER_NET 2u         /* OpenJ9: its connect-back is to loopback */
#define NS_ENTER_IPC 4u         /* OpenJ9: SysV semaphores are per ipc ns */
#define NS_ENTER_PID 8u         /* memfd hand-over: only children forked
                                   afterwards are in it (protocols.md E5) */

struct ns_result {
	bool mnt_entered;       /* setns(mnt) done */
	bool mnt_fallback;      /* refused (EPERM, EINVAL): use root/cwd dirfds */
	bool net_entered, ipc_entered;
	bool pid_entered;       /* the next fork() lands in the JVM's pid ns */
	bool root_entered;      /* chrooted into the JVM's root, which was not
	                           where mnt left us */
};

/*
 * Enter the namespaces in `which` that differ from ours (same ns: nothing to
 * do).  mnt: EPERM (a sidecar without CAP_SYS_ADMIN) and EINVAL (a caller
 * with other threads: any process run by qemu-user has one) are not errors:
 * the caller goes on with the /proc/<pid>/root and cwd dirfds, res->mnt_fallback
 * says so and a step is logged.  Every other failure, and any failure for
 * net/ipc, returns -errno with e naming the namespace, the reason and the
 * remedy.  A namespace whose file could not be opened is an error too (we
 * cannot know whether it differs).  pid: the caller stays where it is; only
 * the children it forks afterwards are in the JVM's pid namespace.  mnt,
 * entered or the same as ours: when the JVM's own root (/proc/<pid>/root)
 * is not where that leaves us (a chrooted JVM, or jsym itself in a chroot),
 * chroot into it (res->root_entered); refused: -errno with e naming
 * CAP_SYS_CHROOT.
 */
int ns_enter(const struct target *t, unsigned which, struct ns_result *res,
	     const struct attach_log *log, struct err_text *e);

/*
 * As many of `which` (ipc, net, pid) as we may: each is entered on its
 * own, and one refused with EPERM (no CAP_SYS_ADMIN: a DaemonSet with
 * hostPID) is skipped unless it is in `required`.  *pid_entered says
 * whether the next fork() lands in the JVM's pid namespace.  0 or -errno
 * with e set (e is empty after a skip).
 */
int ns_enter_allowed(const struct target *t, unsigned which, unsigned required,
		     bool *pid_entered, struct err_text *e);

/*
 * The JVM's files as its "/" for code that runs inside (a probe, a
 * loader): its mount namespace, or, refused, a chroot into its root dir;
 * then cwd "/".  0 or -errno with e naming CAP_SYS_CHROOT.
 */
int ns_enter_root(const struct target *t, struct err_text *e);

/* ---- the JDK's version and what jsym makes of it (jdk_version.c) --------- */

enum jdk_verdict {
	JDK_AGENT_OK = 0,
	JDK_AGENT_WARN,         /* load, but say why */
	JDK_AGENT_REFUSE,       /* a known crash: only with --force */
};

/*
 * What jsym says about loading its agent (which enables CompiledMethodLoad
 * and generates the events of the code already compiled) into a HotSpot of
 * this version (JAVA_VERSION form, "" when unknown; major from the same
 * source, 0 unknown).  why (if not NULL) gets the reason, with the bug's id
 * and the update that fixed it, when the verdict is not OK ("" when OK).
 */
enum jdk_verdict jdk_agent_verdict(int major, const char *version,
				   struct err_text *why);

#endif
