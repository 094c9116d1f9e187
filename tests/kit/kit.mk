# SPDX-License-Identifier: Apache-2.0
# tests/kit/kit.mk - the container kit's C helpers.
#
#   glibc-build/kit/jsym-kit    namespace helper used by tests/kit/kit.sh
#                               (container start, sidecar); also built with
#                               musl so it stays warning-free on both libcs
#   musl-build/kit/libc.so.6    the libc.so.6 shim of the alpine-gcompat rootfs
#   {glibc,musl}-build/kit/kit-probe   dynamic program printing its loader and
#                               libc (runs as PID 1 in the musl-only roots)

KIT_SRCS := tests/kit/kit_main.c tests/kit/kit_fs.c tests/kit/kit_caps.c tests/kit/kit_userns.c
KIT_SHIM_SRC := tests/kit/gcompat_shim.c

$(B_glibc)/kit/jsym-kit: $(call obj_of,glibc,$(KIT_SRCS))
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_glibc) -o $@ $^

$(B_musl)/kit/jsym-kit: $(call obj_of,musl,$(KIT_SRCS))
	$(call msg,MUSLLD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_musl) -static -o $@ $^

$(B_musl)/kit/libc.so.6: $(call obj_of,musl,$(KIT_SHIM_SRC))
	$(call msg,MUSLLD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_musl) -shared -Wl,-soname,libc.so.6 -o $@ $^

$(foreach l,$(LIBCS),$(B_$(l))/kit/kit-probe): %/kit/kit-probe: %/obj/tests/kit/kit_probe.o
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_$(patsubst %-build,%,$*)) -o $@ $^

ALL_glibc += $(B_glibc)/kit/jsym-kit $(B_glibc)/kit/kit-probe
ALL_musl += $(B_musl)/kit/jsym-kit $(B_musl)/kit/libc.so.6 $(B_musl)/kit/kit-probe
