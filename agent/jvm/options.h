/* SPDX-License-Identifier: Apache-2.0 */
/*
 * options.h - the agent's option string (-agentpath:lib=OPTS, or the third
 * argument of the attach `load` command).
 *
 * Comma-separated `key=value` pairs and flags:
 *   dir=PATH      output directory (absolute, default /tmp)
 *   unfold        also journal the inline chains of compiled code (JF_FRAMES)
 *   lines         unfold, with source files, bcis and lines in the chains
 *   verbose       may write one-line messages to the JVM's stderr
 *   stop          disable events and close the outputs
 *   flush_ms=N    flush period in ms, 1..60000 (default 100)
 *   journal_max=SIZE  start the journal over (with the live code) when it
 *                 passes SIZE bytes; k/m/g suffixes (1024-based), 64k..1g or
 *                 0 = never (default 16m)
 *   jitdump       also write jit-<pid>.dump for perf inject --jit (with
 *                 lines: with source lines)
 *   jitdump_max=SIZE  stop adding code to the jitdump past SIZE bytes; the
 *                 same sizes as journal_max (default 64m, 0 = never)
 * Keys match exactly (no prefixes).  An empty string or NULL = defaults.
 */
#ifndef JSYM_OPTIONS_H
#define JSYM_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "errtext.h"

#define AGENT_DIR_MAX 1024

struct agent_opts {
	char dir[AGENT_DIR_MAX];
	bool unfold;
	bool lines;          /* implies unfold */
	bool verbose;
	bool stop;
	unsigned flush_ms;
	unsigned long long journal_max;   /* bytes; 0 = unbounded */
	bool jitdump;
	unsigned long long jitdump_max;   /* bytes; 0 = unbounded */
};

#define AGENT_JOURNAL_MAX_DEFAULT (16ull << 20)
#define AGENT_JOURNAL_MAX_MIN (64ull << 10)
#define AGENT_JOURNAL_MAX_MAX (1ull << 30)
#define AGENT_JITDUMP_MAX_DEFAULT (64ull << 20)

/* Defaults: dir=/tmp, flush_ms=100, journal_max=16m, jitdump_max=64m, flags
 * off. */
void options_defaults(struct agent_opts *o);

/*
 * Parse `s` over the defaults into *o.  Returns 0, or -EINVAL with a
 * one-line reason in why ("unknown option 'foo' (known: dir=PATH, unfold,
 * ...)", the list options.c's KNOWN gives).  *o is unspecified after an
 * error.
 */
int options_parse(const char *s, struct agent_opts *o, struct err_text *why);

#endif
