# agent/lookup.mk - journal reader, perf-map parser, address index, `jsym resolve`.
#
#   LOOKUP_SRCS   what the jsym binary links for `jsym resolve` (attach/attach.mk)
#   libjsym-lookup.a   the reader + index alone, for other tools (glibc and musl)
#   glibc-build/tests/bench_lookup   the benchmark behind tests/bench/lookup.sh

LOOKUP_LIB_SRCS := agent/journal_read.c agent/perfmap_read.c agent/lookup.c \
	agent/lookup_hash.c agent/lookup_index.c agent/lookup_follow.c
LOOKUP_SRCS := $(LOOKUP_LIB_SRCS) agent/resolve_cli.c agent/resolve_files.c
UNIT_SRCS += $(LOOKUP_LIB_SRCS)

define lookup_lib_rule
$(1)-build/libjsym-lookup.a: $(call obj_of,$(1),$(LOOKUP_LIB_SRCS))
	$$(call msg,AR,$$@)
	$$(Q)rm -f $$@ && ar rcs $$@ $$^
ALL_$(1) += $(1)-build/libjsym-lookup.a
endef
$(foreach l,$(LIBCS),$(eval $(call lookup_lib_rule,$(l))))

glibc-build/tests/bench_lookup: glibc-build/obj/tests/bench/bench_lookup.o glibc-build/libjsym-lookup.a \
		$(call obj_of,glibc,$(AGENT_JOURNAL_SRCS))
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_glibc) -o $@ $^

ALL_glibc += glibc-build/tests/bench_lookup
