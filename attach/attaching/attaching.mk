# SPDX-License-Identifier: Apache-2.0
# attach/attaching/attaching.mk - the attach use case below the CLI: one
# JVM's attach (prechecks, gates, deploy, load, the map fallback) and
# --all's list and fair pool.  Uses run, deploy, vmstructs, target and base.

ATTACH_ATTACHING_SRCS := attach/attaching/attaching.c attach/attaching/gate.c \
	attach/attaching/check.c attach/attaching/all.c
EXP_attach/attaching := -Iattach/attaching/include $(EXP_attach/run) $(EXP_attach/vmstructs)
INC_attach/attaching := -Iattach/attaching $(EXP_attach/attaching)
