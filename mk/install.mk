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
#   $(PREFIX)/lib/libjsym-lookup.a            the lookup library (glibc build)
#   $(PREFIX)/include/jsym/*.h                its headers
#   $(PREFIX)/lib/pkgconfig/jsym-lookup.pc
#   $(PREFIX)/share/man/man1/jsym.1
#
# bin/jsym is the musl build because it is static: a debug image made of
# this tree alone has no libc for a dynamic jsym.  The install fails when it
# is not static (mk/install.sh checks), rather than ship a tree that breaks
# far from here.  `make uninstall` removes exactly the files listed in
# INSTALL_FILES and then the directories of jsym's own (lib/jsym,
# include/jsym) when they are empty; shared directories (bin, lib, man1)
# stay.

PREFIX ?= /usr/local
DESTDIR ?=

# destination:source:mode, one per installed file; the list both rules walk.
INSTALL_HEADERS := agent/lookup/lookup.h agent/lookup/journal_read.h \
	agent/lookup/perfmap_read.h agent/format/journal_format.h
INSTALL_FILES := \
	bin/jsym:musl-build/jsym:0755 \
	$(foreach l,$(LIBCS),lib/jsym/$(l)/libjsym-agent.so:$(l)-build/libjsym-agent.so:0755 \
		lib/jsym/$(l)/jsym-probe:$(l)-build/jsym-probe:0755) \
	lib/libjsym-lookup.a:glibc-build/libjsym-lookup.a:0644 \
	$(foreach h,$(INSTALL_HEADERS),include/jsym/$(notdir $(h)):$(h):0644) \
	lib/pkgconfig/jsym-lookup.pc:glibc-build/gen/jsym-lookup.pc:0644 \
	share/man/man1/jsym.1:docs/jsym.1:0644
INSTALL_SRCS := $(foreach f,$(INSTALL_FILES),$(word 2,$(subst :, ,$(f))))

# The .pc file names PREFIX, so it is generated at every install and
# replaced only when its text changes (another PREFIX).
glibc-build/gen/jsym-lookup.pc: mk/jsym-lookup.pc.in FORCE
	@mkdir -p $(@D)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(JSYM_PC_VERSION)|g' $< >$@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

JSYM_PC_VERSION := $(shell sed -n 's/^\#define JSYM_VERSION "\(.*\)"/\1/p' attach/cli/cli.h)

.PHONY: install uninstall FORCE
FORCE:

install: $(INSTALL_SRCS)
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)bash mk/install.sh install '$(DESTDIR)$(PREFIX)' $(INSTALL_FILES)

uninstall:
	$(call msg,UNINST,$(DESTDIR)$(PREFIX))
	$(Q)bash mk/install.sh uninstall '$(DESTDIR)$(PREFIX)' $(INSTALL_FILES)
