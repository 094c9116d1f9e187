# attach/base/base.mk - the bottom layer of the attach side: error text,
# verbose step lines, the monotonic clock, target text made safe for a
# terminal.  Includes nothing of jsym's.

ATTACH_BASE_SRCS := attach/base/errtext.c attach/base/steplog.c attach/base/clock.c \
	attach/base/fileio.c attach/base/termtext.c
INC_attach/base := -Iattach/base
