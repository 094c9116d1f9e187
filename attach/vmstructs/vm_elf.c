/* SPDX-License-Identifier: Apache-2.0 */
/* vm_elf.c - exported symbols of a shared library file (libjvm.so). */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsym_arch.h"
#include "vm_elf.h"

static int read_at(int fd, uint64_t size, uint64_t off, void *buf, size_t n)
{
	ssize_t got;

	if (off > size || n > size - off)
		return -ENOEXEC;
	got = pread(fd, buf, n, (off_t)off);
	if (got < 0)
		return -errno;
	return (size_t)got == n ? 0 : -ENOEXEC;
}

static void *read_table(int fd, uint64_t size, uint64_t off, uint64_t n, int *rc)
{
	void *p;

	if (n > VM_ELF_MAX_TABLE) {
		*rc = -EFBIG;
		return NULL;
	}
	p = malloc(n + 1);
	if (!p) {
		*rc = -ENOMEM;
		return NULL;
	}
	*rc = read_at(fd, size, off, p, n);
	if (*rc) {
		free(p);
		return NULL;
	}
	((char *)p)[n] = '\0';
	return p;
}

static int load_base(int fd, uint64_t size, const Elf64_Ehdr *eh, uint64_t *out)
{
	uint64_t low = UINT64_MAX;

	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum > 4096)
		return -ENOEXEC;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;
		int rc = read_at(fd, size, eh->e_phoff + (uint64_t)i * sizeof(ph), &ph,
				 sizeof(ph));

		if (rc)
			return rc;
		if (ph.p_type == PT_LOAD && ph.p_vaddr < low)
			low = ph.p_vaddr;
	}
	if (low == UINT64_MAX)
		return -ENOEXEC;
	*out = low & ~(uint64_t)0xfff;
	return 0;
}

int vm_elf_lookup(int fd, const char *const *names, uint64_t *values, int n,
		  uint64_t *load_vaddr, struct err_text *e)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sym = { 0 }, str;
	struct stat st;
	Elf64_Sym *syms = NULL;
	char *strs = NULL;
	uint64_t count;
	int rc, found = 0;
	bool have = false;

	memset(values, 0, sizeof(*values) * (size_t)n);
	if (fstat(fd, &st) != 0)
		return err_set(e, -errno, "cannot stat libjvm.so: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return err_set(e, -ENOEXEC, "libjvm.so is not a regular file");
	rc = read_at(fd, (uint64_t)st.st_size, 0, &eh, sizeof(eh));
	if (rc == 0 && (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
			eh.e_ident[EI_DATA] != ELFDATA2LSB ||
			eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum > 65000))
		rc = -ENOEXEC;
	if (rc == 0 && eh.e_machine != JSYM_ELF_MACHINE)
		return jsym_arch_mismatch(e, -ENOEXEC, eh.e_machine);
	if (rc == 0)
		rc = load_base(fd, (uint64_t)st.st_size, &eh, load_vaddr);
	for (unsigned i = 0; rc == 0 && i < eh.e_shnum && !have; i++) {
		rc = read_at(fd, (uint64_t)st.st_size, eh.e_shoff + (uint64_t)i * sizeof(sym),
			     &sym, sizeof(sym));
		have = rc == 0 && sym.sh_type == SHT_DYNSYM;
	}
	if (rc == 0 && (!have || sym.sh_link >= eh.e_shnum || sym.sh_entsize != sizeof(Elf64_Sym)))
		rc = -ENOEXEC;
	if (rc == 0)
		rc = read_at(fd, (uint64_t)st.st_size, eh.e_shoff + (uint64_t)sym.sh_link *
			     sizeof(str), &str, sizeof(str));
	if (rc == 0 && str.sh_type != SHT_STRTAB)
		rc = -ENOEXEC;
	if (rc == 0)
		syms = read_table(fd, (uint64_t)st.st_size, sym.sh_offset, sym.sh_size, &rc);
	if (rc == 0)
		strs = read_table(fd, (uint64_t)st.st_size, str.sh_offset, str.sh_size, &rc);
	count = rc == 0 ? sym.sh_size / sizeof(Elf64_Sym) : 0;
	for (uint64_t i = 0; i < count; i++) {
		const char *name;

		if (syms[i].st_name >= str.sh_size || syms[i].st_shndx == SHN_UNDEF)
			continue;
		name = strs + syms[i].st_name;  /* strs[sh_size] is NUL */
		for (int k = 0; k < n; k++) {
			if (!values[k] && !strcmp(name, names[k])) {
				values[k] = syms[i].st_value;
				found++;
			}
		}
	}
	free(syms);
	free(strs);
	if (rc == -ENOEXEC)
		return err_set(e, rc, "libjvm.so is not a readable " JSYM_ARCH_NAME " ELF library "
			       "with a dynamic symbol table");
	if (rc == -EFBIG)
		return err_set(e, rc, "libjvm.so's symbol table is larger than %u MiB: "
			       "refusing", VM_ELF_MAX_TABLE >> 20);
	if (rc)
		return err_set(e, rc, "cannot read libjvm.so: %s", strerror(-rc));
	return found;
}
