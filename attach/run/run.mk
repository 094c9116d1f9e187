# SPDX-License-Identifier: Apache-2.0
# attach/run/run.mk - the forked attach child that runs one protocol command
# inside the target's namespaces.  Uses the protocols, target and base.

ATTACH_RUN_SRCS := attach/run/run.c attach/run/pool.c
EXP_attach/run := -Iattach/run/include $(EXP_attach/hotspot) $(EXP_attach/openj9) \
	$(EXP_attach/deploy)
INC_attach/run := -Iattach/run $(EXP_attach/run)
