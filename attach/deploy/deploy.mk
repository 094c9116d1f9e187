# SPDX-License-Identifier: Apache-2.0
# attach/deploy/deploy.mk - getting the agent into a target: finding both
# builds, placing them in the container (or a memfd), picking the libc by a
# probe run under the container's own loader.  Uses target and base, and
# agent/format for the agent's probe ABI.
#
#   {glibc,musl}-build/jsym-probe   the in-container probe (jsym_probe.c)

HOLDER_BIN_SRC := glibc-build/gen/memfd_holder_bin.c
ATTACH_DEPLOY_SRCS := attach/deploy/builds.c attach/deploy/place.c attach/deploy/pick.c \
	attach/deploy/deploy.c attach/deploy/enter.c attach/deploy/memfd.c \
	attach/deploy/cgroup.c attach/deploy/tmpdirs.c attach/deploy/lock.c \
	$(HOLDER_BIN_SRC)
EXP_attach/deploy := -Iattach/deploy/include $(EXP_attach/proc) $(INC_agent/format)
INC_attach/deploy := -Iattach/deploy $(EXP_attach/deploy)

# The memfd holder (memfd_holder.c): a tiny static program jsym carries as
# bytes (HOLDER_BIN_SRC, generated) and execs from a memfd in the JVM's
# container, so nothing of jsym's memory is readable there.  Static musl:
# it runs whatever libc the container has, or none.
HOLDER_BIN := musl-build/jsym-memfd-holder
$(HOLDER_BIN): musl-build/obj/attach/deploy/memfd_holder.o
	$(call msg,LD,$@)
	$(Q)$(CC_musl) -static -s -o $@ $^

$(HOLDER_BIN_SRC): $(HOLDER_BIN)
	$(call msg,GEN,$@)
	@mkdir -p $(@D)
	$(Q){ echo '/* generated from $< by attach/deploy/deploy.mk */'; \
	  echo '#include <stddef.h>'; \
	  echo 'const unsigned char deploy_holder_bin[] = {'; \
	  od -An -v -tx1 $< | sed -e 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '};'; \
	  echo 'const size_t deploy_holder_len = sizeof(deploy_holder_bin);'; } >$@.tmp && mv $@.tmp $@

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
ALL_musl += $(B_musl)/jsym-probe $(HOLDER_BIN)
