/* vm_jvm.c - a HotSpot JVM opened for reading from the outside. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fdio.h"
#include "inroot.h"
#include "vm_elf.h"
#include "vm_jvm.h"

#define MAPS_MAX (32u << 20)

/* A hex number ending at a blank or `stop`; advances *p.  false if none. */
static bool hex_field(const char **p, const char *end, char stop, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int n = 0;

	while (s < end && n < 17) {
		char c = *s;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (d < 0)
			break;
		x = x << 4 | (uint64_t)d;
		s++;
		n++;
	}
	if (n == 0 || n > 16 || s >= end || (*s != stop && *s != ' '))
		return false;
	*v = x;
	*p = s + 1;
	return true;
}

static bool dec_field(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int n = 0;

	while (s < end && *s >= '0' && *s <= '9' && n < 20) {
		x = x * 10 + (uint64_t)(*s - '0');
		s++;
		n++;
	}
	if (n == 0)
		return false;
	*v = x;
	*p = s;
	return true;
}

int vm_maps_lib(const char *buf, size_t len, const char *path, struct vm_lib_span *out)
{
	const char *p = buf, *end = buf + len;
	size_t plen = strlen(path);
	bool based = false;

	memset(out, 0, sizeof(*out));
	out->lo = UINT64_MAX;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *s = p;
		const char *le = nl ? nl : end;
		uint64_t start, stop, off, dummy, inode;

		p = nl ? nl + 1 : end;
		/* start-end perms offset dev inode path */
		if (!hex_field(&s, le, '-', &start) || !hex_field(&s, le, ' ', &stop))
			continue;
		if (le - s < 5)
			continue;
		s += 5;         /* "r-xp " */
		if (!hex_field(&s, le, ' ', &off) || !hex_field(&s, le, ':', &dummy) ||
		    !hex_field(&s, le, ' ', &dummy) || !dec_field(&s, le, &inode))
			continue;
		while (s < le && *s == ' ')
			s++;
		if ((size_t)(le - s) != plen || memcmp(s, path, plen) != 0 || stop <= start)
			continue;
		if (start < out->lo)
			out->lo = start;
		if (stop > out->hi)
			out->hi = stop;
		if (off == 0 && !based) {
			out->base = start;
			out->inode = inode;
			based = true;
		}
		out->nmaps++;
	}
	return based ? 0 : -ENOENT;
}

static int find_lib(const struct target *t, struct vm_lib_span *span, struct err_text *e)
{
	char *buf = NULL;
	ssize_t n;
	int rc;

	if (!t->maps.jvm_lib[0])
		return err_set(e, -ENOENT, "no libjvm.so in the process's mappings: not a "
			       "HotSpot JVM (or its path is longer than jsym reads)");
	n = fdio_read_file_at(t->proc_fd, "maps", 0, 0, MAPS_MAX, &buf);
	if (n < 0)
		return err_set(e, (int)n, "cannot read the process's maps: %s",
			       strerror((int)-n));
	rc = vm_maps_lib(buf, (size_t)n, t->maps.jvm_lib, span);
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
	struct stat st;
	int fd, rc;

	if (t->root_fd < 0)
		return err_set(e, -EBADF, "the JVM's root directory was not opened");
	fd = inroot_open(t->root_fd, t->maps.jvm_lib, O_RDONLY | O_NONBLOCK | O_NOFOLLOW, 0, NULL);
	if (fd < 0)
		return err_set(e, fd, "cannot open %s inside the JVM's root: %s",
			       t->maps.jvm_lib, strerror(-fd));
	/* the file at that path now must be the one mapped */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_ino != span->inode) {
		close(fd);
		return err_set(e, -ESTALE, "%s inside the JVM's root is not the file the "
			       "JVM mapped (replaced since it started?)", t->maps.jvm_lib);
	}
	rc = vm_elf_lookup(fd, vm_table_symbol_names, sym, VS_COUNT, &vaddr, e);
	close(fd);
	if (rc < 0)
		return rc;
	for (int i = 0; i < VS_COUNT; i++)
		if (sym[i])
			sym[i] += span->base - vaddr;
	return 0;
}

static int access_error(const struct target *t, int rc, struct err_text *e)
{
	if (rc == -EPERM || rc == -EACCES)
		return err_set(e, -EPERM, "cannot read the memory of %d: %s (needs "
			       "CAP_SYS_PTRACE, or the JVM's uid %u where "
			       "kernel.yama.ptrace_scope is 0)", (int)t->pid,
			       strerror(-rc), (unsigned)t->st.uid[1]);
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
	if (rc == -ENOSYS) {
		j->proc.mem_fd = openat(t->proc_fd, "mem", O_RDONLY | O_CLOEXEC);
		rc = j->proc.mem_fd < 0 ? -errno : 0;
		j->mem.fatal = 0;
		if (rc == 0)
			rc = vm_read_fresh(&j->mem, sym[VS_STRUCTS], &probe, sizeof(probe));
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
