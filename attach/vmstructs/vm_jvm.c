/* SPDX-License-Identifier: Apache-2.0 */
/* vm_jvm.c - a HotSpot JVM opened for reading from the outside. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "target.h"
#include "vm_elf.h"
#include "vm_jvm.h"

#define MAPS_MAX (32u << 20)

static int find_lib(const struct target *t, struct vm_lib_span *span, struct err_text *e)
{
	char *buf = NULL;
	ssize_t n;
	int rc;

	if (!t->maps.jvm_lib[0])
		return err_set(e, -ENOENT, "no libjvm.so in the process's mappings: not a "
			       "HotSpot JVM (or its path is longer than jsym reads)");
	n = confine_proc_read(t->proc_fd, "maps", MAPS_MAX, &buf);
	if ((n == -EACCES || n == -EPERM) && geteuid() != t->st.uid[1]) {
		/* no CAP_SYS_PTRACE: as the JVM's own uid (as target_open did) */
		struct creds_saved sv;

		if (creds_become(t->st.uid[1], t->st.gid[1], NULL, -1, &sv, NULL) == 0) {
			n = confine_proc_read(t->proc_fd, "maps", MAPS_MAX, &buf);
			if (creds_restore(&sv) != 0) {
				free(buf);
				return err_set(e, -EPERM, "cannot switch back from the JVM's uid");
			}
		}
	}
	if (n < 0)
		return err_set(e, (int)n, "cannot read the process's maps: %s",
			       strerror((int)-n));
	rc = vm_maps_lib_in_root(buf, (size_t)n, t->root_path, t->maps.jvm_lib, span);
	free(buf);
	if (rc)
		return err_set(e, rc, "%s is not mapped from its start (offset 0)",
			       t->maps.jvm_lib);
	return 0;
}

static int lookup_symbols(const struct target *t, const struct vm_lib_span *span,
			  uint64_t sym[VS_COUNT], struct err_text *e)
{
	uint64_t vaddr = 0;
	int fd, rc;

	/* the mapped file (inode and device of the maps line just read), a
	 * plain file on a local file system, or nothing is opened: a device,
	 * FIFO or other library put at the path since the JVM mapped it is
	 * refused */
	fd = target_open_mapped(t, t->maps.jvm_lib, t->maps.jvm_lib_dev, span->inode, e);
	if (fd < 0)
		return fd;
	rc = vm_elf_lookup(fd, vm_table_symbol_names, sym, VS_COUNT, &vaddr, e);
	close(fd);
	if (rc < 0)
		return rc;
	for (int i = 0; i < VS_COUNT; i++)
		if (sym[i])
			sym[i] += span->base - vaddr;
	return 0;
}

/*
 * Without CAP_SYS_PTRACE (a sidecar with Docker's default capabilities),
 * the JVM's own uid may read its memory: /proc/<pid>/mem is checked when it
 * is opened, against the fsuid and the effective capabilities, so it is
 * opened as the JVM's euid/egid (seteuid clears the effective set) and read
 * afterwards as ourselves.  Returns the fd or -errno.
 */
static int open_mem_as_owner(const struct target *t)
{
	struct creds_saved sv;
	int fd, rc = creds_become(t->st.uid[1], t->st.gid[1], NULL, -1, &sv, NULL);

	if (rc)
		return rc;
	fd = confine_proc(t->proc_fd, "mem", O_RDONLY);
	rc = fd;
	if (creds_restore(&sv) != 0) {
		/* cannot happen after a successful become; never go on half-switched */
		if (fd >= 0)
			close(fd);
		return -EPERM;
	}
	return rc;
}

static int access_error(const struct target *t, int rc, struct err_text *e)
{
	char hint[256];

	if (rc == -EPERM || rc == -EACCES)
		return err_set(e, -EPERM, "cannot read the memory of %d: %s %s", (int)t->pid,
			       strerror(-rc), creds_hint(CREDS_PROC_READ, hint, sizeof(hint)));
	if (rc == -ESRCH)
		return err_set(e, rc, "%d exited", (int)t->pid);
	return err_set(e, rc, "cannot read the memory of %d: %s", (int)t->pid,
		       strerror(-rc));
}

int vm_jvm_open(const struct target *t, struct vm_jvm *j, struct err_text *e)
{
	struct vm_lib_span span;
	uint64_t sym[VS_COUNT], probe;
	int rc;

	memset(j, 0, sizeof(*j));
	j->proc.pid = t->pid;
	j->proc.mem_fd = -1;
	rc = vm_mem_init(&j->mem, vm_read_process, &j->proc, true);
	if (rc)
		return err_set(e, rc, "out of memory");
	j->mem.readv = vm_readv_process;
	j->name_thread = true;
	rc = find_lib(t, &span, e);
	if (rc == 0)
		rc = lookup_symbols(t, &span, sym, e);
	if (rc)
		return rc;
	j->lib_base = span.base;
	j->lib_lo = span.lo;
	j->lib_hi = span.hi;
	/* process_vm_readv refused by seccomp: /proc/<pid>/mem does the same */
	rc = vm_read_fresh(&j->mem, sym[VS_STRUCTS], &probe, sizeof(probe));
	if (rc == -ENOSYS || rc == -EPERM) {
		int fd = confine_proc(t->proc_fd, "mem", O_RDONLY);

		rc = fd < 0 ? fd : 0;
		if ((rc == -EPERM || rc == -EACCES) && geteuid() != t->st.uid[1]) {
			fd = open_mem_as_owner(t);
			rc = fd < 0 ? fd : 0;
		}
		if (fd >= 0) {
			j->proc.mem_fd = fd;
			j->mem.fatal = 0;
			rc = vm_read_fresh(&j->mem, sym[VS_STRUCTS], &probe, sizeof(probe));
		}
	}
	if (rc)
		return access_error(t, rc, e);
	return vm_tables_read(&j->mem, sym, &j->tables, e);
}

void vm_jvm_close(struct vm_jvm *j)
{
	vm_tables_free(&j->tables);
	vm_mem_free(&j->mem);
	if (j->proc.mem_fd >= 0)
		close(j->proc.mem_fd);
	j->proc.mem_fd = -1;
}
