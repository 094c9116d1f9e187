# SPDX-License-Identifier: Apache-2.0
# attach/base/base.mk - the bottom layer of the attach side: error text,
# verbose step lines, the monotonic clock, whole writes, small-file reads,
# lock waits (fdio), type-checked opens of planted files (regular), strict numbers and JSON strings (text), target text
# made safe for a terminal (termtext), a command watched from a parent that
# can give up on it (watch).  Includes only common/ (wholeio:
# fdio's writes and waits; errtext: struct err_text), the bottom layer it
# shares with the agent.

ATTACH_BASE_SRCS := attach/base/steplog.c attach/base/clock.c \
	attach/base/fdio.c attach/base/text.c attach/base/termtext.c \
	attach/base/watch.c $(CONFINE_SRCS) \
	$(PROCSTATUS_SRCS)
# What the layers above see: the entry base.h only (attach/base/include/),
# and common/, whose errtext.h base.h includes; the folder's own sources
# see its headers too.
EXP_attach/base := -Iattach/base/include $(INC_common)
INC_attach/base := -Iattach/base $(EXP_attach/base)
