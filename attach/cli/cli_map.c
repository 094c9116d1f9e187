/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_map.c - `jsym map PID`: the perf map of a HotSpot JVM read from the
 * outside, without attaching, signalling or loading anything
 * (attach/vmstructs, docs/map.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "cli.h"
#include "target.h"
#include "vmstructs.h"

struct map_env {
	bool verbose, json, to_stdout, tables, follow;
	int interval_ms;
	pid_t pid;
};

static void usage_err(void)
{
	cli_err("usage: jsym map [-v] [--json] [--stdout] PID\n"
		"       jsym map --follow [--interval MS] [-v] [--json] PID\n"
		"       jsym map --tables [-v] PID");
}

static int parse(struct map_env *env, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "stdout", no_argument, NULL, OPT_STDOUT },
		{ "tables", no_argument, NULL, OPT_TABLES },
		{ "follow", no_argument, NULL, 'f' },
		{ "interval", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	env->interval_ms = 1000;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "vfi:h", opts)) != -1) {
		switch (c) {
		case 'v': env->verbose = true; break;
		case OPT_JSON: env->json = true; break;
		case OPT_STDOUT: env->to_stdout = true; break;
		case OPT_TABLES: env->tables = true; break;
		case 'f': env->follow = true; break;
		case 'i':
			if (text_parse_ms(optarg, &env->interval_ms) || env->interval_ms < 10) {
				cli_err("--interval wants at least 10 ms, not '%s'", optarg);
				return -EINVAL;
			}
			break;
		case 'h':
			cli_help(stdout, argv[0]);
			return 1;
		default:
			usage_err();
			return -EINVAL;
		}
	}
	if (optind != argc - 1 || text_parse_pid(argv[optind], &env->pid)) {
		usage_err();
		return -EINVAL;
	}
	if (env->follow && (env->to_stdout || env->tables)) {
		cli_err("--follow writes the map and the journal in the container: not "
			"with --%s", env->to_stdout ? "stdout" : "tables");
		return -EINVAL;
	}
	return 0;
}

static void print_result(const struct map_env *env, const struct target *t,
			 const struct vm_map_stats *r, bool container)
{
	size_t stubs = r->entries - r->java;
	char where[4 * sizeof(r->where)];

	if (env->json) {
		printf("{\"pid\":%d,\"nspid\":%d,\"source\":\"vmstructs\",\"ok\":true,"
		       "\"path\":", (int)t->pid, (int)t->st.nspid);
		if (env->to_stdout)
			printf("null");
		else
			text_json_str(stdout, r->where, strlen(r->where));
		printf(",\"container\":%s,\"entries\":%zu,\"java\":%zu,\"stubs\":%zu,"
		       "\"heaps\":%u,\"blocks\":%llu,\"dead\":%u,\"dropped\":%u,"
		       "\"resyncs\":%u,\"partial\":%s,\"capped\":%s%s%s,\"ms\":%ld,"
		       "\"reads\":%llu,\"bytes\":%llu}\n", container ? "true" : "false",
		       r->entries, r->java, stubs, r->heaps, (unsigned long long)r->blocks,
		       r->dead, r->dropped, r->resyncs, r->partial ? "true" : "false",
		       r->capped ? "\"" : "", r->capped ? r->capped : "null",
		       r->capped ? "\"" : "", r->ms, (unsigned long long)r->reads,
		       (unsigned long long)r->bytes);
		return;
	}
	if (r->capped)   /* also with --stdout: the map there is cut short */
		cli_err("%d: stopped at jsym's cap on %s (%s): the map holds the %zu "
			"entries read before it; a real HotSpot code cache stays far "
			"below (docs/map.md)", (int)t->pid, r->capped, r->cap_value,
			r->entries);
	if (env->to_stdout)
		return;
	/* where: in the JVM's /tmp, or its AltTempDir (the target's text) */
	bool in_tmp = !strncmp(r->where, "/tmp/", 5);

	printf("jsym: %d: %zu Java methods and %zu stubs in %s%s%s (read from outside "
	       "in %ld ms)\n", (int)t->pid, r->java, stubs,
	       term_str(where, sizeof(where), r->where),
	       container ? " inside the JVM's container" : "",
	       !in_tmp ? " (perf looks in /tmp only: point it there, e.g. with a symlink)" :
	       container ? " (perf finds it)" : "", r->ms);
	if (r->partial)
		cli_err("%d: partial: %u code blobs changed while jsym read them and "
			"were left out (%u block chains resynchronised); run again for "
			"the rest", (int)t->pid, r->dropped, r->resyncs);
}

/* --tables: the tables as text (escaped), on stdout. */
static int dump_tables(const struct vm_session *s, struct err_text *e)
{
	char *text = NULL;
	long len = vmstructs_tables_text(s, &text);

	if (len < 0)
		return err_set(e, (int)len, "out of memory");
	watch_step(0, NULL);    /* what is left only prints */
	fwrite(text, 1, (size_t)len, stdout);
	free(text);
	return 0;
}

/* The map on stdout: made in memory within the step's limit, then printed
 * with none (the reader may take its time: `| less`). */
static int map_to_stdout(struct vm_session *s, struct vm_map_stats *r,
			 struct err_text *e)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int rc;

	if (!mem)
		return err_set(e, -errno, "cannot make the map in memory: %s",
			       strerror(errno));
	rc = vmstructs_map(s, mem, r, e);
	if (fclose(mem) != 0 && rc == 0)
		rc = err_set(e, -ENOMEM, "out of memory for the map's text");
	watch_step(0, NULL);
	if (rc == 0)
		fwrite(text, 1, len, stdout);
	free(text);
	return rc;
}

int cli_map_main(int argc, char **argv)
{
	struct map_env env = { 0 };
	struct err_text e = { "" };
	static struct vm_map_stats r;
	struct vm_session *s = NULL;
	struct target t;
	char buf[800], what[WATCH_WHAT_MAX];
	int rc;

	rc = parse(&env, argc, argv);
	if (rc)
		return rc > 0 ? JSYM_EXIT_OK : JSYM_EXIT_USAGE;
	snprintf(what, sizeof(what), "%d: map", (int)env.pid);
	watch_step(CLI_MAP_MS, what);
	rc = target_open(env.pid, TARGET_FDS, &t, &e);
	if (rc) {
		cli_err("%d: %s", (int)env.pid, e.msg[0] ? term_str(buf, sizeof(buf), e.msg) :
			strerror(-rc));
		return JSYM_EXIT_FAIL;
	}
	rc = vmstructs_open(&t, !env.to_stdout && !env.tables, &s, &e);
	if (rc == 0 && env.tables) {
		rc = dump_tables(s, &e);
	} else if (rc == 0 && env.follow) {
		rc = cli_map_follow(&t, s, env.interval_ms, env.verbose, env.json, &e);
	} else if (rc == 0) {
		rc = env.to_stdout ? map_to_stdout(s, &r, &e) : vmstructs_map(s, NULL, &r, &e);
		watch_step(0, NULL);
		if (rc == 0)
			print_result(&env, &t, &r, (t.ns[TNS_MNT].known && t.ns[TNS_MNT].differs) ||
				     (t.ns[TNS_PID].known && t.ns[TNS_PID].differs));
	}
	if (rc) {
		term_str(buf, sizeof(buf), e.msg[0] ? e.msg : strerror(-rc));
		if (env.json) {
			printf("{\"pid\":%d,\"source\":\"vmstructs\",\"ok\":false,\"error\":",
			       (int)env.pid);
			text_json_str(stdout, e.msg, strlen(e.msg));
			printf("}\n");
		}
		cli_err("%d: %s", (int)env.pid, buf);
	}
	vmstructs_close(s);
	target_close(&t);
	return rc ? JSYM_EXIT_FAIL : JSYM_EXIT_OK;
}
