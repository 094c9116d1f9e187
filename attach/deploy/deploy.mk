# attach/deploy/deploy.mk - getting the agent into a target: finding both
# builds, placing them in the container (or a memfd), picking the libc by a
# probe run under the container's own loader.  Uses target and base, and
# agent/format for the agent's probe ABI.
#
#   {glibc,musl}-build/jsym-probe   the in-container probe (jsym_probe.c)

ATTACH_DEPLOY_SRCS := attach/deploy/builds.c attach/deploy/place.c attach/deploy/pick.c \
	attach/deploy/deploy.c attach/deploy/enter.c attach/deploy/memfd.c \
	attach/deploy/cgroup.c
INC_attach/deploy := -Iattach/deploy $(INC_attach/target) $(INC_agent/format)

# The glibc probe must run on any glibc the agent runs on (>= 2.17): the
# agent's compat header, its own _start (no crt1.o), immediate binding.
$(B_glibc)/obj/attach/deploy/jsym_probe.o_CFLAGS += -DJSYM_PROBE_OWN_START \
	-include $(ROOT)/agent/jvm/glibc_compat.h
$(B_glibc)/jsym-probe: $(B_glibc)/obj/attach/deploy/jsym_probe.o
	$(call msg,LD,$@)
	$(Q)$(CC_glibc) -nostartfiles -Wl,-z,now -o $@ $^

$(B_musl)/jsym-probe: $(B_musl)/obj/attach/deploy/jsym_probe.o
	$(call msg,LD,$@)
	$(Q)$(CC_musl) -Wl,-z,now -o $@ $^

ALL_glibc += $(B_glibc)/jsym-probe
ALL_musl += $(B_musl)/jsym-probe
