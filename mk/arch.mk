# SPDX-License-Identifier: Apache-2.0
# mk/arch.mk - the target architecture, its output trees and its compilers.
#
#   make                   x86_64: glibc-build/, musl-build/ (gcc, musl-gcc)
#   make ARCH=aarch64      arm64:  glibc-build-aarch64/, musl-build-aarch64/
#
# Sets ARCH (the machine's own unless given), HOST_DEBARCH (the machine's
# Debian architecture: amd64, arm64), B_glibc and B_musl (the two output trees:
# every rule names its outputs through them), CC_glibc and CC_musl, and
# MUSL_SPECS (a prerequisite of every musl object; empty when the host's own
# musl-gcc is used).  ARCH is also what jsym calls the architecture in its
# messages (attach/deploy/builds.c), and what mk/deps.sh installs the cross
# toolchain for.  Only x86_64 and aarch64 are known: any other ARCH stops
# here rather than produce trees nobody tests.
#
# The cross glibc compiler is Debian's gcc-aarch64-linux-gnu (its sysroot is
# libc6-dev-arm64-cross; libcap and Check come from the arm64 multiarch
# packages).  Debian ships no musl-gcc for arm64: CC_musl is the same cross
# gcc pointed at musl-dev:arm64 by a specs file derived from the host's
# musl-gcc.specs (paths of x86_64-linux-musl -> aarch64-linux-musl, the
# loader ld-musl-x86_64.so.1 -> ld-musl-aarch64.so.1).  -mno-outline-atomics:
# gcc 12 otherwise calls libgcc's LSE helpers, whose initialiser needs glibc's
# __getauxval, which musl does not have.

HOST_ARCH := $(shell uname -m)
HOST_DEBARCH := $(shell dpkg --print-architecture)
ARCH ?= $(HOST_ARCH)
KNOWN_ARCHS := x86_64 aarch64
ifeq ($(filter $(ARCH),$(KNOWN_ARCHS)),)
$(error ARCH=$(ARCH) is not one of $(KNOWN_ARCHS))
endif

ifeq ($(ARCH),x86_64)
B_glibc := glibc-build
B_musl := musl-build
else
B_glibc := glibc-build-$(ARCH)
B_musl := musl-build-$(ARCH)
endif

ifeq ($(ARCH),$(HOST_ARCH))
CC_glibc := gcc
CC_musl := musl-gcc
MUSL_SPECS :=
PKG_CONFIG := pkg-config
else
CROSS := $(ARCH)-linux-gnu-
CC_glibc := $(CROSS)gcc
MUSL_SPECS := $(B_musl)/gen/musl-gcc.specs
CC_musl := $(CROSS)gcc -specs $(ROOT)/$(MUSL_SPECS) -mno-outline-atomics
PKG_CONFIG := PKG_CONFIG_LIBDIR=/usr/lib/$(ARCH)-linux-gnu/pkgconfig pkg-config
HOST_MUSL_SPECS := /usr/lib/$(HOST_ARCH)-linux-musl/musl-gcc.specs

$(MUSL_SPECS): $(HOST_MUSL_SPECS) mk/arch.mk
	$(call msg,GEN,$@)
	@mkdir -p $(@D)
	$(Q)sed -e 's|/$(HOST_ARCH)-linux-musl|/$(ARCH)-linux-musl|g' \
		-e 's|ld-musl-$(HOST_ARCH)\.so|ld-musl-$(ARCH).so|g' $< >$@.tmp && mv $@.tmp $@
endif
