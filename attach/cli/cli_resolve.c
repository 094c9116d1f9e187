/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_resolve.c - `jsym resolve`: JIT addresses of a JVM -> Java method names.
 *
 *   jsym resolve --pid PID [--dir DIR] [--json] [--follow] [-v] [ADDR...]
 *   jsym resolve --journal FILE | --map FILE [--json] [--follow] [--at SECONDS] [ADDR...]
 *
 * With --pid the files are found the way a profiler on the host must find
 * them: through /proc/PID/root (the JVM's own mount namespace) under DIR
 * (default /tmp), named with the pid the JVM sees in its own pid namespace
 * (last NStgid value).  The journal is preferred (it knows unloads); the perf
 * map is the fallback.  Everything in those files is hostile: paths are
 * resolved inside the container root by the confined open (common/confine.h:
 * RESOLVE_IN_ROOT's rules on every kernel), only regular files are read,
 * and every name is escaped for the terminal (cli_put_text) in text output.
 *
 * Exit status: JSYM_EXIT_OK it ran (resolved or not), JSYM_EXIT_USAGE,
 * JSYM_EXIT_FAIL our own failure (files missing or unreadable, no memory).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "cli.h"
#include "cli_resolve_files.h"
#include "lookup_lib.h"

struct resolve_env {
	long pid;
	const char *dir;
	const char *journal, *map;
	int json, follow, verbose;
	uint64_t at_ns; /* --at: journal records up to this CLOCK_MONOTONIC time; 0 = all */
};


/* ---- output -------------------------------------------------------------- */

/* Text output: names are the target's text, escaped (termtext.c). */
static void put_text(const char *s)
{
	cli_put_text(stdout, s);
}

/* "key":"value", the value escaped by text_json_str. */
static void put_json_str(const char *key, const char *str)
{
	printf("\"%s\":", key);
	text_json_str(stdout, str, strlen(str));
}

static const char *kind_name(int kind)
{
	switch (kind) {
	case LOOKUP_LOAD:
		return "method";
	case LOOKUP_STUB:
		return "stub";
	case LOOKUP_INLINE:
		return "inlined";
	default:
		return "map";
	}
}

/* "class":...,"method":...,"sig":... of a Java method. */
static void json_method(const struct lookup_frame *f)
{
	put_json_str("class", f->class_name);
	putchar(',');
	put_json_str("method", f->method);
	putchar(',');
	put_json_str("sig", f->signature);
}

static void json_frame(const struct lookup_frame *f)
{
	put_json_str("name", f->name);
	printf(",\"kind\":\"%s\",\"start\":\"0x%" PRIx64 "\",\"size\":\"0x%" PRIx64 "\"",
	       kind_name(f->kind), f->start, f->size);
	if (f->kind == LOOKUP_LOAD || f->kind == LOOKUP_INLINE) {
		putchar(',');
		json_method(f);
	}
}

/* The inline stack, innermost first: "frames":[{...},...]. */
static void json_chain(const struct lookup_hit *h)
{
	fputs(",\"frames\":[", stdout);
	for (size_t i = 0; i < h->n_chain; i++) {
		const struct lookup_frame *f = &h->chain[i];

		fputs(i ? ",{" : "{", stdout);
		json_method(f);
		putchar(',');
		put_json_str("name", f->name);
		if (f->file[0]) {
			putchar(',');
			put_json_str("file", f->file);
		}
		if (f->line > 0)
			printf(",\"line\":%d", f->line);
		if (f->bci >= 0)
			printf(",\"bci\":%d", f->bci);
		printf(",\"inlined\":%s}", i + 1 < h->n_chain ? "true" : "false");
	}
	putchar(']');
}

static void print_json(const struct lookup_hit *h, int found)
{
	printf("{\"addr\":\"0x%" PRIx64 "\",\"resolved\":%s", h->addr, found ? "true" : "false");
	if (found) {
		printf(",\"offset\":\"0x%" PRIx64 "\",", h->offset);
		json_frame(&h->sym);
		if (h->n_inline) {
			fputs(",\"inlined\":[", stdout);
			for (size_t i = 0; i < h->n_inline; i++) {
				fputs(i ? ",{" : "{", stdout);
				json_frame(&h->inlined[i]);
				putchar('}');
			}
			putchar(']');
		}
		if (h->n_chain)
			json_chain(h);
	}
	puts("}");
}

static void print_text(const struct lookup_hit *h, int found)
{
	const struct lookup_frame *f = &h->sym;

	printf("0x%" PRIx64 "  ", h->addr);
	if (!found) {
		puts("??");
		return;
	}
	put_text(f->name);
	printf("+0x%" PRIx64 "  [", h->offset);
	if (f->kind == LOOKUP_LOAD) {
		fputs("class ", stdout);
		put_text(f->class_name);
		fputs(", method ", stdout);
		put_text(f->method);
		fputs(", sig ", stdout);
		put_text(f->signature);
		fputs(", ", stdout);
	} else {
		printf("%s, ", kind_name(f->kind));
	}
	printf("0x%" PRIx64 "+0x%" PRIx64 "]", f->start, f->size);
	for (size_t i = 0; i < h->n_inline; i++) {
		fputs(i ? " < " : "  inlined: ", stdout);
		put_text(h->inlined[i].name);
	}
	putchar('\n');
	/* the whole stack, innermost first, one indented line per frame, the
	 * way perf script and async-profiler print Java frames */
	for (size_t i = 0; i < h->n_chain; i++) {
		const struct lookup_frame *c = &h->chain[i];

		fputs("    ", stdout);
		put_text(c->class_name);
		putchar('.');
		put_text(c->method);
		if (c->file[0] || c->line > 0) {
			fputs(" (", stdout);
			put_text(c->file[0] ? c->file : "?");
			if (c->line > 0)
				printf(":%d", c->line);
			putchar(')');
		}
		puts(i + 1 < h->n_chain ? " [inlined]" : "");
	}
}

/* ---- the loop -------------------------------------------------------------- */

struct resolver {
	const struct resolve_env *env;
	struct resolve_source *src;
	struct lookup *lk;
	int warned;
	long last_reopen_ms;
	char what[WATCH_WHAT_MAX];      /* the watch's name of its reads */
	int read_ms;                    /* their limit (read_limit_ms) */
};

#define REOPEN_CHECK_MS 200 /* a followed map is looked up by path 5 times/s */

/*
 * A perf map is rewritten by rename (the jsym agent) or in place (the JDK,
 * perf-map-agent); lookup_refresh notices the latter, the former needs the
 * path opened again.  A journal is appended to, started over in place (a new
 * process with the same pid), or, bounded by journal_max, replaced by rename
 * with a new one that begins with the live code: read from its start, it
 * gives the whole state, so forgetting the old file loses nothing and
 * applies nothing twice.
 */
static void follow_renamed(struct resolver *r)
{
	long now = clock_ms();
	int fd;

	if (now - r->last_reopen_ms < REOPEN_CHECK_MS)
		return;
	r->last_reopen_ms = now;
	fd = resolve_reopen_if_replaced(r->src);
	if (fd < 0)
		return;
	r->read_ms = resolve_read_limit_ms(fd);  /* another file, another size */
	watch_step(r->read_ms, r->what);
	lookup_clear(r->lk);
	(r->src->is_journal ? lookup_follow_journal : lookup_follow_map)(r->lk, fd);
	lookup_set_until(r->lk, r->env->at_ns);
}

/* Read what is new.  0, or -1 when that failed so badly nothing can be trusted. */
static int refresh(struct resolver *r)
{
	struct err_text err = { "" };
	long n;

	watch_step(r->read_ms, r->what);
	if (r->env->follow)
		follow_renamed(r);
	n = lookup_refresh(r->lk, &err);
	watch_step(0, NULL);    /* the next address may take its time */

	if (n >= 0 || n == -EAGAIN)
		return 0;
	if (n == -EBADMSG || n == -EIO) {
		if (!r->warned++)
			cli_err("%s: %s (using what came before it)", r->src->path, err.msg);
		return 0;
	}
	cli_err("%s: %s", r->src->path, err.msg[0] ? err.msg : strerror((int)-n));
	return -1;
}

static int resolve_one(struct resolver *r, const char *token)
{
	struct lookup_hit hit;
	uint64_t addr;
	int found;

	if (lookup_parse_addr(token, &addr) < 0) {
		if (r->env->json) {
			putchar('{');
			put_json_str("input", token);
			puts(",\"error\":\"not a hex address\"}");
		} else {
			put_text(token);
			puts("  ?? (not a hex address)");
		}
		return 0;
	}
	if (r->env->follow && refresh(r) < 0)
		return -1;
	found = lookup_find(r->lk, addr, &hit);
	if (found < 0) {
		cli_err("out of memory building the address index");
		return -1;
	}
	(r->env->json ? print_json : print_text)(&hit, found);
	return 0;
}

static void report_source(const struct resolver *r)
{
	struct lookup_journal_info h;
	struct lookup_stats st;

	lookup_get_stats(r->lk, &st);
	cli_err("%s: %" PRIu64 " %s, %zu live ranges, %zu inlined ranges, %zu inline-chain ranges",
		r->src->path, st.records, r->src->is_journal ? "records" : "lines", st.live,
		st.inlines, st.chains);
	if (lookup_journal_info(r->lk, &h))
		cli_err("journal of pid %" PRIu32 " (its namespace), agent %s", h.pid,
			h.agent_version);
	if (st.bad_records || st.unknown_records || st.orphan_unloads || st.orphan_inlines ||
	    st.superseded)
		cli_err("skipped %" PRIu64 " malformed and %" PRIu64 " unknown records; "
			"%" PRIu64 " unloads and %" PRIu64 " inlines without their method; "
			"%" PRIu64 " ranges replaced at the same address",
			st.bad_records, st.unknown_records, st.orphan_unloads, st.orphan_inlines,
			st.superseded);
	if (st.malformed_lines || st.pending_bytes)
		cli_err("skipped %" PRIu64 " malformed lines; %zu bytes of an "
			"unfinished last line held back",
			st.malformed_lines, st.pending_bytes);
}

/* --at before what the journal still holds: an error, not a wrong answer. */
static int check_at_covered(const struct resolver *r)
{
	uint64_t from;

	if (!r->env->at_ns || !r->src->is_journal)
		return 0;
	from = lookup_journal_covers_from(r->src->fd);
	if (!from || r->env->at_ns >= from)
		return 0;
	cli_err("--at %" PRIu64 ".%06" PRIu64 " is before the earliest time %s "
		"covers, %" PRIu64 ".%06" PRIu64 ": the agent started the journal over "
		"then with the code live at that time (agent option journal_max); give a "
		"later --at, or a larger journal_max for a longer history",
		r->env->at_ns / UINT64_C(1000000000), r->env->at_ns % UINT64_C(1000000000) / 1000,
		r->src->path, from / UINT64_C(1000000000), from % UINT64_C(1000000000) / 1000);
	return -1;
}

/* A journal whose agent stopped has every range closed: say how to look back. */
static void warn_if_stopped(const struct resolver *r)
{
	struct lookup_stats st;

	lookup_get_stats(r->lk, &st);
	if (st.source == LOOKUP_SOURCE_JOURNAL && st.last_epoch == JF_EPOCH_STOPPED &&
	    st.live == 0 && !r->env->at_ns)
		cli_err("the agent stopped at %" PRIu64 ".%06" PRIu64
			" (JVM exit or `stop`) and closed every range in %s: give --at SECONDS "
			"to resolve as of an earlier time",
			st.last_epoch_ts / UINT64_C(1000000000), st.last_epoch_ts % UINT64_C(1000000000) / 1000,
			r->src->path);
}

static int run(const struct resolve_env *env, char **addrs, int n_addrs)
{
	struct resolve_source src;
	struct resolver r = { .env = env, .src = &src };
	const char *file = env->journal ? env->journal : env->map;
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;

	if (env->pid)
		snprintf(r.what, sizeof(r.what), "%ld: resolve's read of the JVM's "
			 "files", env->pid);
	else
		snprintf(r.what, sizeof(r.what), "resolve's read of its %s",
			 env->journal ? "journal" : "perf map");
	watch_step(CLI_LOOK_MS, r.what);
	if ((file ? resolve_open_file(file, env->journal != NULL, &src)
		  : resolve_open_pid(env->pid, env->dir, env->verbose, &src)) < 0) {
		resolve_close(&src);
		return JSYM_EXIT_FAIL;
	}
	r.last_reopen_ms = clock_ms();
	r.read_ms = resolve_read_limit_ms(src.fd);
	r.lk = lookup_new();
	if (!r.lk) {
		close(src.fd);
		resolve_close(&src);
		cli_err("out of memory");
		return JSYM_EXIT_FAIL;
	}
	if (check_at_covered(&r) < 0) {
		close(src.fd);
		lookup_free(r.lk);
		resolve_close(&src);
		return JSYM_EXIT_FAIL;
	}
	(src.is_journal ? lookup_follow_journal : lookup_follow_map)(r.lk, src.fd);
	lookup_set_until(r.lk, env->at_ns);
	if (env->at_ns && !src.is_journal)
		cli_err("--at ignored: %s is a perf map, which has no times", src.path);
	if (refresh(&r) < 0) {
		lookup_free(r.lk);
		resolve_close(&src);
		return JSYM_EXIT_FAIL;
	}
	warn_if_stopped(&r);
	if (env->verbose)
		report_source(&r);
	for (int i = 0; i < n_addrs && rc == 0; i++)
		rc = resolve_one(&r, addrs[i]);
	while (n_addrs == 0 && rc == 0 && getline(&line, &cap, stdin) > 0) {
		char *save = NULL;

		for (char *t = strtok_r(line, " \t\r\n", &save); t && rc == 0;
		     t = strtok_r(NULL, " \t\r\n", &save))
			rc = resolve_one(&r, t);
		if (fflush(stdout) != 0)
			break; /* the reader went away (EPIPE) or the disk is full */
	}
	free(line);
	/* a close sends a FUSE file system its flush, which may never end */
	watch_step(CLI_LOOK_MS, r.what);
	lookup_free(r.lk);
	resolve_close(&src);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno == EPIPE) /* pipe closed early, like head(1) after us */
			return rc < 0 ? JSYM_EXIT_FAIL : JSYM_EXIT_OK;
		cli_err("cannot write output: %s", strerror(errno));
		return JSYM_EXIT_FAIL;
	}
	return rc < 0 ? JSYM_EXIT_FAIL : JSYM_EXIT_OK;
}

/* One option of resolve into env.  0, or -EINVAL with the reason printed. */
static int set_opt(struct resolve_env *env, int c, const char *arg)
{
	pid_t pid;

	switch (c) {
	case 'p':
		if (text_parse_pid(arg, &pid) != 0) {
			cli_err("resolve: bad pid '%s' (a positive number)", arg);
			return -EINVAL;
		}
		env->pid = pid;
		return 0;
	case 'd': env->dir = arg; return 0;
	case OPT_JOURNAL: env->journal = arg; return 0;
	case 'm': env->map = arg; return 0;
	case 'f': env->follow = 1; return 0;
	case OPT_AT:
		if (resolve_parse_seconds(arg, &env->at_ns) < 0) {
			cli_err("resolve: bad --at '%s' (seconds, e.g. 12345.678901)", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_JSON: env->json = 1; return 0;
	case 'v': env->verbose = 1; return 0;
	default:
		cli_err("usage: jsym resolve --pid PID | --journal FILE | --map FILE "
			"[options] [ADDR...] (see jsym resolve --help)");
		return -EINVAL;
	}
}

int cli_resolve_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "dir", required_argument, NULL, 'd' },
		{ "journal", required_argument, NULL, OPT_JOURNAL },
		{ "map", required_argument, NULL, 'm' },
		{ "follow", no_argument, NULL, 'f' },
		{ "at", required_argument, NULL, OPT_AT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct resolve_env env = { .pid = 0, .dir = NULL };
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "p:d:m:fvh", longopts)) != -1) {
		if (c == 'h') {
			cli_help(stdout, "resolve");
			return JSYM_EXIT_OK;
		}
		if (set_opt(&env, c, optarg) < 0)
			return JSYM_EXIT_USAGE;
	}
	if ((env.pid != 0) + (env.journal != NULL) + (env.map != NULL) != 1) {
		cli_err("resolve: give exactly one of --pid, --journal, --map "
			"(see jsym resolve --help)");
		return JSYM_EXIT_USAGE;
	}
	return run(&env, argv + optind, argc - optind);
}
