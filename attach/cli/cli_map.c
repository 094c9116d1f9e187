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

#include "cli.h"
#include "clock.h"
#include "target.h"
#include "termtext.h"
#include "vm_jvm.h"
#include "vm_layout.h"
#include "vm_scan.h"
#include "vm_write.h"

struct map_env {
	bool verbose, json, to_stdout, tables, follow;
	int interval_ms;
	pid_t pid;
};

static void usage_err(void)
{
	cli_err("usage: jsym map [-v] [--json] [--stdout] PID\n"
		"       jsym map --follow [--interval MS] [-v] [--json] PID");
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
	while ((c = getopt_long(argc, argv, "vfi:h", opts, NULL)) != -1) {
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

/* What must hold before jsym reads a process: a HotSpot JVM, its root. */
static int precheck(const struct target *t, bool writes, struct err_text *e)
{
	if (t->maps_err)
		return err_set(e, t->maps_err, "cannot read the process's maps: %s (needs "
			       "CAP_SYS_PTRACE or the JVM's uid)", strerror(-t->maps_err));
	if (t->maps.kind == PROC_OPENJ9)
		return err_set(e, -ENOTSUP, "an OpenJ9 JVM: jsym map reads HotSpot's "
			       "tables only (use jsym attach)");
	if (t->maps.kind != PROC_HOTSPOT)
		return err_set(e, -ENOENT, "not a JVM (no libjvm.so mapped)");
	if (writes && t->maps.agent[0])
		return err_set(e, -EEXIST, "the jsym agent runs in this JVM and keeps "
			       "its perf-%d.map itself: jsym map would fight it",
			       (int)t->st.nspid);
	if (t->root_fd < 0)
		return err_set(e, t->root_err ? t->root_err : -EBADF, "cannot open the "
			       "JVM's root directory: %s", strerror(t->root_err ?
			       -t->root_err : EBADF));
	return 0;
}

struct map_result {
	struct vm_snapshot s;
	char where[192];
	long ms;
	uint64_t reads, bytes;
	size_t java;
};

/* The value of the cap named by vm_snapshot.capped, for the message. */
static const char *cap_value(const char *cap, char *buf, size_t len)
{
	if (!strcmp(cap, "entries"))
		snprintf(buf, len, "%u entries", VM_MAX_ENTRIES);
	else if (!strcmp(cap, "name bytes"))
		snprintf(buf, len, "%u MiB of names", VM_MAX_NAME_BYTES >> 20);
	else
		snprintf(buf, len, "%llu GiB of code heaps", VM_MAX_CODE_BYTES >> 30);
	return buf;
}

static void print_result(const struct map_env *env, const struct target *t,
			 const struct map_result *r, bool container)
{
	size_t stubs = r->s.n - r->java;
	char cap[48], where[4 * sizeof(r->where)];

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
		       r->s.n, r->java, stubs, r->s.heaps, (unsigned long long)r->s.blocks,
		       r->s.dead, r->s.dropped, r->s.resyncs, r->s.partial ? "true" : "false",
		       r->s.capped ? "\"" : "", r->s.capped ? r->s.capped : "null",
		       r->s.capped ? "\"" : "", r->ms, (unsigned long long)r->reads,
		       (unsigned long long)r->bytes);
		return;
	}
	if (r->s.capped)   /* also with --stdout: the map there is cut short */
		cli_err("%d: stopped at jsym's cap on %s (%s): the map holds the %zu "
			"entries read before it; a real HotSpot code cache stays far "
			"below (docs/map.md)", (int)t->pid, r->s.capped,
			cap_value(r->s.capped, cap, sizeof(cap)), r->s.n);
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
	if (r->s.partial)
		cli_err("%d: partial: %u code blobs changed while jsym read them and "
			"were left out (%u block chains resynchronised); run again for "
			"the rest", (int)t->pid, r->s.dropped, r->s.resyncs);
}

static int snapshot(const struct map_env *env, const struct target *t, struct vm_jvm *j,
		    const struct vm_layout *l, struct vm_name_cache *nc,
		    struct map_result *r, struct err_text *e)
{
	long t0 = clock_ms(), len;
	uint64_t reads0 = j->mem.syscalls, bytes0 = j->mem.bytes;
	char *text = NULL;
	int rc = vm_snapshot_take(j, l, nc, &r->s, e);

	if (rc)
		return rc;
	r->java = 0;
	for (size_t k = 0; k < r->s.n; k++)
		r->java += r->s.e[k].java;
	len = vm_map_render(&r->s, &text);
	if (len < 0)
		return err_set(e, (int)len, "out of memory");
	if (env->to_stdout)
		rc = fwrite(text, 1, (size_t)len, stdout) == (size_t)len ? 0 :
		     err_set(e, -EIO, "cannot write the map to stdout");
	else
		rc = vm_map_write(t, text, (size_t)len, r->where, sizeof(r->where), e);
	free(text);
	r->ms = clock_ms() - t0;
	r->reads = j->mem.syscalls - reads0;
	r->bytes = j->mem.bytes - bytes0;
	return rc;
}

int cli_map_once(const struct target *t, char *where, size_t cap, size_t *java,
		 struct err_text *e)
{
	struct vm_name_cache nc = { 0 };
	struct map_env env = { 0 };
	struct map_result *r = calloc(1, sizeof(*r));
	struct vm_layout l;
	struct vm_jvm j;
	int rc;

	if (!r)
		return err_set(e, -ENOMEM, "out of memory");
	rc = precheck(t, true, e);
	memset(&j, 0, sizeof(j));
	j.proc.mem_fd = -1;
	if (rc == 0)
		rc = vm_jvm_open(t, &j, e);
	if (rc == 0)
		rc = vm_layout_from_tables(&j.tables, &l, e);
	if (rc == 0)
		rc = snapshot(&env, t, &j, &l, &nc, r, e);
	if (rc == 0) {
		snprintf(where, cap, "%s", r->where);
		*java = r->java;
	}
	vm_snapshot_free(&r->s);
	vm_name_cache_free(&nc);
	vm_jvm_close(&j);
	free(r);
	return rc;
}

int cli_map_main(int argc, char **argv)
{
	struct map_env env = { 0 };
	struct err_text e = { "" };
	static struct map_result r;
	struct vm_name_cache nc = { 0 };
	struct vm_layout l;
	struct target t;
	struct vm_jvm j;
	char buf[800];
	int rc;

	rc = parse(&env, argc, argv);
	if (rc)
		return rc > 0 ? JSYM_EXIT_OK : JSYM_EXIT_USAGE;
	rc = target_open(env.pid, TARGET_FDS, &t, &e);
	if (rc) {
		cli_err("%d: %s", (int)env.pid, e.msg[0] ? term_str(buf, sizeof(buf), e.msg) :
			strerror(-rc));
		return JSYM_EXIT_FAIL;
	}
	rc = precheck(&t, !env.to_stdout && !env.tables, &e);
	memset(&j, 0, sizeof(j));
	j.proc.mem_fd = -1;
	if (rc == 0)
		rc = vm_jvm_open(&t, &j, &e);
	if (rc == 0 && env.tables) {
		cli_map_tables(&j.tables);
	} else if (rc == 0) {
		rc = vm_layout_from_tables(&j.tables, &l, &e);
		if (rc == 0 && env.follow)
			rc = cli_map_follow(&t, &j, &l, &nc, env.interval_ms, env.verbose, env.json,
					    &e);
		else if (rc == 0)
			rc = snapshot(&env, &t, &j, &l, &nc, &r, &e);
		if (rc == 0 && !env.follow)
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
	vm_snapshot_free(&r.s);
	vm_name_cache_free(&nc);
	vm_jvm_close(&j);
	target_close(&t);
	return rc ? JSYM_EXIT_FAIL : JSYM_EXIT_OK;
}
