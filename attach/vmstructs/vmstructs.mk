# SPDX-License-Identifier: Apache-2.0
# attach/vmstructs/vmstructs.mk - `jsym map`: a HotSpot JVM's JIT symbols
# read from the outside (docs/map.md): target memory (vm_mem), libjvm.so's
# exported symbols (vm_elf), the serviceability tables (vm_tables), the
# layouts taken from them (vm_layout), code blobs (vm_blob), Java names
# (vm_names), the code-cache walk (vm_scan), the map written into the
# container (vm_write), --follow's rescans and journal (vm_follow), and the
# entry the CLI calls (vmstructs.h: vmstructs.c).
# Uses target and base, and agent/format's journal writer.

ATTACH_VMSTRUCTS_SRCS := $(addprefix attach/vmstructs/,vm_mem.c vm_elf.c vm_tables.c vm_maps.c vm_jvm.c \
	vm_layout.c vm_blob.c vm_names.c vm_method.c vm_lines.c vm_scan.c vm_write.c vm_follow.c vmstructs.c)
EXP_attach/vmstructs := -Iattach/vmstructs/include $(EXP_attach/proc) $(INC_agent/format)
INC_attach/vmstructs := -Iattach/vmstructs $(EXP_attach/vmstructs)
