/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_attach.h - what cli_attach.c (doing) and cli_attach_print.c
 * (reporting) share: the command's settings and one JVM's outcome.
 */
#ifndef JSYM_CLI_ATTACH_H
#define JSYM_CLI_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base.h"
#include "deploy.h"

#define MAX_PIDS 4096
#define MAX_JOBS 64     /* --jobs: JVMs attached at once */

struct attach_env {
	int timeout_ms;
	int read_timeout_ms;
	int jobs;
	bool verbose, json, all, stop, clean;
	bool fallback_map;      /* --fallback=map: jsym map when agents are refused */
	bool force;             /* --force: load into a JDK jsym refuses */
	const char *options;    /* the agent's options, or NULL */
	const char *agent_dir;
	enum deploy_delivery delivery;
	char out_dir[128];      /* dir= of the agent's options, "" if none */
	struct deploy_builds builds;
	int npids;
	pid_t pids[MAX_PIDS];
};

/* One target's outcome: fixed size, it crosses the pool's pipe. */
struct attach_outcome {
	pid_t pid, nspid;
	unsigned uid;
	int kind;               /* enum proc_jvm_kind */
	int jvm_libc;           /* enum proc_libc */
	int jdk_major;
	char jdk_version[32];
	bool container;
	bool opened;            /* target_open succeeded */
	bool deployed;          /* dep is meaningful */
	int rc;                 /* 0, or jsym's -errno */
	int exit;
	struct deploy_result dep;
	struct attach_reply reply;
	char err[768];
	char kept[256];
	int removed;
	bool no_agents;         /* the JVM refuses agents (flags or its reply) */
	bool version_refused;   /* jsym refused this JDK (jdk_agent_verdict) */
	bool memory_refused;    /* ... or its container's memory was short */
	char out_dir[128];      /* where the agent writes, as the JVM names it */
	bool mapped;            /* ... so jsym map wrote its map instead */
	char map_path[192];
	size_t map_java;
};

struct target;

/*
 * A JDK the agent must not go into (jdk_agent_verdict): -EOPNOTSUPP with
 * the reason and the ways out in e, and out->version_refused, unless
 * --force; a forced refusal or a doubt is a warning on stderr.  0 when the
 * attach may go on (always for OpenJ9).
 */
int attach_version_gate(const struct attach_env *env, const struct target *t,
			struct attach_outcome *out, const struct attach_log *log,
			struct err_text *e);

/*
 * A JVM whose memory cgroup, or one above it, has less than
 * DEPLOY_MEM_RESERVE left below its limit (and no agent yet): -EDQUOT with
 * the room and the ways out in e, and out->memory_refused, unless --force
 * (a warning on stderr).  0 when the attach may go on, also when the room
 * cannot be read.
 */
int attach_memory_gate(const struct attach_env *env, const struct target *t,
		       struct attach_outcome *out, const struct attach_log *log,
		       struct err_text *e);

/*
 * The agent's options for this JVM: the user's, with dir= added when the
 * user named none and target_out_dir() moves the outputs out of /tmp.
 * out->out_dir gets the directory, *opts env->options or buf (cap bytes).
 * 0, or -E2BIG with e set.
 */
int attach_agent_options(const struct attach_env *env, const struct target *t,
			 struct attach_outcome *out, char *buf, size_t cap,
			 const char **opts, const struct attach_log *log,
			 struct err_text *e);

void attach_print_json(const struct attach_env *env, const struct attach_outcome *o);
/* The failure line of one JVM, on stderr (nothing when it succeeded). */
void attach_print_failure(const struct attach_outcome *o);
void attach_print_human(const struct attach_env *env, const struct attach_outcome *o);
/* The --all summary table on stdout. */
void attach_print_table(const struct attach_env *env, const struct attach_outcome *o, int n);

#endif
