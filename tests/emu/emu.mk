# SPDX-License-Identifier: Apache-2.0
# tests/emu/emu.mk - the OpenJ9 JVM emulator and what its tests need.
#
#   <libc>-build/tests/emu/openj9_emu         plays an OpenJ9 JVM (docs/protocols.md B)
#   <libc>-build/tests/emu/libtest_agent.so   Agent_OnAttach: log options, return rc=N
#   <libc>-build/tests/emu/libj9vm29.so       dummy, dlopened so maps look like OpenJ9
#   glibc-build/tests/emu/openj9_client       driver of attach/openj9*.c (enters ipc+net)
#
# ATTACH_OPENJ9_SRCS (the client) comes from attach/openj9/openj9.mk.

EMU_SRCS := tests/emu/openj9_emu.c tests/emu/openj9_emu_serve.c
EMU_DIR = $(B_$(1))/tests/emu

define emu_rules
$(EMU_DIR)/openj9_emu: $(call obj_of,$(1),$(EMU_SRCS))
	$$(call msg,LD,$$@)
	@mkdir -p $$(@D)
	$$(Q)$$(CC_$(1)) -o $$@ $$^ -ldl -lpthread

$(EMU_DIR)/libtest_agent.so: $(call obj_of,$(1),tests/emu/test_agent.c)
	$$(call msg,LD,$$@)
	@mkdir -p $$(@D)
	$$(Q)$$(CC_$(1)) -shared -o $$@ $$^

$(EMU_DIR)/libj9vm29.so: $(call obj_of,$(1),tests/emu/j9vm_dummy.c)
	$$(call msg,LD,$$@)
	@mkdir -p $$(@D)
	$$(Q)$$(CC_$(1)) -shared -o $$@ $$^

ALL_$(1) += $(EMU_DIR)/openj9_emu $(EMU_DIR)/libtest_agent.so $(EMU_DIR)/libj9vm29.so
endef
$(foreach l,glibc musl,$(eval $(call emu_rules,$(l))))
# The test agent answers jsym's probe too (a stand-in for the real agent).
$(foreach l,glibc musl,\
	$(eval $(call obj_of,$(l),tests/emu/test_agent.c)_CFLAGS += $(INC_agent/format)))

$(B_glibc)/tests/emu/openj9_client: $(call obj_of,glibc,tests/emu/openj9_client.c \
		$(ATTACH_OPENJ9_SRCS) $(ATTACH_BASE_SRCS) $(COMMON_SRCS))
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_glibc) -o $@ $^

ALL_glibc += $(B_glibc)/tests/emu/openj9_client


# --- the HotSpot emulator (docs/emulators.md) ---------------------------------
#
#   <libc>-build/tests/emu/hs_emu                        plays HotSpot 17 (docs/protocols.md A)
#   <libc>-build/tests/emu/hsjdk/lib/server/libjvm.so    dummy, dlopened by hs_emu
#   <libc>-build/tests/emu/hsjdk/release                 JAVA_VERSION="17.0.99"

HS_EMU_SRCS := tests/emu/hs_emu.c tests/emu/hs_emu_listen.c tests/emu/hs_emu_vm.c \
	tests/emu/hs_emu_jni.c tests/emu/hs_emu_jvmti.c tests/emu/hs_emu_jvmti_query.c \
	tests/emu/hs_emu_ops.c tests/emu/hs_emu_stubs.c \
	tests/emu/hs_emu_catalog.c tests/emu/hs_emu_gen.c
# jvmti.h declares one function type with "()".
$(foreach l,glibc musl,$(foreach s,$(HS_EMU_SRCS),\
	$(eval $(call obj_of,$(l),$(s))_CFLAGS += -Wno-strict-prototypes)))

define hs_emu_rules
$(EMU_DIR)/hs_emu: $(call obj_of,$(1),$(HS_EMU_SRCS))
	$$(call msg,LD,$$@)
	@mkdir -p $$(@D)
	$$(Q)$$(CC_$(1)) -o $$@ $$^ -ldl -lpthread

$(EMU_DIR)/hsjdk/lib/server/libjvm.so: $(call obj_of,$(1),tests/emu/hs_libjvm_dummy.c)
	$$(call msg,LD,$$@)
	@mkdir -p $$(@D)
	$$(Q)$$(CC_$(1)) -shared -o $$@ $$^

$(EMU_DIR)/hsjdk/release: tests/emu/emu.mk
	$$(call msg,GEN,$$@)
	@mkdir -p $$(@D)
	$$(Q)printf 'JAVA_VERSION="17.0.99"\nIMPLEMENTOR="jsym tests (hs_emu)"\n' >$$@

ALL_$(1) += $(EMU_DIR)/hs_emu $(EMU_DIR)/hsjdk/lib/server/libjvm.so $(EMU_DIR)/hsjdk/release
endef
$(foreach l,glibc musl,$(eval $(call hs_emu_rules,$(l))))
