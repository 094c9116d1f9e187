# SPDX-License-Identifier: Apache-2.0
# jsym - one Makefile, two libcs.
#
# Every source is compiled twice from the same rules: with gcc into
# glibc-build/ and with musl-gcc into musl-build/.  Nothing is written into a
# source directory.  ARCH=aarch64 cross-compiles the same rules into
# glibc-build-aarch64/ and musl-build-aarch64/ (mk/arch.mk); x86_64 keeps the
# plain names.  Each folder of the layered tree (docs/architecture.md)
# has a fragment that lists its sources and sets INC_<folder>: the include
# paths that folder may use, its own and EXP_<folder>, the entry headers of
# itself and the layers below (each folder's include/).  A source gets
# exactly its folder's paths, so including a header from a layer above, or
# another layer's internal header, fails to compile (`make layers`).
#
#   make            check build deps (install them as root), build both libcs
#   make ARCH=aarch64  the same for arm64 (cross toolchains from mk/deps.sh)
#   make test       unit tests (Check) + integration tests + short fuzz runs
#   make unit       unit tests only
#   make integration [T=pattern]   integration scenarios only
#   make bench      benchmarks, printed as ratios
#   make fuzz       long fuzz runs
#   make demo       start a sample JVM, attach the agent, resolve its JIT symbols
#   make install [PREFIX=/usr/local] [DESTDIR=]   the install tree (mk/install.mk)
#   make uninstall  remove exactly what install put
#   make layers     the include graph; fails if a layer includes another's inside
#   make clean      empty both output trees
#   V=1             show full command lines

.DELETE_ON_ERROR:
.SUFFIXES:
SHELL := /bin/bash

# Phase 1: install the Debian packages the goals need, then run make again.
# Flags such as Check's come from pkg-config when a makefile is parsed, so
# they can only be right in a make that starts after the packages are there
# (a fresh machine has none of them).  JSYM_DEPS_DONE marks the second make.
ifeq ($(JSYM_DEPS_DONE),)

GOALS := $(or $(MAKECMDGOALS),all)
# uninstall only removes files; install builds, so it needs the build level.
NO_DEPS_GOALS := clean uninstall layers print-inc
DEPS_LEVEL := $(if $(filter bench,$(GOALS)),bench,$(if $(filter test integration fuzz asan \
	fuzz-short,$(GOALS)),test,$(if $(filter demo,$(GOALS)),demo,build)))

.PHONY: $(GOALS) jsym-phase2
$(GOALS): jsym-phase2
	@:
jsym-phase2:
	$(if $(filter-out $(NO_DEPS_GOALS),$(GOALS)),@bash mk/deps.sh $(DEPS_LEVEL) $(ARCH))
	@$(MAKE) --no-print-directory JSYM_DEPS_DONE=1 $(MAKECMDGOALS)

else

.DEFAULT_GOAL := all

V ?= 0
ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-7s %s\n' '$(1)' '$(2)';
endif

LIBCS := glibc musl
ROOT := $(CURDIR)
# ARCH, the output trees B_glibc and B_musl, CC_glibc and CC_musl.
include mk/arch.mk

# OpenJDK headers: $JAVA_HOME if it has them, else Debian's JDK 17.
JAVA_INC := $(firstword $(foreach h,$(JAVA_HOME) /usr/lib/jvm/java-17-openjdk-$(HOST_DEBARCH),\
	$(if $(wildcard $(h)/include/jvmti.h),$(h)/include)))
ifeq ($(JAVA_INC),)
JAVA_INC := /usr/lib/jvm/java-17-openjdk-$(HOST_DEBARCH)/include
endif

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-unused-parameter -Wformat=2 -Wvla
CFLAGS ?= -O2 -g
COMMON_CFLAGS = -std=gnu11 $(WARN) -fPIC -fno-strict-aliasing -D_GNU_SOURCE \
	-I$(JAVA_INC) -I$(JAVA_INC)/linux -MMD -MP $(CFLAGS)
# The glibc build links against old symbol versions (see agent/jvm/glibc_compat.h)
# so it loads on glibc >= 2.17; fortified wrappers would pull in newer ones.
CFLAGS_glibc := -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=0
CFLAGS_musl :=

# Per-object flag additions, set by fragments: $(<obj>_CFLAGS) is appended.
# src_inc(source): the include paths of the source's folder.
src_inc = $(INC_$(patsubst %/,%,$(dir $(1))))
$(B_glibc)/obj/%.o: %.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_glibc) $(COMMON_CFLAGS) $(call src_inc,$<) $(CFLAGS_glibc) $($@_CFLAGS) -c -o $@ $<

$(B_musl)/obj/%.o: %.c | $(MUSL_SPECS)
	$(call msg,MUSLCC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC_musl) $(COMMON_CFLAGS) $(call src_inc,$<) $(CFLAGS_musl) $($@_CFLAGS) -c -o $@ $<

# obj_of(libc, sources) -> object paths in that libc's tree
obj_of = $(patsubst %.c,$(B_$(1))/obj/%.o,$(2))

# Fragments append to these:
#   ALL_glibc, ALL_musl   artifacts `make` builds in each tree
#   UNIT_SRCS             module sources (no main) linked into the Check runner
#   UNIT_LIBS             extra link flags for the Check runner
ALL_glibc :=
ALL_musl :=
UNIT_SRCS :=
UNIT_LIBS :=

# Bottom layers first: a fragment may use the variables of those below it.
include common/common.mk
include agent/format/format.mk
include agent/jvm/agent.mk
include attach/base/base.mk
include attach/proc/proc.mk
include attach/hotspot/hotspot.mk
include attach/openj9/openj9.mk
include attach/deploy/deploy.mk
include attach/vmstructs/vmstructs.mk
include attach/lookup/lookup.mk
include attach/run/run.mk
include attach/attaching/attaching.mk
include attach/cli/cli.mk
include tests/tests.mk
# The containers' helper, the emulators and the fuzzers run on the build
# machine only: a cross build has the product and the unit runner.
ifeq ($(ARCH),$(HOST_ARCH))
include tests/kit/kit.mk
include tests/emu/emu.mk
include tests/fuzz/fuzz.mk
endif
include mk/install.mk
include mk/sanitize.mk

.PHONY: all glibc musl clean test unit \
	integration bench fuzz fuzz-short demo asan tsan layers print-inc

all: glibc musl
glibc: $(ALL_glibc)
musl: $(ALL_musl)

demo: all
	$(Q)bash mk/demo.sh

# The include graph of the layers; fails if a layer includes another's
# inside, or if an open of attach/ bypasses the confined
# open (tests/integration/03-layers.sh runs both too).
layers:
	$(Q)bash tests/lib/include_graph.sh --check
	$(Q)bash tests/lib/confine_check.sh

# print-inc DIR=attach/cli: the include paths a source of that folder gets.
print-inc:
	@echo '$(INC_$(DIR))'

clean:
	$(call msg,CLEAN,$(B_glibc) $(B_musl))
	$(Q)for d in $(B_glibc) $(B_musl); do [ ! -d $$d ] || find $$d -mindepth 1 -not -name .gitkeep -delete; done

-include $(shell find $(B_glibc) $(B_musl) -name '*.d' 2>/dev/null)

endif
