# SPDX-License-Identifier: Apache-2.0
# common/common.mk - the bottom layer the agent and the CLI share: the one
# write-everything and read-to-end loops (wholeio) and the error text every
# layer carries (errtext: struct err_text, err_set).  Includes nothing else of jsym's and
# keeps the agent's rules (common/wholeio.h: no allocation, no signals).
#
#   COMMON_SRCS   linked into the agent (agent/jvm/agent.mk lists them in
#                 AGENT_MODULE_SRCS, so they get its per-object flags and
#                 reach the unit runner that way), into jsym and into the
#                 test tools that link attach/base
COMMON_SRCS := common/wholeio.c common/errtext.c
#   CONFINE_SRCS  the one confined open of a target's paths (confine.h) and
#                 the reader that grows a buffer around wholeio's read loop
#                 (wholeread.h): not the agent's (they allocate); linked,
#                 with COMMON_SRCS, into attach/base's users
#                 (ATTACH_BASE_SRCS) and the lookup library
CONFINE_SRCS := common/confine.c common/confine_mnt.c common/wholeread.c
#   PROCSTATUS_SRCS  the one parser of /proc/<pid>/status's NStgid: line
#                 (procstatus.h): not the agent's either; linked with
#                 CONFINE_SRCS into attach/base's users and the lookup library
PROCSTATUS_SRCS := common/procstatus.c
#   (no sources) hexdigit.h, the one hex digit decoder, is inline: the
#                 maps, perf map and OpenJ9 properties parsers include it
INC_common := -Icommon
