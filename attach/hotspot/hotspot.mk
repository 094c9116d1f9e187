# SPDX-License-Identifier: Apache-2.0
# attach/hotspot/hotspot.mk - the HotSpot attach protocol (docs/protocols.md A):
# hotspot.c (trigger, signal, socket wait, requests) over hs_io.c (one
# connection), hs_reply.c (reply parsing) and hs_tmpdir.c (the JVM's temp
# dir: /tmp or JDK 28's -XX:AltTempDir).  Uses target and base.

ATTACH_HOTSPOT_SRCS := attach/hotspot/hs_reply.c attach/hotspot/hs_io.c attach/hotspot/hs_tmpdir.c \
	attach/hotspot/hotspot.c
EXP_attach/hotspot := -Iattach/hotspot/include $(EXP_attach/proc)
INC_attach/hotspot := -Iattach/hotspot $(EXP_attach/hotspot)
