# SPDX-License-Identifier: Apache-2.0
# attach/lookup/lookup.mk - the host-side lookup library: journal reader,
# perf-map parser, address index.  Uses agent/format only (its headers, and
# its hash table, hashtab.c, linked in as one of the library's sources).
#
#   LOOKUP_LIB_SRCS   what `jsym resolve` (attach/cli) and the fuzzers link
#   LOOKUP_PUB_SRCS   the public API (attach/lookup/include/jsym/lookup.h)
#   In each of glibc-build/ and musl-build/, ready for `make install` to copy:
#     libjsym-lookup.a               everything, for static linking
#     libjsym-lookup.so.1            the public API only (version script
#                                    jsym-lookup.map, JSYM_LOOKUP_1.0), soname
#                                    libjsym-lookup.so.1, and the link
#                                    libjsym-lookup.so -> libjsym-lookup.so.1
#     include/jsym/lookup.h          the public header
#     jsym-lookup.pc                 pkg-config, prefix $(LOOKUP_PREFIX)
#                                    (`make install` writes its own with PREFIX)
#     examples/jsym-lookup-example   docs/examples/lookup_example.c, linked
#                                    against the .so with only the public header

LOOKUP_LIB_SRCS := attach/lookup/journal_read.c attach/lookup/frames_read.c attach/lookup/perfmap_read.c attach/lookup/lookup.c \
	attach/lookup/lookup_hash.c attach/lookup/lookup_index.c attach/lookup/lookup_radix.c attach/lookup/lookup_frames.c \
	attach/lookup/lookup_follow.c attach/lookup/lookup_stacks.c $(FORMAT_HASH_SRCS)
LOOKUP_PUB_SRCS := attach/lookup/jsym_lookup.c attach/lookup/jsym_lookup_open.c
# EXP_attach/lookup: what jsym resolve sees, the entry lookup_lib.h (and the
# public jsym/lookup.h beside it in include/) and agent/format's journal
# format; INC_attach/lookup: the folder's own headers too.
EXP_attach/lookup := -Iattach/lookup/include $(INC_agent/format) $(INC_common)
INC_attach/lookup := -Iattach/lookup $(EXP_attach/lookup)
# The library's own copy of the confined open (common/confine.h), the
# NStgid parser (common/procstatus.h), the error text it fills and the read
# loop it uses (common/wholeio.h): jsym and the unit runner get them
# through attach/base.
LOOKUP_COMMON_SRCS := $(CONFINE_SRCS) $(PROCSTATUS_SRCS) $(COMMON_SRCS)
UNIT_SRCS += $(LOOKUP_LIB_SRCS) $(LOOKUP_PUB_SRCS)
LOOKUP_SO_VERSION := 1.0
LOOKUP_PREFIX ?= /usr/local
# The glibc .so must load wherever the agent does (glibc >= 2.17; this
# machine's headers bind fstat to GLIBC_2.33): its objects force-include the
# agent's agent/jvm/glibc_compat.h too.  The same objects go into the .a and
# into jsym itself, where old symbol versions are as good as new ones.
# tests/integration/20-agent-elf.sh checks the .so's versions.
$(foreach s,$(LOOKUP_LIB_SRCS) $(LOOKUP_PUB_SRCS) $(CONFINE_SRCS) $(PROCSTATUS_SRCS),$(eval $(call obj_of,glibc,$(s))_CFLAGS += \
	-include $(ROOT)/agent/jvm/glibc_compat.h))
$(call obj_of,glibc,$(LOOKUP_LIB_SRCS) $(LOOKUP_PUB_SRCS) $(CONFINE_SRCS) $(PROCSTATUS_SRCS)): agent/jvm/glibc_compat.h
LOOKUP_LDFLAGS := -shared -Wl,-soname,libjsym-lookup.so.1 -Wl,-z,defs -Wl,-z,noexecstack \
	-Wl,--version-script=$(ROOT)/attach/lookup/jsym-lookup.map

define lookup_lib_rule
$(B_$(1))/libjsym-lookup.a: $(call obj_of,$(1),$(LOOKUP_LIB_SRCS) $(LOOKUP_PUB_SRCS) $(LOOKUP_COMMON_SRCS))
	$$(call msg,AR,$$@)
	$$(Q)rm -f $$@ && ar rcs $$@ $$^

$(B_$(1))/libjsym-lookup.so.1: $(call obj_of,$(1),$(LOOKUP_LIB_SRCS) $(LOOKUP_PUB_SRCS) $(LOOKUP_COMMON_SRCS)) \
		attach/lookup/jsym-lookup.map
	$$(call msg,LD,$$@)
	$$(Q)$$(CC_$(1)) $$(LOOKUP_LDFLAGS) -o $$@ $$(filter %.o,$$^)

$(B_$(1))/libjsym-lookup.so: $(B_$(1))/libjsym-lookup.so.1
	$$(Q)ln -sf libjsym-lookup.so.1 $$@

$(B_$(1))/include/jsym/lookup.h: attach/lookup/include/jsym/lookup.h
	@mkdir -p $$(@D)
	$$(Q)cp $$< $$@

$(B_$(1))/jsym-lookup.pc: attach/lookup/jsym-lookup.pc.in attach/lookup/lookup.mk
	$$(Q)sed -e 's|@PREFIX@|$$(LOOKUP_PREFIX)|' -e 's|@VERSION@|$$(LOOKUP_SO_VERSION)|' $$< >$$@

# The example is built like an outside program: the copied header only.
$(B_$(1))/examples/jsym-lookup-example: docs/examples/lookup_example.c \
		$(B_$(1))/include/jsym/lookup.h $(B_$(1))/libjsym-lookup.so
	$$(call msg,LD,$$@)
	@mkdir -p $$(@D)
	$$(Q)$$(CC_$(1)) -std=c99 $$(WARN) -O2 -I$(B_$(1))/include -o $$@ $$< \
		-L$(B_$(1)) -ljsym-lookup -Wl,-rpath,'$$$$ORIGIN/..'

ALL_$(1) += $(B_$(1))/libjsym-lookup.a $(B_$(1))/libjsym-lookup.so $(B_$(1))/jsym-lookup.pc \
	$(B_$(1))/include/jsym/lookup.h $(B_$(1))/examples/jsym-lookup-example
endef
$(foreach l,$(LIBCS),$(eval $(call lookup_lib_rule,$(l))))
