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
 *   nounwind      a jitdump without unwinding data (JIT_CODE_UNWINDING_INFO:
 *                 perf --call-graph dwarf walks JIT frames only with it)
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
	bool nounwind;       /* the jitdump without unwinding data */
	unsigned long long jitdump_max;   /* bytes; 0 = unbounded */
};

#define AGENT_JOURNAL_MAX_DEFAULT (16ull << 20)
#define AGENT_JOURNAL_MAX_MIN (64ull << 10)
#define AGENT_JOURNAL_MAX_MAX (1ull << 30)
#define AGENT_JITDUMP_MAX_DEFAULT (64ull << 20)

/*
 * The options of one output of the sink, one row per output that has any:
 * its row in the sink's table (sink_outputs[], agent/jvm/sink_output.h)
 * points here, and options.c parses and lists ("known: ...") the keys of
 * these rows only from options_outputs[], so a new output's options are a
 * row, not code.  The table lives here, not in the sink, because the sink
 * is built on this file (sink_output.h includes options.h) and the option
 * parser links without it (tests/fuzz's agent_names harness).
 */
struct options_output {
	const char *on_key;   /* flag that turns the output on ("jitdump"), or
	                         NULL: always on */
	size_t on_at;         /* offsetof its bool in struct agent_opts */
	const char *max_key;  /* its size cap, KEY=SIZE ("journal_max"), or NULL;
	                         every cap takes 0 or 64k..1g
	                         (AGENT_JOURNAL_MAX_MIN..AGENT_JOURNAL_MAX_MAX) */
	size_t max_at;        /* offsetof its unsigned long long */
	unsigned long long max_default;
};

extern const struct options_output options_journal, options_jitdump;
/* The rows, in the order of sink_outputs[] (a unit case checks it). */
extern const struct options_output *const options_outputs[];
extern const size_t options_n_outputs;

/* Defaults: dir=/tmp, flush_ms=100, journal_max=16m, jitdump_max=64m, flags
 * off. */
void options_defaults(struct agent_opts *o);

/*
 * Parse `s` over the defaults into *o.  Returns 0, or -EINVAL with a
 * one-line reason in why ("unknown option 'foo' (known: dir=PATH, unfold,
 * ...)", the list options.c's KNOWN and options_outputs[] give).  *o is
 * unspecified after an error.
 */
int options_parse(const char *s, struct agent_opts *o, struct err_text *why);

#endif
