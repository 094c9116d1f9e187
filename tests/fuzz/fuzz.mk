# SPDX-License-Identifier: Apache-2.0
# tests/fuzz/fuzz.mk - libFuzzer harnesses (clang, ASan + UBSan).
#
#   make fuzz-short   each harness for FUZZ_SHORT_SECONDS (20); part of make test
#   make fuzz         each harness for FUZZ_SECONDS (600)
#   make fuzz FUZZ_RUNS=10000000   each harness for that many executions
#                     instead (the depth issue 17 asks); every run's log,
#                     glibc-build/fuzz/<name>.log, ends with its
#                     stat::number_of_executed_units
#   make glibc-build/fuzz/fuzz_<name>   build one harness
#
# Adding a harness: a line `FUZZ_TARGETS += name` and the sources it needs
# as `FUZZ_SRCS_name := tests/fuzz/fuzz_name.c module.c ...` in the section
# below (extra compile flags: FUZZ_FLAGS_name; extra link flags:
# FUZZ_LIBS_name).  Seeds, if any, go to tests/fuzz/corpus/<name>/ (read
# only); new inputs go to glibc-build/fuzz/corpus/<name>/ and crashes to
# glibc-build/fuzz/<name>-crash-*.

FUZZ_CC := clang
# The product's warnings (WARN, -Werror included).  A harness is compiled
# from all its sources in one command (clang's -MMD would then list only the
# last one's headers), so it depends on every header it may include: those
# of its include paths.
FUZZ_CFLAGS := -std=gnu11 -g -O1 -fno-omit-frame-pointer $(WARN) \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-D_GNU_SOURCE -I$(JAVA_INC) -I$(JAVA_INC)/linux $(INC_TESTS)
FUZZ_HEADERS := $(sort $(wildcard $(patsubst -I%,%/*.h,$(filter -I%,$(INC_TESTS)))))
FUZZ_SECONDS ?= 600
FUZZ_SHORT_SECONDS ?= 20
FUZZ_DIR := $(B_glibc)/fuzz
FUZZ_TARGETS :=

# ---- harnesses ----
FUZZ_TARGETS += proc
FUZZ_SRCS_proc := tests/fuzz/fuzz_proc.c attach/proc/proc.c attach/proc/proc_opts.c \
	attach/proc/jdk_version.c attach/proc/proc_ct.c common/errtext.c common/procstatus.c
FUZZ_TARGETS += hs_reply
FUZZ_SRCS_hs_reply := tests/fuzz/fuzz_hs_reply.c attach/hotspot/hs_reply.c
# OpenJ9 client parsers
FUZZ_TARGETS += openj9
FUZZ_SRCS_openj9 := tests/fuzz/fuzz_openj9.c attach/openj9/openj9_props.c attach/openj9/openj9_proto.c \
	common/errtext.c
# journal reader and perf-map parser through the lookup index
FUZZ_TARGETS += journal
FUZZ_SRCS_journal := tests/fuzz/fuzz_journal.c $(LOOKUP_LIB_SRCS) common/errtext.c
FUZZ_TARGETS += perfmap
FUZZ_SRCS_perfmap := tests/fuzz/fuzz_perfmap.c $(LOOKUP_LIB_SRCS) common/errtext.c
FUZZ_TARGETS += agent_names
FUZZ_SRCS_agent_names := tests/fuzz/fuzz_agent_names.c agent/jvm/names.c agent/format/javaname.c \
	agent/jvm/options.c agent/jvm/procinfo.c common/errtext.c
# the jitdump's unwinding data: frame shapes found in any code, encoded
FUZZ_TARGETS += frameshape
FUZZ_SRCS_frameshape := tests/fuzz/fuzz_frameshape.c agent/jvm/frameshape.c agent/format/ehframe.c
# terminal escaping of target text (attach/base)
FUZZ_TARGETS += termtext
FUZZ_SRCS_termtext := tests/fuzz/fuzz_termtext.c attach/base/termtext.c attach/base/text.c
# jsym map: the serviceability tables and the code-cache walk over a fake
# JVM memory (attach/vmstructs)
VM_FUZZ_SRCS := $(addprefix attach/vmstructs/,vm_layout.c vm_blob.c \
	vm_names.c vm_method.c vm_scan.c vm_maps.c) $(FORMAT_VM_SRCS) common/errtext.c agent/format/javaname.c \
	attach/base/termtext.c attach/base/text.c
VM_FUZZ_FLAGS := -DVM_CACHE_LINES=64u
FUZZ_TARGETS += vm_tables
FUZZ_FLAGS_vm_tables := $(VM_FUZZ_FLAGS)
FUZZ_SRCS_vm_tables := tests/fuzz/fuzz_vm_tables.c $(VM_FUZZ_SRCS)
FUZZ_TARGETS += vm_blob
FUZZ_FLAGS_vm_blob := $(VM_FUZZ_FLAGS)
FUZZ_SRCS_vm_blob := tests/fuzz/fuzz_vm_blob.c $(VM_FUZZ_SRCS)
# ---- end of harnesses ----

define fuzz_rule
$(FUZZ_DIR)/fuzz_$(1): $$(FUZZ_SRCS_$(1)) $$(FUZZ_HEADERS) tests/fuzz/fuzz.mk
	$$(call msg,FUZZCC,$$@)
	@mkdir -p $$(@D)
	$$(Q)$$(FUZZ_CC) $$(FUZZ_CFLAGS) $$(FUZZ_FLAGS_$(1)) -o $$@ $$(FUZZ_SRCS_$(1)) $$(FUZZ_LIBS_$(1))
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_rule,$(t))))

FUZZ_BINS := $(foreach t,$(FUZZ_TARGETS),$(FUZZ_DIR)/fuzz_$(t))

# run_fuzz(seconds): every harness in turn; the first crash fails the target
# after all harnesses ran, so one report shows every broken parser.
define run_fuzz
	$(Q)status=0; for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_DIR)/corpus/$$t; \
		seeds=; [ -d tests/fuzz/corpus/$$t ] && seeds=tests/fuzz/corpus/$$t; \
		printf '  %-7s %s (%s)\n' FUZZ $$t '$(if $(FUZZ_RUNS),$(FUZZ_RUNS) runs,$(1)s)'; \
		$(FUZZ_DIR)/fuzz_$$t $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS),-max_total_time=$(1)) \
			-timeout=10 -rss_limit_mb=2048 \
			-print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/$$t- \
			$(FUZZ_DIR)/corpus/$$t $$seeds >$(FUZZ_DIR)/$$t.log 2>&1 \
		|| { status=1; echo "fuzz_$$t FAILED, see $(FUZZ_DIR)/$$t.log:"; tail -n 30 $(FUZZ_DIR)/$$t.log; }; \
	done; exit $$status
endef

fuzz-short: $(FUZZ_BINS)
	$(call run_fuzz,$(FUZZ_SHORT_SECONDS))

fuzz: $(FUZZ_BINS)
	$(call run_fuzz,$(FUZZ_SECONDS))

test: fuzz-short
