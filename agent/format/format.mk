# SPDX-License-Identifier: Apache-2.0
# agent/format/format.mk - what the agent writes and the readers read: the
# journal's records and the agent's exported ABI (headers), the one journal
# writer (journal.c, bbuf.c) that both the agent and `jsym map --follow` use,
# and the one Java name formatter (javaname.c) of both.  Includes only
# common/ (bbuf.c's write_all is common/wholeio.c's loop).
#
#   FORMAT_WRITER_SRCS   the journal writer: linked into the agent, jsym,
#                        the unit runner and tools that write journals
#   FORMAT_NAME_SRCS     Java's external names (javaname.c): the agent's and
#                        `jsym map`'s one formatter
#   FORMAT_EHFRAME_SRCS  the .eh_frame/.eh_frame_hdr encoder (ehframe.c):
#                        the agent's jitdump unwinding data
#   FORMAT_HASH_SRCS     the one hash table (hashtab.c): the agent's code
#                        table and compiles, the lookup library's index
#   FORMAT_VM_SRCS       the one reader of HotSpot's vmStructs tables
#                        (vm_tables.c) and the memory it reads them through
#                        (vm_mem.c, vm_lines.c): the agent reads its own
#                        JVM's, `jsym map` another process's
#
# The agent links these objects, so agent/jvm/agent.mk gives them the
# agent's per-object flags (hidden visibility; for glibc the forced
# glibc_compat.h).  jsym and the tests link the very same objects: both are
# harmless there (static links, and the old symbol versions glibc_compat.h
# picks are still exported by today's glibc).

INC_agent/format := -Iagent/format $(INC_common)
FORMAT_WRITER_SRCS := agent/format/journal.c agent/format/bbuf.c
FORMAT_NAME_SRCS := agent/format/javaname.c
FORMAT_HASH_SRCS := agent/format/hashtab.c
FORMAT_EHFRAME_SRCS := agent/format/ehframe.c
FORMAT_VM_SRCS := agent/format/vm_mem.c agent/format/vm_lines.c agent/format/vm_tables.c
