# SPDX-License-Identifier: Apache-2.0
# mk/install.mk - `make install` and `make uninstall`.
#
#   make install [PREFIX=/usr/local] [DESTDIR=]
#   make uninstall [PREFIX=/usr/local] [DESTDIR=]
#
# The install tree is self-contained, so it runs anywhere (a debug image's
# root, a copy on another machine):
#
#   $(PREFIX)/bin/jsym                        the static musl build
#   $(PREFIX)/lib/jsym/{glibc,musl}/libjsym-agent.so, jsym-probe
#                                             both agent builds and probes, where
#                                             attach/deploy/builds.c looks for
#                                             them from bin/jsym
#   $(PREFIX)/lib/libjsym-lookup.so.1         the public lookup library (glibc
#                                             build; loads on glibc >= 2.17)
#   $(PREFIX)/lib/libjsym-lookup.so           -> libjsym-lookup.so.1, for -l
#   $(PREFIX)/lib/libjsym-lookup.a            the same, for static linking
#   $(PREFIX)/include/jsym/lookup.h           its header, the public API
#                                             (docs/lookup.md); the internal
#                                             headers are not installed
#   $(PREFIX)/lib/pkgconfig/jsym-lookup.pc    version: the API's (1.0)
#   $(PREFIX)/share/man/man1/jsym.1
#   $(PREFIX)/share/doc/jsym/LICENSE          the Apache-2.0 licence, with
#                                             every copy of the binaries
#
# bin/jsym is the musl build because it is static: a debug image made of
# this tree alone has no libc for a dynamic jsym.  The install fails when it
# is not static (mk/install.sh checks), rather than ship a tree that breaks
# far from here.  A program linked with -ljsym-lookup finds the .so.1 in
# $(PREFIX)/lib through the loader's cache: run ldconfig after installing
# into a system prefix (a DESTDIR install cannot, and does not).
# `make uninstall` removes exactly the files and links listed in
# INSTALL_FILES and then the directories of jsym's own (lib/jsym,
# include/jsym, share/doc/jsym) when they are empty; shared directories (bin, lib, man1)
# stay.

PREFIX ?= /usr/local
DESTDIR ?=

# destination:source:mode, one per installed file; the list both rules walk.
# Mode `link` makes destination a symbolic link to source (relative to it).
INSTALL_FILES := \
	bin/jsym:$(B_musl)/jsym:0755 \
	$(foreach l,$(LIBCS),lib/jsym/$(l)/libjsym-agent.so:$(B_$(l))/libjsym-agent.so:0755 \
		lib/jsym/$(l)/jsym-probe:$(B_$(l))/jsym-probe:0755) \
	lib/libjsym-lookup.so.1:$(B_glibc)/libjsym-lookup.so.1:0644 \
	lib/libjsym-lookup.so:libjsym-lookup.so.1:link \
	lib/libjsym-lookup.a:$(B_glibc)/libjsym-lookup.a:0644 \
	include/jsym/lookup.h:attach/lookup/include/jsym/lookup.h:0644 \
	lib/pkgconfig/jsym-lookup.pc:$(B_glibc)/gen/jsym-lookup.pc:0644 \
	share/man/man1/jsym.1:docs/jsym.1:0644 \
	share/doc/jsym/LICENSE:LICENSE:0644
INSTALL_SRCS := $(foreach f,$(filter-out %:link,$(INSTALL_FILES)),$(word 2,$(subst :, ,$(f))))

# One .pc for the build tree and the install (attach/lookup/jsym-lookup.pc.in):
# it names PREFIX, so it is generated at every install and replaced only when
# its text changes (another PREFIX).  Its version is the public API's
# (LOOKUP_SO_VERSION), what `pkg-config --atleast-version` users test.
$(B_glibc)/gen/jsym-lookup.pc: attach/lookup/jsym-lookup.pc.in FORCE
	@mkdir -p $(@D)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(LOOKUP_SO_VERSION)|g' $< >$@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

.PHONY: install uninstall FORCE
FORCE:

install: $(INSTALL_SRCS)
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)bash mk/install.sh install '$(DESTDIR)$(PREFIX)' $(INSTALL_FILES)

uninstall:
	$(call msg,UNINST,$(DESTDIR)$(PREFIX))
	$(Q)bash mk/install.sh uninstall '$(DESTDIR)$(PREFIX)' $(INSTALL_FILES)
