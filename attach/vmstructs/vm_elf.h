/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vm_elf.h - exported symbols of a shared library file (libjvm.so).
 *
 * HotSpot exports its serviceability tables (gHotSpotVMStructs, ...) as
 * dynamic symbols; their addresses in a process are the library's load
 * base plus the symbol values read here.  The file comes from the target's
 * root and is untrusted: every header, offset and size is checked against
 * the file's size and small fixed limits before it is used.
 */
#ifndef JSYM_VM_ELF_H
#define JSYM_VM_ELF_H

#include <stdint.h>

#include "base.h"

#define VM_ELF_MAX_TABLE (64u << 20)    /* .dynsym or .dynstr larger: refused */

/*
 * Look up n symbol names in the .dynsym of the ELF64 little-endian file
 * open on fd, built for this jsym's machine (jsym_arch.h).  values[i] gets
 * the st_value of names[i] (0 when absent).  *load_vaddr gets the lowest PT_LOAD p_vaddr rounded down to its page (what
 * the first mapping at file offset 0 corresponds to).  Returns how many
 * names were found, or -errno with e set (-ENOEXEC: not such an ELF file,
 * or one of another architecture, e naming it and the jsym to run instead;
 * -EFBIG: a table past the limit).
 */
int vm_elf_lookup(int fd, const char *const *names, uint64_t *values, int n,
		  uint64_t *load_vaddr, struct err_text *e);

#endif
