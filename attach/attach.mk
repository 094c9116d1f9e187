# attach/attach.mk - the `jsym` CLI: target facts, namespaces, credentials,
# the HotSpot protocol, OpenJ9 dispatch, `jsym resolve` dispatch.
#
#   glibc-build/jsym   the CLI (links libcap for capability diagnosis)
#   musl-build/jsym    the same, static, without libcap (the capability
#                      hints then do not say whether we hold the capability)
#
# Variables used from other fragments:
#   LOOKUP_SRCS   (agent/lookup.mk) linked for `jsym resolve` when all exist
#   attach/openj9*.c  the OpenJ9 client: linked when committed to git

ATTACH_SRCS := attach/steplog.c attach/errtext.c attach/proc.c attach/proc_opts.c attach/target.c \
	attach/ns.c attach/creds.c attach/hs_reply.c attach/hs_io.c attach/hotspot.c \
	attach/cli_util.c
ATTACH_CLI_SRCS := attach/main.c attach/cli_exec.c attach/cli_check.c attach/cli_list.c

# `jsym resolve` only when every source of agent/lookup.mk is present.
JSYM_RESOLVE_SRCS := $(if $(LOOKUP_SRCS),$(if $(filter-out $(wildcard $(LOOKUP_SRCS)),$(LOOKUP_SRCS)),,$(LOOKUP_SRCS)))
# The OpenJ9 client only once its engineer committed it (a half-written
# file in the work tree must not break jsym).
JSYM_OPENJ9_SRCS := $(filter-out %_main.c,$(shell git ls-files 'attach/openj9*.c' 2>/dev/null))
JSYM_SRCS := $(ATTACH_SRCS) $(ATTACH_CLI_SRCS) $(JSYM_OPENJ9_SRCS) $(JSYM_RESOLVE_SRCS)

JSYM_DEFS := $(if $(JSYM_RESOLVE_SRCS),-DJSYM_HAVE_RESOLVE) \
	$(if $(filter attach/openj9.c,$(JSYM_OPENJ9_SRCS)),-DJSYM_HAVE_OPENJ9)
$(foreach l,$(LIBCS),$(foreach s,attach/main.c attach/cli_exec.c,\
	$(eval $(call obj_of,$(l),$(s))_CFLAGS += $(JSYM_DEFS))))
# A -D change must rebuild the objects that test it.
$(call obj_of,glibc,attach/main.c attach/cli_exec.c) \
$(call obj_of,musl,attach/main.c attach/cli_exec.c): attach/attach.mk

glibc-build/jsym: $(call obj_of,glibc,$(JSYM_SRCS))
	$(call msg,LD,$@)
	$(Q)$(CC_glibc) -o $@ $^ -lcap

musl-build/jsym: $(call obj_of,musl,$(JSYM_SRCS))
	$(call msg,LD,$@)
	$(Q)$(CC_musl) -static -o $@ $^

ALL_glibc += glibc-build/jsym
ALL_musl += musl-build/jsym
UNIT_SRCS += $(ATTACH_SRCS)
UNIT_LIBS += -lcap
