# SPDX-License-Identifier: Apache-2.0
# attach/proc/proc.mk - what jsym learns about a target process and how
# it reaches into it: /proc facts and their parsers, namespaces,
# credentials, the confined open inside a target's root.  Uses base only.

ATTACH_PROC_SRCS := attach/proc/proc.c attach/proc/proc_opts.c attach/proc/jdk_version.c \
	attach/proc/proc_ct.c attach/proc/target.c \
	attach/proc/ns.c attach/proc/creds.c attach/proc/uts.c attach/proc/visit.c
# EXP_<folder>: what the layers above see, the folder's entry header (its
# include/ holds that one header) and the entries below it; INC_<folder>:
# the folder's own headers and EXP_<folder>.
EXP_attach/proc := -Iattach/proc/include $(EXP_attach/base)
INC_attach/proc := -Iattach/proc $(EXP_attach/proc)
