/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hs_reply.h - HotSpot attach wire format: requests (v1, v2) and replies.
 *
 * Pure functions over buffers, no I/O (hotspot.c does the socket work), so
 * every byte rule is unit-tested and fuzzed (tests/fuzz/fuzz_hs_reply.c).
 * Facts: docs/protocols.md sections A5-A8 and D.
 */
#ifndef JSYM_HS_REPLY_H
#define JSYM_HS_REPLY_H

#include <stdbool.h>
#include <stddef.h>

#include "base.h"

#define HS_V1_NAME_MAX 16        /* bytes, without the NUL */
#define HS_V1_ARG_MAX 1024       /* bytes per argument, without the NUL */
#define HS_V1_NARGS 3            /* v1 always carries exactly 3 arguments */
#define HS_V2_BODY_MAX (256 * 1024) /* JDK 24+ reject a larger size field */

/*
 * Encode a v1 request `1 NUL name NUL a0 NUL a1 NUL a2 NUL` into buf.
 * nargs may be 0..3; missing arguments are sent empty.  Returns the length,
 * or -ENAMETOOLONG (name > 16 bytes or empty), -E2BIG (more than 3 args),
 * -EMSGSIZE (an argument > 1024 bytes), -ENOBUFS (buf too small).  Those
 * limits are what every HotSpot checks; it silently closes on a violation.
 */
int hs_encode_v1(char *buf, size_t cap, const char *name,
		 const char *const *args, int nargs);

/*
 * Encode a v2 request `2 NUL <size> NUL name NUL (arg NUL)*` (JDK 24+):
 * size counts the bytes after the size field's NUL.  Any number of args.
 * Returns the length, -ENAMETOOLONG (empty name), -EMSGSIZE (body over
 * 256 KiB) or -ENOBUFS.
 */
int hs_encode_v2(char *buf, size_t cap, const char *name,
		 const char *const *args, int nargs);

/* Which v1 limit a request breaks: 0 if it fits, else as hs_encode_v1. */
int hs_v1_check(const char *name, const char *const *args, int nargs);

/*
 * Parse the result line (the bytes before the first '\n', without it):
 * optional '-', decimal digits, value within int.  0 or -EPROTO.
 */
int hs_parse_code(const char *line, size_t len, int *code);

/*
 * Summarise a complete reply (result line + body as read to EOF) in r.
 * is_load selects the `load` rules (docs/protocols.md A8): code != 0 fails; code 0
 * with a first body line `return code: N` (JDK 10+) or a bare `N` (8u)
 * reports the agent's result; anything else after 0 is a JVM error text
 * (JDK 21+ always answer 0).  Other commands: code != 0 fails, with 101
 * meaning "protocol version not supported".  The message holds the first
 * 511 bytes of the body (NULs replaced) when the command failed.
 * Returns 0, or -EPROTO when there is no result line at all (empty reply:
 * the JVM closed without answering, e.g. a credential mismatch).
 */
int hs_parse_reply(const char *buf, size_t len, bool is_load,
		   struct attach_reply *r);

/*
 * Apply the rules above to a reply whose code is already known and whose
 * body (or its first part) is in body.  Used when the body is streamed.
 */
void hs_reply_judge(int code, const char *body, size_t len, bool is_load,
		    struct attach_reply *r);

/*
 * Parse the body of a `getversion` reply ("2", "2 streaming", "1").
 * Returns the protocol version (>= 1) or -EPROTO; *streaming is set when the
 * option list names `streaming`.
 */
int hs_parse_getversion(const char *body, size_t len, bool *streaming);

#endif
