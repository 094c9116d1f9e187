# agent/lookup/lookup.mk - the host-side lookup library: journal reader,
# perf-map parser, address index.  Uses agent/format only.
#
#   LOOKUP_LIB_SRCS   what `jsym resolve` (attach/cli) and the fuzzers link
#   libjsym-lookup.a  the reader + index alone, for other tools (both libcs)
#   glibc-build/tests/bench_lookup   the benchmark behind tests/bench/lookup.sh

LOOKUP_LIB_SRCS := agent/lookup/journal_read.c agent/lookup/perfmap_read.c agent/lookup/lookup.c \
	agent/lookup/lookup_hash.c agent/lookup/lookup_index.c agent/lookup/lookup_follow.c
INC_agent/lookup := -Iagent/lookup $(INC_agent/format)
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
