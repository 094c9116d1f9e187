# SPDX-License-Identifier: Apache-2.0
# attach/openj9/openj9.mk - the OpenJ9 attach protocol (docs/protocols.md B).
# Uses target and base.

ATTACH_OPENJ9_SRCS := attach/openj9/openj9.c attach/openj9/openj9_fs.c attach/openj9/openj9_net.c \
	attach/openj9/openj9_props.c attach/openj9/openj9_proto.c
EXP_attach/openj9 := -Iattach/openj9/include $(EXP_attach/proc)
INC_attach/openj9 := -Iattach/openj9 $(EXP_attach/openj9)
