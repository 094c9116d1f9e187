/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_attach_print.c - how `jsym attach` reports: one line per JVM, the
 * --all table, JSON.  Everything from the target is escaped (termtext.c,
 * text_json_str).
 */
#include <stdio.h>
#include <string.h>

#include "attaching.h"
#include "base.h"
#include "cli.h"
#include "cli_attach.h"
#include "target.h"

/* Text from a target, escaped for a terminal (termtext.c). */
static const char *safe(const char *s, char *buf, size_t cap)
{
	return term_str(buf, cap, s);
}

static const char *libc_name(int l)
{
	return l == PROC_LIBC_GLIBC ? "glibc" : l == PROC_LIBC_MUSL ? "musl" : "unknown";
}

static void json_text(const char *key, const char *s)
{
	printf(",\"%s\":", key);
	if (s && *s)
		text_json_str(stdout, s, strlen(s));
	else
		printf("null");
}

void attach_print_json(const struct attach_env *env, const struct attach_outcome *o)
{
	const struct deploy_probe *p = &o->dep.probe;

	printf("{\"pid\":%d", (int)o->pid);
	if (o->opened)
		printf(",\"nspid\":%d,\"uid\":%u,\"jvm\":\"%s\",\"jvm_libc\":\"%s\","
		       "\"container\":%s,\"jdk_major\":%d", (int)o->nspid, o->uid,
		       run_kind_name(o->kind), libc_name(o->jvm_libc),
		       o->container ? "true" : "false", o->jdk_major);
	else
		printf(",\"jvm\":null");
	json_text("version", o->jdk_version);
	printf(",\"action\":\"%s\",\"ok\":%s,\"exit\":%d", env->stop ?
	       (env->clean ? "detach" : "stop") : "attach", o->exit ? "false" : "true",
	       o->exit);
	if (o->deployed) {
		printf(",\"delivery\":\"%s\",\"build\":\"%s\"", deploy_how_name(o->dep.how),
		       deploy_libc_name(o->dep.libc));
		json_text("path", o->dep.load_path);
		json_text("dir", o->dep.dir);
		if (o->dep.how == DEPLOY_ALREADY && !env->stop)
			printf(",\"refreshed\":%s", o->dep.not_reloaded ? "false" : "true");
		if (o->dep.how == DEPLOY_MEMFD) {
			json_text("copy_refused", o->dep.copy_refused);
			json_text("agent_dir", o->dep.out_dir);
			printf(",\"agent_dir_writable\":%s",
			       o->dep.out_dir_problem[0] ? "false" : "true");
		}
	}
	if (p->ran) {
		printf(",\"probe\":{");
		printf("\"loader\":");
		text_json_str(stdout, p->loader, strlen(p->loader));
		json_text("libc", p->runtime_libc);
		for (int l = 0; l < DEPLOY_NLIBC; l++) {
			if (!p->tried[l])
				continue;
			printf(",\"%s\":{\"loads\":%s", deploy_libc_name(l),
			       p->ok[l] ? "true" : "false");
			json_text("why", p->why[l]);
			printf("}");
		}
		printf("}");
	}
	if (o->rc == 0 && !o->dep.not_reloaded) {
		printf(",\"vm_code\":%d", o->reply.vm_code);
		if (o->reply.agent_code_known)
			printf(",\"agent_code\":%d", o->reply.agent_code);
		if (o->reply.failed)
			json_text("message", o->reply.message);
	}
	if (env->clean)
		printf(",\"removed\":%d", o->removed);
	json_text("kept", o->kept);
	printf(",\"source\":%s", o->mapped ? "\"vmstructs\"" : o->exit == 0 && !env->stop ?
	       "\"agent\"" : "null");
	if (o->mapped)
		json_text("map", o->map_path);
	json_text("error", o->rc ? o->err.msg : NULL);
	printf("}");
}

/* The failure line of one target (stderr). */
void attach_print_failure(const struct attach_outcome *o)
{
	char buf[800];

	if (o->rc)
		cli_err("%d: %s", (int)o->pid, safe(o->err.msg, buf, sizeof(buf)));
	if (o->no_agents && !o->mapped)
		cli_err("%d: this JVM takes no agent: `jsym map %d` reads its symbols from "
			"outside (or jsym attach --fallback=map)", (int)o->pid, (int)o->pid);
	else if (o->reply.failed)
		cli_err("%d: the JVM refused to load the agent (result %d): %s",
			(int)o->pid, o->reply.vm_code,
			safe(o->reply.message, buf, sizeof(buf)));
	else if (o->reply.agent_code_known && o->reply.agent_code == 3 &&
		 o->dep.how == DEPLOY_MEMFD && o->dep.out_dir_problem[0])
		cli_err("%d: the agent's Agent_OnAttach returned 3: the container's "
			"%s %s, and there is no other writable directory it knows of, "
			"so it cannot write its map (the agent came from a memfd because "
			"the container's temp dir cannot take a file); attach again with "
			"--options dir=<a writable directory in the container>",
			(int)o->pid, safe(o->dep.out_dir, buf, sizeof(buf)),
			o->dep.out_dir_problem);
	else if (o->reply.agent_code_known && o->reply.agent_code)
		cli_err("%d: the agent's Agent_OnAttach returned %d (see jsym-%d.log "
			"in the agent's directory, docs/agent.md)", (int)o->pid,
			o->reply.agent_code, (int)o->nspid);
}

void attach_print_human(const struct attach_env *env, const struct attach_outcome *o)
{
	char v[160], v2[400], path[PATH_MAX];

	if (o->exit) {
		attach_print_failure(o);
		return;
	}
	if (o->mapped) {
		printf("jsym: %d: the JVM takes no agent; %zu Java methods read from "
		       "outside into %s%s (jsym map)\n", (int)o->pid, o->map_java,
		       safe(o->map_path, path, sizeof(path)),
		       o->container ? " inside the JVM's container" : "");
		return;
	}
	safe(o->dep.load_path, path, sizeof(path));
	if (env->stop) {
		printf("jsym: %d: agent %s%s", (int)o->pid, o->deployed ?
		       "stopped" : "not running", env->clean ? "" : "\n");
		if (env->clean)
			printf("; removed %d copied file%s%s%s\n", o->removed,
			       o->removed == 1 ? "" : "s", o->kept[0] ?
			       "; kept the mapped " : "", safe(o->kept, v2, sizeof(v2)));
		return;
	}
	if (o->dep.not_reloaded) {
		printf("jsym: %d: a jsym agent already runs (loaded from %s, which "
		       "cannot be named again): not refreshed, no second copy loaded\n",
		       (int)o->pid, path);
		return;
	}
	/* OpenJ9 gives no version before the attach: "OpenJ9, glibc build" */
	printf("jsym: %d: agent %s (%s%s%s, %s build, %s%s%s)\n", (int)o->pid,
	       o->dep.how == DEPLOY_ALREADY ? "refreshed" : "loaded",
	       run_kind_name(o->kind), o->jdk_version[0] ? " " : "",
	       o->jdk_version[0] ? safe(o->jdk_version, v, sizeof(v)) : "",
	       deploy_libc_name(o->dep.libc), deploy_how_name(o->dep.how),
	       o->dep.how == DEPLOY_COPIED ? " to " : " ", path);
	if (o->dep.how == DEPLOY_MEMFD)
		printf("jsym: %d: delivered from a memfd, nothing written in the "
		       "container%s%s\n", (int)o->pid, o->dep.copy_refused[0] ?
		       ": " : "", safe(o->dep.copy_refused, v2, sizeof(v2)));
	bool in_tmp = !o->out_dir[0] || !strcmp(o->out_dir, "/tmp");

	printf("jsym: %d: symbols in %s/perf-%d.map%s%s\n", (int)o->pid,
	       in_tmp ? "/tmp" : safe(o->out_dir, v, sizeof(v)), (int)o->nspid,
	       o->container ? " inside the JVM's container" : "",
	       in_tmp ? (o->container ? " (perf finds it)" : "") :
	       " (perf looks in /tmp only: point it there, e.g. with a symlink)");
	if (o->kind == PROC_HOTSPOT && o->jdk_major >= 21 && o->dep.how != DEPLOY_ALREADY)
		cli_err("note: JDK %d logs a warning on the JVM's stderr for a "
			"dynamically loaded agent; start the JVM with "
			"-XX:+EnableDynamicAgentLoading to silence it", o->jdk_major);
}

void attach_print_table(const struct attach_env *env,
			const struct attach_outcome *o, int n)
{
	char v[40];

	printf("%-8s %-7s %-8s %-12s %-6s %s\n", "PID", "NSPID", "KIND", "VERSION",
	       "BUILD", "RESULT");
	for (int i = 0; i < n; i++) {
		printf("%-8d %-7d %-8s %-12s %-6s ", (int)o[i].pid, (int)o[i].nspid,
		       o[i].opened ? run_kind_name(o[i].kind) : "-",
		       o[i].jdk_version[0] ? safe(o[i].jdk_version, v, sizeof(v)) : "-",
		       o[i].deployed ? deploy_libc_name(o[i].dep.libc) : "-");
		if (o[i].exit == 0)
			printf("%s (%s)\n", env->stop ? "stopped" : "attached",
			       deploy_how_name(o[i].dep.how));
		else if (o[i].skipped)
			printf("skipped (exit %d)\n", o[i].exit);
		else
			printf("failed (exit %d)\n", o[i].exit);
	}
}

void attach_print_left_out(const struct attach_list *list)
{
	for (int g = 0; g < list->ngroups; g++) {
		const struct attach_group *c = &list->groups[g];

		if (c->found > c->taken)
			cli_err("container %s: %d processes look like JVMs; %d left "
				"out, not attached (--all takes at most %d per container "
				"and %d in all, in /proc order, so that no container can "
				"crowd out the others; attach them by pid)", c->container,
				c->found, c->found - c->taken, ATTACH_MAX_PER_CONTAINER,
				ATTACH_MAX_ALL);
	}
	if (list->stalled)
		cli_err("%d processes not looked at: reading their /proc or root files "
			"took longer than %d ms each (a file system that does not answer, "
			"such as a stalled FUSE or network mount); jsym list shows which",
			list->stalled, ATTACH_SCAN_BUDGET_MS);
}
