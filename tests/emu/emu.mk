# tests/emu/emu.mk - the OpenJ9 JVM emulator and what its tests need.
#
#   <libc>-build/tests/emu/openj9_emu         plays an OpenJ9 JVM (docs/protocols.md B)
#   <libc>-build/tests/emu/libtest_agent.so   Agent_OnAttach: log options, return rc=N
#   <libc>-build/tests/emu/libj9vm29.so       dummy, dlopened so maps look like OpenJ9
#   glibc-build/tests/emu/openj9_client       driver of attach/openj9*.c (enters ipc+net)
#
# ATTACH_OPENJ9_SRCS (the client) comes from attach/openj9/openj9.mk.

EMU_SRCS := tests/emu/openj9_emu.c tests/emu/openj9_emu_serve.c
EMU_DIR = $(1)-build/tests/emu

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

glibc-build/tests/emu/openj9_client: $(call obj_of,glibc,tests/emu/openj9_client.c \
		$(ATTACH_OPENJ9_SRCS) attach/target/inroot.c $(ATTACH_BASE_SRCS))
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_glibc) -o $@ $^

ALL_glibc += glibc-build/tests/emu/openj9_client

