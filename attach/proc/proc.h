/* SPDX-License-Identifier: Apache-2.0 */
/*
 * proc.h - facts about a target process, parsed from /proc/<pid> files.
 *
 * Every parser takes a buffer and its length, never assumes a terminating
 * NUL, and treats the contents as hostile: a process controls its own
 * cmdline and environ, and a kernel we have not seen may add or reorder
 * fields.  Parsers return 0 or -errno and never print.  Reading the files is
 * done by target.c; these functions only look at bytes, so the unit tests
 * and the libFuzzer harness (tests/fuzz/fuzz_proc.c) can drive them.
 */
#ifndef JSYM_PROC_H
#define JSYM_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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

/*
 * Parse /proc/<pid>/stat: the state letter (field 3) and the start time in
 * clock ticks since boot (field 22).  Fields are counted after the LAST ')'
 * because the command name may contain ')' and spaces.  0 or -EPROTO.
 */
int proc_parse_stat(const char *buf, size_t len, char *state,
		    uint64_t *starttime);

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
 * Parse /proc/<pid>/maps.  Lines without a path, with a path of unexpected
 * shape, or truncated at the end of the buffer are skipped.  Always 0 (a
 * process without mappings of interest is simply not a JVM); -EINVAL only
 * for NULL arguments.
 */
int proc_parse_maps(const char *buf, size_t len, struct proc_maps_facts *mf);

/*
 * The kernel names a mapped file from the root of the process that *reads*
 * /proc/<pid>/maps (or, when that root cannot reach it, from the root of
 * the file's mount namespace), not from the target's own root.  They differ
 * for a JVM chrooted below its mount namespace's root (runc --no-pivot,
 * systemd's RootDirectory=) and for a JVM chrooted on jsym's own tree: maps
 * then says /srv/ct/lib/ld-musl-x86_64.so.1 where the JVM itself, and
 * everything jsym runs in its root, says /lib/ld-musl-x86_64.so.1.
 * `root` is readlink(/proc/<pid>/root) as the same reader sees it.  Rewrite
 * mf's paths (jvm_lib, loader, agent) that lie below `root` as paths from
 * it; "/" or "" changes nothing, and a path outside `root` (mapped before
 * the chroot), a memfd or one that would become empty stays as it is.
 * Returns how many paths were rewritten, -EINVAL for NULL arguments.
 */
int proc_maps_in_root(struct proc_maps_facts *mf, const char *root);

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

/*
 * Parse a NUL-separated argv (/proc/<pid>/cmdline).  Options are taken until
 * the main class, -jar FILE, -m/--module, or --: later words belong to the
 * application.  @argfile words are recorded in o->argfiles (the caller reads
 * them inside the target and hands them to proc_parse_argfile()).  The last
 * element may lack its NUL.  A JVM under a user-mode emulator (qemu-user,
 * binfmt_misc) has the emulator's words first: they are skipped up to the
 * java program's own.  Always 0 (-EINVAL for NULL arguments).
 */
int proc_parse_cmdline(const char *buf, size_t len, struct proc_jvm_opts *o);

/*
 * Parse the contents of an @argfile the java launcher expands (words split
 * by blanks and newlines, '…' and "…" quoting with backslash escapes inside
 * quotes, # comments to the end of the line) and apply its options like
 * proc_parse_cmdline(), up to a main class or -jar.  An @argfile's options
 * are applied after the command line's, so "last wins" across the two is
 * approximate.  Always 0 (-EINVAL for NULL arguments).
 */
int proc_parse_argfile(const char *buf, size_t len, struct proc_jvm_opts *o);

/*
 * Parse a NUL-separated environment (/proc/<pid>/environ): JAVA_TOOL_OPTIONS,
 * JDK_JAVA_OPTIONS and _JAVA_OPTIONS words are read like options; TMPDIR is
 * kept.  These are applied before the command line would be, so callers
 * parse environ first and cmdline second.  Always 0 (-EINVAL for NULL).
 */
int proc_parse_environ(const char *buf, size_t len, struct proc_jvm_opts *o);

/*
 * Parse a JDK `release` file: copy the JAVA_VERSION="..." value into ver
 * (at most cap-1 bytes) and return its major version (8 for "1.8.0_412",
 * 17 for "17.0.9"), or -ENOENT when absent, -EPROTO when malformed.
 */
int proc_parse_release(const char *buf, size_t len, char *ver, size_t cap);

/*
 * Directory of the JDK whose `release` file describes a libjvm path:
 * strip "/libjvm.so" and then the "server"/"client"/<arch>/"lib"/"jre"
 * components that JDK layouts put between it and the JDK home.  Writes a
 * NUL-terminated path to out; -ENAMETOOLONG or -EINVAL.
 */
int proc_jdk_home(const char *jvm_lib, char *out, size_t cap);

#endif
