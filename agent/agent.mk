# agent/agent.mk - the JVMTI agent libjsym-agent.so, built for glibc and musl
# from the same sources, plus its musl dlopen probe.
#
# Variables for other fragments:
#   AGENT_JOURNAL_SRCS   the journal writer (journal.c + bbuf.c), for tools
#                        and round-trip tests that write journals
#   AGENT_LIB_glibc / AGENT_LIB_musl   the two agent libraries

AGENT_JOURNAL_SRCS := agent/journal.c agent/bbuf.c
AGENT_MODULE_SRCS := $(AGENT_JOURNAL_SRCS)
AGENT_SRCS := $(AGENT_MODULE_SRCS)

UNIT_SRCS += $(AGENT_MODULE_SRCS)
