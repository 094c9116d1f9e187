# SPDX-License-Identifier: Apache-2.0
# attach/cli/cli.mk - the `jsym` command line: one file per command
# (attach, exec, list, map, resolve, stacks) and the help texts.  The top layer:
# uses the attach use case (attach/attaching) and what it exports (run,
# the protocols, deploy, vmstructs, target, base), and the lookup library
# for `jsym resolve` and `jsym stacks`.
#
#   glibc-build/jsym   the CLI (links libcap for capability diagnosis)
#   musl-build/jsym    the same, static, without libcap (the capability
#                      hints then do not say whether we hold the capability)

ATTACH_CLI_SRCS := attach/cli/main.c attach/cli/cli_commands.c attach/cli/cli_exec.c attach/cli/cli_attach.c attach/cli/cli_attach_print.c \
	attach/cli/cli_list.c attach/cli/cli_util.c \
	attach/cli/cli_resolve.c attach/cli/cli_resolve_files.c attach/cli/cli_stacks.c attach/cli/cli_map.c attach/cli/cli_map_follow.c
INC_attach/cli := -Iattach/cli $(EXP_attach/attaching) $(EXP_attach/lookup)

# Everything below the CLI: what the unit runner links too.
ATTACH_LIB_SRCS := $(ATTACH_BASE_SRCS) $(ATTACH_PROC_SRCS) $(ATTACH_HOTSPOT_SRCS) \
	$(ATTACH_OPENJ9_SRCS) $(ATTACH_DEPLOY_SRCS) $(ATTACH_RUN_SRCS) \
	$(ATTACH_VMSTRUCTS_SRCS) $(ATTACH_ATTACHING_SRCS)
JSYM_SRCS := $(COMMON_SRCS) $(ATTACH_LIB_SRCS) $(ATTACH_CLI_SRCS) $(LOOKUP_LIB_SRCS) $(FORMAT_WRITER_SRCS) $(FORMAT_NAME_SRCS) \
	$(FORMAT_VM_SRCS)

$(B_glibc)/jsym: $(call obj_of,glibc,$(JSYM_SRCS))
	$(call msg,LD,$@)
	$(Q)$(CC_glibc) -o $@ $^ -lcap -pthread

$(B_musl)/jsym: $(call obj_of,musl,$(JSYM_SRCS))
	$(call msg,LD,$@)
	$(Q)$(CC_musl) -static -o $@ $^ -pthread

ALL_glibc += $(B_glibc)/jsym
ALL_musl += $(B_musl)/jsym
UNIT_SRCS += $(ATTACH_LIB_SRCS) attach/cli/cli_util.c attach/cli/cli_attach_print.c
UNIT_LIBS += -lcap
