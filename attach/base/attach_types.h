/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attach_types.h - the few types every attach protocol shares.
 *
 * A protocol module (hotspot.c, openj9.c) turns one jattach-style command
 * (`load`, `properties`, `threaddump`, `jcmd`, ...) into its wire form, streams
 * the JVM's text to an fd and summarises the outcome in a struct
 * attach_reply.  Modules never print and never exit: they return 0 or
 * -errno and, where a reason is worth more than an errno, fill `err`.
 */
#ifndef JSYM_ATTACH_TYPES_H
#define JSYM_ATTACH_TYPES_H

#include <stdbool.h>
#include <stddef.h>

/* HotSpot's result line for "protocol version not supported" (a v2 request
 * to a JVM that does not offer v2). */
#define ATTACH_HS_NO_PROTOCOL 101

/* Outcome of one command the JVM answered (the call itself returned 0). */
struct attach_reply {
	int vm_code;            /* the JVM's result: HotSpot's first line (0, -1,
	                           101, ...); OpenJ9: 0 for ATTACH_ACK / data,
	                           -1 for ATTACH_ERR */
	bool agent_code_known;  /* `load` only: the agent's Agent_OnAttach result
	                           was reported */
	int agent_code;         /* that result when agent_code_known */
	bool failed;            /* the JVM refused or the command failed, even if
	                           vm_code is 0 (JDK 21+ load errors, OpenJ9 ERR) */
	char message[512];      /* first line(s) of the JVM's error text, if any */
};

/*
 * Verbose step log: one line per step ("socket found after 23 ms").  Modules
 * call attach_step(); the CLI decides where (if anywhere) lines go.
 */
typedef void (*attach_step_fn)(void *ctx, const char *line);

struct attach_log {
	attach_step_fn fn;      /* NULL: steps are dropped */
	void *ctx;
};

/* Format one step line and hand it to log->fn (no-op when log or fn is NULL). */
void attach_step(const struct attach_log *log, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
