/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vm_jvm.h - a HotSpot JVM opened for reading from the outside.
 *
 * vm_jvm_open() finds libjvm.so in the target's mappings, reads its dynamic
 * symbol table from the file inside the target's root (the very inode that
 * is mapped), and reads the serviceability tables from the target's memory
 * with process_vm_readv (or /proc/<pid>/mem).  Nothing is written to the
 * target, no signal is sent, nothing is loaded: the JVM cannot tell.
 */
#ifndef JSYM_VM_JVM_H
#define JSYM_VM_JVM_H

#include <stdbool.h>
#include <stdint.h>

#include "base.h"
#include "target.h"
#include "vm_mem.h"
#include "vm_tables.h"

struct vm_jvm {
	struct vm_proc proc;
	struct vm_mem mem;
	struct vm_tables tables;
	uint64_t lib_base;      /* load base of libjvm.so */
	uint64_t lib_lo, lib_hi;        /* its mapped range */
	bool name_thread;       /* a snapshot names methods in a second thread
	                           while it reads on (a live process; the unit
	                           tests and fuzzers keep to one) */
};

/* Where a library is mapped, from /proc/<pid>/maps text. */
struct vm_lib_span {
	uint64_t base;          /* start of the mapping at file offset 0 */
	uint64_t lo, hi;        /* lowest start, highest end of its mappings */
	uint64_t inode;
	int nmaps;
};

/*
 * Find the mappings of `path` in maps text buf[len] (hostile: malformed
 * lines are skipped); a line of path " (deleted)" counts (the inode tells
 * the mapped file from what the path names now).  0, -ENOENT (not mapped,
 * or no mapping at offset 0).
 */
int vm_maps_lib(const char *buf, size_t len, const char *path, struct vm_lib_span *out);

/*
 * The same for a path as the target names it from its root (target.h
 * maps.jvm_lib, re-rooted for a chrooted JVM): maps names files from our
 * root, so below a root other than "/" (target.h root_path, readlink of
 * /proc/<pid>/root) the library is looked for as root + path first, then
 * as path (a file mapped before the chroot, outside it).  0 or -ENOENT.
 */
int vm_maps_lib_in_root(const char *buf, size_t len, const char *root, const char *path,
			struct vm_lib_span *out);

/*
 * Open t (target_open with TARGET_FDS; a HotSpot JVM) for reading.
 * Returns 0, or -errno with e set: -EPERM (no ptrace access: the message
 * says which capability or uid is needed), -ENOENT (no libjvm.so or no
 * tables), -EPROTO (tables jsym does not trust).  Close with vm_jvm_close()
 * (also after a failure).
 */
int vm_jvm_open(const struct target *t, struct vm_jvm *j, struct err_text *e);
void vm_jvm_close(struct vm_jvm *j);

#endif
