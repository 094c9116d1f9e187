/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_stacks.c - `jsym stacks`: `perf script` samples on stdin -> folded
 * stacks on stdout, JIT frames expanded into their inline stacks.
 *
 *   perf script --no-inline -i perf.jit.data | jsym stacks --pid PID [--lines]
 *   ... | jsym stacks --journal FILE | --map FILE [--at SECONDS] [--lines]
 *
 * The JVM's files are found and opened as `jsym resolve` finds them
 * (cli_resolve_files.c); the folding is the lookup library's
 * (attach/lookup/lookup_stacks.c).  This file parses the options, reads
 * the journal or map once, feeds stdin's lines and prints the stacks.  The
 * output is data for FlameGraph, inferno or speedscope, so names are not
 * escaped for a terminal: the folding already wrote every ';', '\' and
 * control byte of a name as \xHH, so no name forges a frame or a line.
 *
 * Exit status: JSYM_EXIT_OK it ran, JSYM_EXIT_USAGE, JSYM_EXIT_FAIL files
 * missing or unreadable, no memory, output not written.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "cli.h"
#include "cli_resolve_files.h"
#include "lookup_lib.h"

struct stacks_env {
	long pid;
	const char *dir, *journal, *map;
	int lines, verbose;
	uint64_t at_ns;
};

/* Read the journal or map into lk.  0 or -1 (printed). */
static int load(const struct stacks_env *env, struct resolve_source *src, struct lookup *lk)
{
	struct err_text err = { "" };
	struct lookup_stats st;
	long n;

	(src->is_journal ? lookup_follow_journal : lookup_follow_map)(lk, src->fd);
	lookup_set_until(lk, env->at_ns);
	watch_step(resolve_read_limit_ms(src->fd), "stacks' read of the JVM's files");
	n = lookup_refresh(lk, &err);
	watch_step(0, NULL);        /* stdin may take its time */
	if (n == -EBADMSG || n == -EIO)
		cli_err("%s: %s (using what came before it)", src->path, err.msg);
	else if (n < 0 && n != -EAGAIN) {
		cli_err("%s: %s", src->path, err.msg[0] ? err.msg : strerror((int)-n));
		return -1;
	}
	lookup_get_stats(lk, &st);
	if (!src->is_journal)
		cli_err("%s is a perf map: it has no inline stacks, JIT frames are not "
			"expanded%s", src->path, env->lines ? " and have no lines" : "");
	if (env->at_ns && !src->is_journal)
		cli_err("--at ignored: %s is a perf map, which has no times", src->path);
	if (st.source == LOOKUP_SOURCE_JOURNAL && st.live == 0 && !env->at_ns)
		cli_err("%s has no live code (the agent stopped?): give --at SECONDS, a "
			"sample time, to fold as of then", src->path);
	if (env->verbose)
		cli_err("%s: %" PRIu64 " %s, %zu live ranges, %zu inline-chain ranges",
			src->path, st.records, src->is_journal ? "records" : "lines",
			st.live, st.chains);
	return 0;
}

static int put_stack(void *arg, const char *stack, size_t len, uint64_t count)
{
	(void)arg;
	if (fwrite(stack, 1, len, stdout) != len || printf(" %" PRIu64 "\n", count) < 0)
		return -EIO;
	return 0;
}

/* stdin -> folded stacks on stdout.  0 or -1 (printed). */
static int fold(const struct stacks_env *env, struct lookup *lk)
{
	struct lookup_stacks *s = lookup_stacks_new(lk, env->lines ? LOOKUP_STACKS_LINES : 0);
	struct lookup_stacks_stats st;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = s ? 0 : -ENOMEM;

	while (rc == 0 && (n = getline(&line, &cap, stdin)) > 0)
		rc = lookup_stacks_line(s, line, (size_t)n);
	free(line);
	if (rc == 0 && ferror(stdin))
		rc = -EIO;
	if (rc == 0)
		rc = lookup_stacks_end(s);
	if (rc < 0) {
		cli_err("cannot fold the samples: %s", rc == -E2BIG ?
			"more than 256 MiB of distinct stacks" : strerror(-rc));
		lookup_stacks_free(s);
		return -1;
	}
	rc = lookup_stacks_each(s, put_stack, NULL);
	lookup_stacks_get_stats(s, &st);
	if (env->verbose)
		cli_err("%" PRIu64 " samples, %zu stacks; %" PRIu64 " JIT frames, %" PRIu64
			" expanded into inline stacks, %" PRIu64 " not found (perf's name "
			"kept); %" PRIu64 " lines skipped", st.samples, st.stacks,
			st.jit_frames, st.expanded, st.unresolved, st.bad_lines);
	else if (st.jit_frames && st.unresolved * 10 > st.jit_frames)
		cli_err("%" PRIu64 " of %" PRIu64 " JIT frames not found in the JVM's "
			"files (perf's names kept): another JVM's samples, or code "
			"unloaded before the files were read", st.unresolved, st.jit_frames);
	lookup_stacks_free(s);
	if (rc != 0 || fflush(stdout) != 0 || ferror(stdout)) {
		if (errno == EPIPE)
			return 0;
		cli_err("cannot write output: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int run(const struct stacks_env *env)
{
	struct resolve_source src;
	const char *file = env->journal ? env->journal : env->map;
	struct lookup *lk;
	int rc;

	watch_step(CLI_LOOK_MS, "stacks' look for the JVM's files");
	if ((file ? resolve_open_file(file, env->journal != NULL, &src)
		  : resolve_open_pid(env->pid, env->dir, env->verbose, &src)) < 0) {
		resolve_close(&src);
		return JSYM_EXIT_FAIL;
	}
	lk = lookup_new();
	if (!lk) {
		close(src.fd);
		resolve_close(&src);
		cli_err("out of memory");
		return JSYM_EXIT_FAIL;
	}
	rc = load(env, &src, lk);
	if (rc == 0)
		rc = fold(env, lk);
	watch_step(CLI_LOOK_MS, "stacks' close of the JVM's files");
	lookup_free(lk);
	resolve_close(&src);
	return rc < 0 ? JSYM_EXIT_FAIL : JSYM_EXIT_OK;
}

static int set_opt(struct stacks_env *env, int c, const char *arg)
{
	pid_t pid;

	switch (c) {
	case 'p':
		if (text_parse_pid(arg, &pid) != 0) {
			cli_err("stacks: bad pid '%s' (a positive number)", arg);
			return -EINVAL;
		}
		env->pid = pid;
		return 0;
	case 'd': env->dir = arg; return 0;
	case OPT_JOURNAL: env->journal = arg; return 0;
	case 'm': env->map = arg; return 0;
	case OPT_LINES: env->lines = 1; return 0;
	case OPT_AT:
		if (resolve_parse_seconds(arg, &env->at_ns) < 0) {
			cli_err("stacks: bad --at '%s' (seconds, e.g. 12345.678901)", arg);
			return -EINVAL;
		}
		return 0;
	case 'v': env->verbose = 1; return 0;
	default:
		cli_err("usage: perf script | jsym stacks --pid PID | --journal FILE | "
			"--map FILE [options] (see jsym stacks --help)");
		return -EINVAL;
	}
}

int cli_stacks_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "dir", required_argument, NULL, 'd' },
		{ "journal", required_argument, NULL, OPT_JOURNAL },
		{ "map", required_argument, NULL, 'm' },
		{ "lines", no_argument, NULL, OPT_LINES },
		{ "at", required_argument, NULL, OPT_AT },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct stacks_env env = { .pid = 0 };
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "p:d:m:vh", longopts)) != -1) {
		if (c == 'h') {
			cli_help(stdout, "stacks");
			return JSYM_EXIT_OK;
		}
		if (set_opt(&env, c, optarg) < 0)
			return JSYM_EXIT_USAGE;
	}
	if (optind < argc) {
		cli_err("stacks: unexpected argument '%s': the samples come on stdin "
			"(see jsym stacks --help)", argv[optind]);
		return JSYM_EXIT_USAGE;
	}
	if ((env.pid != 0) + (env.journal != NULL) + (env.map != NULL) != 1) {
		cli_err("stacks: give exactly one of --pid, --journal, --map "
			"(see jsym stacks --help)");
		return JSYM_EXIT_USAGE;
	}
	return run(&env);
}
