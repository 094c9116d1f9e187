# SPDX-License-Identifier: Apache-2.0
# attach/vmstructs/vmstructs.mk - `jsym map`: a HotSpot JVM's JIT symbols
# read from the outside (docs/map.md): libjvm.so's exported symbols
# (vm_elf), the serviceability tables as text (vm_tables_text), the
# layouts taken from them (vm_layout), code blobs (vm_blob), Java names
# (vm_names), the code-cache walk (vm_scan), the map written into the
# container (vm_write), --follow's rescans and journal (vm_follow), and the
# entry the CLI calls (vmstructs.h: vmstructs.c).
# Uses target and base, and agent/format's journal writer and its vmStructs
# reader (FORMAT_VM_SRCS: target memory, vm_mem; the tables, vm_tables),
# which the agent shares.

ATTACH_VMSTRUCTS_SRCS := $(addprefix attach/vmstructs/,vm_elf.c vm_tables_text.c vm_maps.c vm_jvm.c \
	vm_layout.c vm_blob.c vm_names.c vm_method.c vm_scan.c vm_write.c vm_follow.c vmstructs.c)
EXP_attach/vmstructs := -Iattach/vmstructs/include $(EXP_attach/proc) $(INC_agent/format)
INC_attach/vmstructs := -Iattach/vmstructs $(EXP_attach/vmstructs)
