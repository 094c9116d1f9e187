# agent/lookup.mk - journal reader, perf-map parser, address index, `jsym resolve`.
#
#   LOOKUP_SRCS   what the jsym binary links for `jsym resolve` (attach/attach.mk)
#   libjsym-lookup.a   the reader + index alone, for other tools (glibc and musl)
#   glibc-build/tests/jsym-resolve   resolve_cli.c with its own main, a test
#                 driver usable without the jsym binary
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

glibc-build/obj/agent/resolve_cli_main.o: agent/resolve_cli.c | deps-build
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_glibc) $(COMMON_CFLAGS) $(CFLAGS_glibc) -DJSYM_RESOLVE_MAIN -c -o $@ $<

glibc-build/tests/jsym-resolve: glibc-build/obj/agent/resolve_cli_main.o \
		glibc-build/obj/agent/resolve_files.o glibc-build/libjsym-lookup.a
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_glibc) -o $@ $^

glibc-build/tests/bench_lookup: glibc-build/obj/tests/bench/bench_lookup.o glibc-build/libjsym-lookup.a \
		$(call obj_of,glibc,$(AGENT_JOURNAL_SRCS))
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_glibc) -o $@ $^

ALL_glibc += glibc-build/tests/jsym-resolve glibc-build/tests/bench_lookup
