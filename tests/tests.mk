# SPDX-License-Identifier: Apache-2.0
# tests/tests.mk - the Check runner, integration scenarios, fuzz and bench
# entry points, and every test artefact (product fragments define none).

UNIT_TEST_SRCS := $(sort $(wildcard tests/unit/check_*.c))

# Tests and test tools may include any layer's headers.
INC_TESTS := $(INC_attach/cli) $(INC_agent/jvm) $(foreach d,base proc hotspot openj9 deploy \
	vmstructs run attaching lookup,-Iattach/$(d)) -Itests/lib
INC_tests/lib := $(INC_TESTS)
# C helpers shared by the unit suites and the sanitizer harnesses, and the
# unit tests' own (tests/lib/check_*.c, no suites)
TEST_LIB_SRCS := tests/lib/sink_flusher.c tests/lib/rmtree.c
UNIT_HELPER_SRCS := $(sort $(wildcard tests/lib/check_*.c))
INC_tests/unit := $(INC_TESTS)
INC_tests/bench := $(INC_TESTS)
INC_tests/kit := $(INC_TESTS)
INC_tests/emu := $(INC_TESTS)
INC_tests/integration := $(INC_TESTS)
UNIT_RUNNER := $(B_glibc)/tests/unit/check_jsym
UNIT_SUITES_H := $(B_glibc)/gen/suites.h
CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS := $(shell $(PKG_CONFIG) --libs check 2>/dev/null)

# Every tests/unit/check_*.c defines one or more `Suite *name_suite(void)`;
# the runner's table is generated from those definitions, so adding a suite
# is adding a file.
$(UNIT_SUITES_H): $(UNIT_TEST_SRCS) tests/tests.mk
	$(call msg,GEN,$@)
	@mkdir -p $(@D)
	$(Q)sed -n 's/^Suite \*\([a-z0-9_]*_suite\)(void)$$/X(\1)/p' $(UNIT_TEST_SRCS) /dev/null > $@.tmp && mv $@.tmp $@

$(B_glibc)/obj/tests/unit/check_main.o: $(UNIT_SUITES_H)
$(B_glibc)/obj/tests/unit/check_main.o_CFLAGS = -I$(ROOT)/$(B_glibc)/gen
$(foreach s,$(UNIT_TEST_SRCS) $(UNIT_HELPER_SRCS),$(eval $(call obj_of,glibc,$(s))_CFLAGS += $(CHECK_CFLAGS)))

$(UNIT_RUNNER): $(call obj_of,glibc,tests/unit/check_main.c $(UNIT_TEST_SRCS) $(TEST_LIB_SRCS) \
	$(UNIT_HELPER_SRCS) $(UNIT_SRCS))
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_glibc) -o $@ $^ $(CHECK_LIBS) $(UNIT_LIBS) -ldl -lpthread

ALL_glibc += $(UNIT_RUNNER)

unit: $(UNIT_RUNNER)
	$(Q)$(UNIT_RUNNER)

integration: all
	$(Q)bash tests/run-integration.sh $(T)

test: all
	$(Q)status=0; \
	$(UNIT_RUNNER) || status=1; \
	bash tests/run-integration.sh $(T) || status=1; \
	exit $$status

bench: all
	$(Q)bash tests/run-bench.sh

# The JVMTI agent the attach scenarios load (tests/integration/testagent.c),
# built like every other object; lib-attach.bash's la_test_agent copies it.
TEST_AGENT := $(B_glibc)/tests/integration/libjsymtestagent.so

# An LD_PRELOAD library that stalls jsym's connect to an attach socket
# (tests/integration/hang_shim.c, for 33-attach-faults).
HANG_SHIM := $(B_glibc)/tests/integration/libjsymhang.so
# One that stalls jsym's read of one process's /proc/<pid>/cmdline
# (tests/integration/stall_shim.c, for 39-confined-open).
STALL_SHIM := $(B_glibc)/tests/integration/libjsymstall.so

$(TEST_AGENT): $(call obj_of,glibc,tests/integration/testagent.c)
$(HANG_SHIM): $(call obj_of,glibc,tests/integration/hang_shim.c)
$(STALL_SHIM): $(call obj_of,glibc,tests/integration/stall_shim.c)
$(TEST_AGENT) $(HANG_SHIM) $(STALL_SHIM):
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_glibc) -shared -o $@ $^

ALL_glibc += $(TEST_AGENT) $(HANG_SHIM) $(STALL_SHIM)

# Test sources that include jvmti.h (one old-style function pointer type).
$(foreach l,glibc musl,$(foreach s,tests/unit/check_agent_codetable.c tests/unit/check_lookup_api.c tests/unit/check_lookup_stacks.c \
	tests/unit/check_agent_sink.c,\
	$(eval $(call obj_of,$(l),$(s))_CFLAGS += -Wno-strict-prototypes)))

# The benchmark behind tests/bench/lookup.sh.
$(B_glibc)/tests/bench_lookup: $(B_glibc)/obj/tests/bench/bench_lookup.o $(B_glibc)/libjsym-lookup.a \
		$(call obj_of,glibc,$(FORMAT_WRITER_SRCS) $(filter-out $(LOOKUP_COMMON_SRCS),$(COMMON_SRCS)))
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_glibc) -o $@ $^

ALL_glibc += $(B_glibc)/tests/bench_lookup

# The musl program whose ELF note tests/integration/20-agent-elf.sh checks
# (tests/kit/probe_agent.c).
PROBE_AGENT_musl := $(B_musl)/tests/probe_agent
$(PROBE_AGENT_musl): $(call obj_of,musl,tests/kit/probe_agent.c)
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_musl) -o $@ $^

ALL_musl += $(PROBE_AGENT_musl)

# The empty JVMTI agent that is the floor of tests/bench/agent_overhead.sh.
FLOOR_AGENT := $(B_glibc)/tests/bench/libjsymflooragent.so
$(call obj_of,glibc,tests/bench/floor_agent.c)_CFLAGS += -Wno-strict-prototypes -fvisibility=hidden

$(FLOOR_AGENT): $(call obj_of,glibc,tests/bench/floor_agent.c)
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_glibc) -shared -o $@ $^

ALL_glibc += $(FLOOR_AGENT)
