# SPDX-License-Identifier: Apache-2.0
# attach/target/target.mk - what jsym learns about a target process and how
# it reaches into it: /proc facts and their parsers, namespaces,
# credentials, the confined open inside a target's root.  Uses base only.

ATTACH_TARGET_SRCS := attach/target/proc.c attach/target/proc_opts.c attach/target/jdk_version.c \
	attach/target/proc_ct.c attach/target/target.c \
	attach/target/ns.c attach/target/creds.c attach/target/uts.c
# EXP_<folder>: what the layers above see, the folder's entry header (its
# include/ holds that one header) and the entries below it; INC_<folder>:
# the folder's own headers and EXP_<folder>.
EXP_attach/target := -Iattach/target/include $(EXP_attach/base)
INC_attach/target := -Iattach/target $(EXP_attach/target)
