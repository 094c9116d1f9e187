/* SPDX-License-Identifier: Apache-2.0 */
/*
 * proc.h - the parsers of a target's /proc/<pid> files, inside attach/proc
 * (the facts' types, and the parsers the layers above use, are the entry's,
 * target.h).
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

#include "target.h"       /* the facts' types (struct proc_status, ...) */

/*
 * Parse /proc/<pid>/stat: the state letter (field 3) and the start time in
 * clock ticks since boot (field 22).  Fields are counted after the LAST ')'
 * because the command name may contain ')' and spaces.  0 or -EPROTO.
 */
int proc_parse_stat(const char *buf, size_t len, char *state,
		    uint64_t *starttime);

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
