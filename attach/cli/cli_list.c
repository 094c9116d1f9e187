/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_list.c - `jsym list`: JVMs visible from here.
 *
 * A process is listed when its maps show libjvm.so (HotSpot) or libj9vm*.so
 * (OpenJ9); processes whose maps we may not read are counted, not guessed.
 * Nothing is signalled or entered.  Each process is looked at in a child
 * with LIST_BUDGET_MS (cli_each_process_bounded): one whose /proc or files
 * do not answer in time is listed as stalled, and the list goes on.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "cli.h"
#include "run.h"
#include "target.h"

#define CAP_SYS_PTRACE_NR 19    /* capabilities(7); the musl build has no header */
#define LIST_BUDGET_MS 3000     /* per process: target_open and its row */

/* 1 when the namespace differs from ours, 0 when it is ours, -1 unknown */
static int ns_differs(const struct target *t, enum target_ns which)
{
	return t->ns[which].known ? t->ns[which].differs : -1;
}

/* jsym's own cgroup path ("" when unreadable), read once: a target in the
 * same container as jsym is not "in a container" to it */
static const char *self_cgroup(void)
{
	static char path[256];
	static bool done;
	char *buf;
	ssize_t n;
	int self;

	if (!done) {
		done = true;
		self = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (self < 0)
			return path;
		n = confine_proc_read(self, "cgroup", 16384, &buf);
		close(self);
		if (n >= 0) {
			(void)proc_cgroup_path(buf, (size_t)n, path, sizeof(path));
			free(buf);
		}
	}
	return path;
}

/* In another container than jsym: the namespaces say so, or, where they
 * cannot be compared (no CAP_SYS_PTRACE), the cgroup path names one */
static bool in_container(const struct target *t)
{
	return proc_other_container(ns_differs(t, TNS_PID), ns_differs(t, TNS_MNT),
				    t->cgroup, self_cgroup());
}

/* AGENT column: a jsym agent mapped ("yes"), none ("-"). */
static const char *agent_state(const struct target *t)
{
	return t->maps.agent[0] ? "yes" : "-";
}

/* How a container JVM's runtime names it: the id from its cgroup path (""
 * when none is there) and its UTS host name ("" for ours). */
struct ct_names {
	char id[PROC_CT_ID_LEN + 1];
	char host[256];
};

static void container_names(const struct target *t, struct ct_names *n)
{
	n->id[0] = n->host[0] = '\0';
	if (!in_container(t))
		return;
	(void)proc_container_id(t->cgroup, n->id, sizeof(n->id));
	(void)target_hostname(t, n->host, sizeof(n->host));
}

/* The version, the cgroup and the host name are the target's text:
 * escaped (termtext.c, text_json_str). */
static void print_row(const struct target *t, const struct ct_names *n)
{
	char ver[4 * sizeof(t->jdk_version)], cg[4 * sizeof(t->cgroup)];
	char host[4 * sizeof(n->host)];

	term_str(ver, sizeof(ver), t->jdk_version[0] ? t->jdk_version : "-");
	term_str(cg, sizeof(cg), n->id[0] ? n->id : t->cgroup[0] ? t->cgroup : "yes");
	term_str(host, sizeof(host), n->host[0] ? n->host : "-");
	printf("%-8d %-7d %-6u %-8s %-12s %-8s %-6s %-12s %s\n", (int)t->pid,
	       (int)t->st.nspid, (unsigned)t->st.uid[1], run_target_kind_name(t),
	       ver, target_libc_name(t), agent_state(t), in_container(t) ? cg : "-",
	       host);
}

/* A JSON string of s, or null when s is empty. */
static void json_str_or_null(const char *s)
{
	if (s[0])
		text_json_str(stdout, s, strlen(s));
	else
		printf("null");
}

static void print_json_row(const struct target *t, const struct ct_names *n,
			   bool first)
{
	printf("%s{\"pid\":%d,\"nspid\":%d,\"uid\":%u,\"gid\":%u,\"kind\":\"%s\"",
	       first ? "" : ",", (int)t->pid, (int)t->st.nspid,
	       (unsigned)t->st.uid[1], (unsigned)t->st.gid[1],
	       run_target_kind_name(t));
	printf(",\"version\":");
	json_str_or_null(t->jdk_version);
	printf(",\"major\":%d,\"libc\":\"%s\",\"container\":%s,\"cgroup\":",
	       t->jdk_major, target_libc_name(t),
	       in_container(t) ? "true" : "false");
	text_json_str(stdout, t->cgroup, strlen(t->cgroup));
	printf(",\"container_id\":");
	json_str_or_null(n->id);
	printf(",\"hostname\":");
	json_str_or_null(n->host);
	printf(",\"agent\":");
	json_str_or_null(t->maps.agent);
	printf(",\"attach_disabled\":%s,\"xrs\":%s}",
	       t->opts.disable_attach ? "true" : "false",
	       t->opts.xrs ? "true" : "false");
}

/* Namespace comparison without keeping fds: open, compare, close. */
static void compare_ns(struct target *t)
{
	static const enum target_ns which[] = { TNS_PID, TNS_MNT };

	for (size_t i = 0; i < sizeof(which) / sizeof(which[0]); i++) {
		char path[64], self[64];
		struct stat a, b;

		snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)t->pid,
			 target_ns_name(which[i]));
		snprintf(self, sizeof(self), "/proc/self/ns/%s",
			 target_ns_name(which[i]));
		if (stat(path, &a) == 0 && stat(self, &b) == 0) {
			t->ns[which[i]].known = true;
			t->ns[which[i]].differs = a.st_ino != b.st_ino ||
						  a.st_dev != b.st_dev;
		}
	}
}

struct list_state {
	bool json, verbose, first;
	int hidden, listed, stalled;
};

/* A process that did not answer within the budget: a row saying so (its
 * pid is all jsym knows), and the list goes on. */
static void list_stalled(pid_t pid, void *ctx)
{
	struct list_state *st = ctx;

	if (st->json)
		printf("%s{\"pid\":%d,\"kind\":\"stalled\",\"budget_ms\":%d}",
		       st->first ? "" : ",", (int)pid, LIST_BUDGET_MS);
	else
		printf("%-8d %-7s %-6s %-8s (no answer within %d ms: skipped)\n", (int)pid,
		       "-", "-", "stalled", LIST_BUDGET_MS);
	if (st->verbose)
		cli_err("process %d: its /proc files or its JVM's files did not answer "
			"within %d ms; skipped", (int)pid, LIST_BUDGET_MS);
	st->first = false;
	st->stalled++;
}

/* One row per JVM; a process whose maps are refused is counted (-v names
 * it): all we know is that the kernel refused them (PID 1, another user's
 * process...), not what the process is. */
static int list_one(struct target *t, void *ctx)
{
	struct list_state *st = ctx;

	if (t->maps_err) {
		if (st->verbose)
			cli_err("process %d: cannot read /proc/%d/maps: %s", (int)t->pid,
				(int)t->pid, strerror(-t->maps_err));
		st->hidden++;
	} else if (t->maps.kind != PROC_NOT_JVM) {
		struct ct_names n;

		compare_ns(t);
		container_names(t, &n);
		if (st->json)
			print_json_row(t, &n, st->first);
		else
			print_row(t, &n);
		st->first = false;
		st->listed++;
	}
	return 0;
}

int cli_list_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct list_state st = { .first = true };
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "vh", opts)) != -1) {
		if (c == OPT_JSON)
			st.json = true;
		else if (c == 'v')
			st.verbose = true;
		else if (c == 'h') {
			cli_help(stdout, argv[0]);
			return JSYM_EXIT_OK;
		} else {
			cli_err("usage: jsym list [--json] [-v]");
			return JSYM_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		cli_err("usage: jsym list [--json] [-v]");
		return JSYM_EXIT_USAGE;
	}
	if (st.json)
		printf("[");
	else
		printf("%-8s %-7s %-6s %-8s %-12s %-8s %-6s %-12s %s\n", "PID", "NSPID",
		       "UID", "KIND", "VERSION", "LIBC", "AGENT", "CONTAINER", "HOST");
	if (cli_each_process_bounded(list_one, &st, sizeof(st), LIST_BUDGET_MS,
				     list_stalled) != 0)
		return JSYM_EXIT_FAIL;
	if (st.json)
		printf("]\n");
	if (st.hidden && st.verbose)
		cli_err("%d processes could not be inspected, so jsym cannot tell "
			"whether they are JVMs%s", st.hidden,
			creds_have_cap(CAP_SYS_PTRACE_NR) == 1 ? "" :
			" (the maps of another user's process need CAP_SYS_PTRACE)");
	if (st.verbose)
		cli_err("%d JVMs listed", st.listed);
	return JSYM_EXIT_OK;
}
