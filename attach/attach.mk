# attach/attach.mk - the `jsym` CLI: target facts, namespaces, credentials,
# the HotSpot protocol, OpenJ9 dispatch, `jsym resolve` dispatch.
#
#   glibc-build/jsym   the CLI (links libcap for capability diagnosis)
#   musl-build/jsym    the same, static, without libcap (the capability
#                      hints then do not say whether we hold the capability)
#
# LOOKUP_SRCS (agent/lookup.mk, included before this fragment) brings
# `jsym resolve`.

ATTACH_SRCS := attach/steplog.c attach/errtext.c attach/proc.c attach/proc_opts.c attach/target.c \
	attach/inroot.c attach/ns.c attach/creds.c attach/hs_reply.c attach/hs_io.c attach/hotspot.c \
	attach/cli_util.c
OPENJ9_SRCS := attach/openj9.c attach/openj9_fs.c attach/openj9_net.c \
	attach/openj9_props.c attach/openj9_proto.c
ATTACH_CLI_SRCS := attach/main.c attach/cli_exec.c attach/cli_check.c attach/cli_list.c
JSYM_SRCS := $(ATTACH_SRCS) $(OPENJ9_SRCS) $(ATTACH_CLI_SRCS) $(LOOKUP_SRCS)

glibc-build/jsym: $(call obj_of,glibc,$(JSYM_SRCS))
	$(call msg,LD,$@)
	$(Q)$(CC_glibc) -o $@ $^ -lcap

musl-build/jsym: $(call obj_of,musl,$(JSYM_SRCS))
	$(call msg,LD,$@)
	$(Q)$(CC_musl) -static -o $@ $^

ALL_glibc += glibc-build/jsym
ALL_musl += musl-build/jsym
UNIT_SRCS += $(ATTACH_SRCS) $(OPENJ9_SRCS)
UNIT_LIBS += -lcap
