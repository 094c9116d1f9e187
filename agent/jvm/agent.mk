# SPDX-License-Identifier: Apache-2.0
# agent/jvm/agent.mk - the JVMTI agent libjsym-agent.so, built for glibc and
# musl from the same sources.  The in-JVM library only: uses agent/format.
#
# Variables for other fragments:
#   AGENT_LIB_glibc / AGENT_LIB_musl   the two agent libraries
#
# The glibc build force-includes agent/jvm/glibc_compat.h, which binds every
# libc symbol the agent uses to a version <= GLIBC_2.17, and links libgcc
# statically; both builds link with -z defs (no undefined non-libc symbol),
# -fvisibility=hidden (only the JVMTI entry points and jsym_agent_probe are
# exported).  tests/integration/20-agent-elf.sh checks both.  Objects are
# compiled one section a function and linked with --gc-sections: the agent
# links shared modules (agent/format's vmStructs reader) of which it calls
# a part, and drops the rest.  The journal writer is agent/format's
# (FORMAT_WRITER_SRCS): its objects are in AGENT_SRCS, so they get the same
# per-object flags.

INC_agent/jvm := -Iagent/jvm $(INC_agent/format)
# Modules without JVMTI calls: linked into the unit runner as well.
AGENT_MODULE_SRCS := $(COMMON_SRCS) $(FORMAT_WRITER_SRCS) $(FORMAT_EHFRAME_SRCS) $(FORMAT_NAME_SRCS) $(FORMAT_HASH_SRCS) \
	$(FORMAT_VM_SRCS) $(addprefix agent/jvm/,names.c codeheap.c options.c codetable.c \
	perfmap.c outfile.c procinfo.c unfold.c frames.c agentlog.c sink.c sink_io.c sink_journal.c sink_rotate.c \
	sink_jitdump.c sink_map.c jitdump.c jitlines.c jitunwind.c frameshape.c)
AGENT_SRCS := $(AGENT_MODULE_SRCS) agent/jvm/methodinfo.c agent/jvm/agent.c

UNIT_SRCS += $(AGENT_MODULE_SRCS)

AGENT_LIB_glibc := $(B_glibc)/libjsym-agent.so
AGENT_LIB_musl := $(B_musl)/libjsym-agent.so

# Objects of the agent library get hidden visibility in both trees; the
# glibc ones are also compiled against old symbol versions.
$(foreach s,$(AGENT_SRCS),$(eval $(call obj_of,glibc,$(s))_CFLAGS += -fvisibility=hidden \
	-ffunction-sections -fdata-sections -include $(ROOT)/agent/jvm/glibc_compat.h))
$(foreach s,$(AGENT_SRCS),$(eval $(call obj_of,musl,$(s))_CFLAGS += -fvisibility=hidden \
	-ffunction-sections -fdata-sections))
$(call obj_of,glibc,$(AGENT_SRCS)): agent/jvm/glibc_compat.h
# jvmti.h declares one old-style function pointer type.
AGENT_JVMTI_SRCS := agent/jvm/methodinfo.c agent/jvm/unfold.c agent/jvm/frames.c agent/jvm/jitlines.c agent/jvm/agent.c
$(foreach l,glibc musl,$(foreach s,$(AGENT_JVMTI_SRCS),	$(eval $(call obj_of,$(l),$(s))_CFLAGS += -Wno-strict-prototypes)))

AGENT_LDFLAGS := -shared -Wl,-z,defs -Wl,-z,noexecstack -Wl,--as-needed -Wl,--gc-sections \
	-Wl,--version-script=$(ROOT)/agent/jvm/agent.map

$(AGENT_LIB_glibc): $(call obj_of,glibc,$(AGENT_SRCS)) agent/jvm/agent.map
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_glibc) $(AGENT_LDFLAGS) -static-libgcc -o $@ $(filter %.o,$^) -lpthread

$(AGENT_LIB_musl): $(call obj_of,musl,$(AGENT_SRCS)) agent/jvm/agent.map
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_musl) $(AGENT_LDFLAGS) -o $@ $(filter %.o,$^)

ALL_glibc += $(AGENT_LIB_glibc)
ALL_musl += $(AGENT_LIB_musl)

.PHONY: agent
agent: $(AGENT_LIB_glibc) $(AGENT_LIB_musl)
