# agent/agent.mk - the JVMTI agent libjsym-agent.so, built for glibc and musl
# from the same sources, plus its musl dlopen probe.
#
# Variables for other fragments:
#   AGENT_JOURNAL_SRCS   the journal writer (journal.c + bbuf.c), for tools
#                        and round-trip tests that write journals
#   AGENT_LIB_glibc / AGENT_LIB_musl   the two agent libraries
#
# The glibc build force-includes agent/glibc_compat.h, which binds every
# libc symbol the agent uses to a version <= GLIBC_2.17, and links libgcc
# statically; both builds link with -z defs (no undefined non-libc symbol),
# -fvisibility=hidden (only the JVMTI entry points and jsym_agent_probe are
# exported).  tests/integration/20-agent-elf.sh checks both.

AGENT_JOURNAL_SRCS := agent/journal.c agent/bbuf.c
# Modules without JVMTI calls: linked into the unit runner as well.
AGENT_MODULE_SRCS := $(AGENT_JOURNAL_SRCS) agent/names.c agent/options.c agent/codetable.c \
	agent/perfmap.c agent/outfile.c agent/procinfo.c agent/unfold.c agent/agentlog.c \
	agent/sink.c agent/sink_io.c
AGENT_SRCS := $(AGENT_MODULE_SRCS) agent/methodinfo.c agent/agent.c

UNIT_SRCS += $(AGENT_MODULE_SRCS)

AGENT_LIB_glibc := glibc-build/libjsym-agent.so
AGENT_LIB_musl := musl-build/libjsym-agent.so
AGENT_PROBE_musl := musl-build/tests/probe_agent

# Objects of the agent library get hidden visibility in both trees; the
# glibc ones are also compiled against old symbol versions.
$(foreach s,$(AGENT_SRCS),$(eval $(call obj_of,glibc,$(s))_CFLAGS += -fvisibility=hidden \
	-include $(ROOT)/agent/glibc_compat.h))
$(foreach s,$(AGENT_SRCS),$(eval $(call obj_of,musl,$(s))_CFLAGS += -fvisibility=hidden))
$(call obj_of,glibc,$(AGENT_SRCS)): agent/glibc_compat.h
# jvmti.h declares one old-style function pointer type.
AGENT_JVMTI_SRCS := agent/methodinfo.c agent/unfold.c agent/agent.c tests/unit/check_agent_codetable.c
$(foreach l,glibc musl,$(foreach s,$(AGENT_JVMTI_SRCS),	$(eval $(call obj_of,$(l),$(s))_CFLAGS += -Wno-strict-prototypes)))

AGENT_LDFLAGS := -shared -Wl,-z,defs -Wl,-z,noexecstack -Wl,--as-needed \
	-Wl,--version-script=$(ROOT)/agent/agent.map

$(AGENT_LIB_glibc): $(call obj_of,glibc,$(AGENT_SRCS)) agent/agent.map
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_glibc) $(AGENT_LDFLAGS) -static-libgcc -o $@ $(filter %.o,$^) -lpthread

$(AGENT_LIB_musl): $(call obj_of,musl,$(AGENT_SRCS)) agent/agent.map
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_musl) $(AGENT_LDFLAGS) -o $@ $(filter %.o,$^)

$(AGENT_PROBE_musl): $(call obj_of,musl,agent/probe_agent.c)
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_musl) -o $@ $^

ALL_glibc += $(AGENT_LIB_glibc)
ALL_musl += $(AGENT_LIB_musl) $(AGENT_PROBE_musl)

.PHONY: agent
agent: $(AGENT_LIB_glibc) $(AGENT_LIB_musl) $(AGENT_PROBE_musl)
