# SPDX-License-Identifier: Apache-2.0
# mk/sanitize.mk - the unit suites, the fuzzers and the agent's sink under
# the sanitizers (docs/testing.md, "Sanitizers").
#
#   make asan   the Check runner built with AddressSanitizer and
#               UndefinedBehaviorSanitizer, run; then the fuzzers' short run
#               (they are always built with both)
#   make tsan   tests/tsan/tsan_sink.c under ThreadSanitizer: the sink's flush
#               thread against sink_update and loads from another thread;
#               tests/tsan/tsan_map.c: jsym map's namer thread against its
#               walk, over a fake code cache of many batches and heaps
#
# Objects go to glibc-build/asan/ and glibc-build/tsan/, compiled from the
# same sources with the same include rules as glibc-build/obj/; the glibc
# compatibility header is left out (a sanitizer build runs only here).

SAN_FLAGS_asan := -fsanitize=address,undefined -fno-sanitize-recover=all
SAN_FLAGS_tsan := -fsanitize=thread
SAN_CFLAGS = $(COMMON_CFLAGS) -fno-omit-frame-pointer -Wno-strict-prototypes \
	$(CHECK_CFLAGS) -I$(ROOT)/glibc-build/gen

define san_tree
glibc-build/$(1)/obj/%.o: %.c
	$$(call msg,$(1)CC,$$@)
	@mkdir -p $$(@D)
	$$(Q)$$(CC_glibc) $$(SAN_CFLAGS) $$(call src_inc,$$<) $$(SAN_FLAGS_$(1)) -c -o $$@ $$<
endef
$(foreach t,asan tsan,$(eval $(call san_tree,$(t))))

ASAN_UNIT := glibc-build/asan/check_jsym
ASAN_UNIT_OBJS := $(patsubst %.c,glibc-build/asan/obj/%.o,tests/unit/check_main.c \
	$(UNIT_TEST_SRCS) $(TEST_LIB_SRCS) $(UNIT_HELPER_SRCS) $(UNIT_SRCS))
glibc-build/asan/obj/tests/unit/check_main.o: $(UNIT_SUITES_H)

$(ASAN_UNIT): $(ASAN_UNIT_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC_glibc) $(SAN_FLAGS_asan) -o $@ $^ $(CHECK_LIBS) $(UNIT_LIBS) -ldl -lpthread

TSAN_SINK := glibc-build/tsan/tsan_sink
INC_tests/tsan := $(INC_TESTS)
$(TSAN_SINK): $(patsubst %.c,glibc-build/tsan/obj/%.o,tests/tsan/tsan_sink.c $(TEST_LIB_SRCS) \
	$(AGENT_MODULE_SRCS))
	$(call msg,LD,$@)
	$(Q)$(CC_glibc) $(SAN_FLAGS_tsan) -o $@ $^ -lpthread

TSAN_MAP := glibc-build/tsan/tsan_map
$(TSAN_MAP): $(patsubst %.c,glibc-build/tsan/obj/%.o,tests/tsan/tsan_map.c \
	tests/lib/check_codecache.c $(COMMON_SRCS) $(ATTACH_BASE_SRCS) $(ATTACH_PROC_SRCS) \
	$(ATTACH_VMSTRUCTS_SRCS) $(FORMAT_WRITER_SRCS) $(FORMAT_NAME_SRCS) $(FORMAT_VM_SRCS))
	$(call msg,LD,$@)
	$(Q)$(CC_glibc) $(SAN_FLAGS_tsan) -o $@ $^ -lpthread -lcap

.PHONY: asan asan-unit tsan
# Leaks are not what this run looks for (test helpers keep what they
# allocate until the forked case ends): detect_leaks=0.
asan-unit: $(ASAN_UNIT)
	$(Q)ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 $(ASAN_UNIT)

asan: asan-unit fuzz-short

tsan: $(TSAN_SINK) $(TSAN_MAP)
	$(Q)TSAN_OPTIONS=halt_on_error=1:exitcode=66 setarch -R $(TSAN_SINK)
	$(Q)TSAN_OPTIONS=halt_on_error=1:exitcode=66 setarch -R $(TSAN_MAP)


# The sink's race harness costs seconds: part of make test.  The ASan build
# of every unit object costs minutes: .ci/run runs asan-unit on its own.
test: tsan
