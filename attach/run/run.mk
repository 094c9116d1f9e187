# SPDX-License-Identifier: Apache-2.0
# attach/run/run.mk - the forked attach child that runs one protocol command
# inside the target's namespaces.  Uses the protocols, target and base.

ATTACH_RUN_SRCS := attach/run/run.c attach/run/pool.c
INC_attach/run := -Iattach/run $(INC_attach/hotspot) -Iattach/openj9 $(INC_attach/deploy)
