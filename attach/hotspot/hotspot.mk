# SPDX-License-Identifier: Apache-2.0
# attach/hotspot/hotspot.mk - the HotSpot attach protocol (docs/protocols.md A):
# hotspot.c (trigger, signal, socket wait, requests) over hs_io.c (one
# connection) and hs_reply.c (reply parsing).  Uses target and base.

ATTACH_HOTSPOT_SRCS := attach/hotspot/hs_reply.c attach/hotspot/hs_io.c attach/hotspot/hotspot.c
INC_attach/hotspot := -Iattach/hotspot $(INC_attach/target)
