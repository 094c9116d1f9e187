/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attaching.h - the attach use case: the agent into one JVM, or into every
 * JVM visible from here, with one outcome per JVM (attach/attaching).
 *
 * For each JVM: learn about it (target_open), refuse what must not be
 * touched (attaching_precheck), the gates (this JDK, its container's
 * memory), the agent into its reach (attach/deploy), `load` through the
 * HotSpot or OpenJ9 client (attach/run), and `jsym map` from outside when
 * the JVM takes no agent and the caller asked for that.  Every front end
 * (`jsym attach PID...`, `--all`, the DaemonSet's loop, which runs
 * `jsym attach --all`) goes through attaching_run.  The layer prints
 * nothing: the caller's hooks get the step lines and the warnings, and the
 * outcomes come back filled.
 */
#ifndef JSYM_ATTACHING_H
#define JSYM_ATTACHING_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base.h"
#include "deploy.h"
#include "run.h"

struct target;

#define MAX_PIDS 4096           /* PIDs on a command line */
#define MAX_JOBS 64             /* --jobs: JVMs attached at once */
#define ATTACH_MAX_ALL 65536    /* --all: JVMs taken from /proc at most */
#define ATTACH_MAX_PER_CONTAINER 256 /* --all: of one container at most */
#define ATTACH_SCAN_BUDGET_MS 3000 /* --all: to look at one process's files */

/* What the caller hears while the attaches run.  Each hook may be NULL. */
struct attach_hooks {
	/* a JVM's attach starts (in its worker): the step log's clock restarts */
	void (*begin)(void *ctx);
	attach_step_fn step;    /* one verbose step line */
	/* a warning about pid for the user; the attach goes on */
	void (*warn)(void *ctx, pid_t pid, const char *text);
	pool_progress_fn progress;      /* several JVMs: after each one ends */
	void *ctx;
};

/* The request: what to do to each JVM, and how. */
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
	struct attach_hooks hooks;
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
	bool skipped;           /* --all: not tried, its container's share spent */
	int rc;                 /* 0, or jsym's -errno */
	int exit;               /* the enum attach_exit it earns */
	struct deploy_result dep;
	struct attach_reply reply;
	struct err_text err;    /* why rc is not 0 */
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

/* The exit status an outcome earns: cli.h's JSYM_EXIT_* of the same names
 * (docs/cli.md). */
enum attach_exit {
	ATTACH_EXIT_OK = 0,
	ATTACH_EXIT_FAIL = 2,   /* jsym's own failure before or during attach */
	ATTACH_EXIT_JVM = 3,    /* the JVM refused */
	ATTACH_EXIT_AGENT = 4,  /* Agent_OnAttach returned non-zero */
};

/* --all's containers: what /proc showed of each and what was taken. */
struct attach_group {
	char container[64];     /* "pid:[4026532]" (its pid namespace), or
	                           "uid 1000 on the host" (jsym's pid namespace) */
	int found;              /* processes there that look like a JVM */
	int taken;              /* of those, in the list: the rest were left
	                           out, past ATTACH_MAX_PER_CONTAINER or
	                           ATTACH_MAX_ALL */
};

/* The JVMs of one run: the command line's, or --all's grouped by container. */
struct attach_list {
	int n;
	pid_t *pids;
	int *group;             /* each JVM's container, 0..ngroups-1 */
	int ngroups;
	struct attach_group *groups;
	int skipped;            /* JVMs left out in all (found - taken) */
	int stalled;            /* processes not looked at: their files stalled
	                           past ATTACH_SCAN_BUDGET_MS */
};

/*
 * The agent's builds found next to jsym (or in env->agent_dir); for --stop
 * only their names, and not finding them is no error then.  0, or -errno
 * with e set.
 */
int attaching_setup(struct attach_env *env, struct err_text *e);

/*
 * The JVMs to attach: env->pids, or with env->all every JVM /proc shows
 * here (not jsym itself), in /proc order, each with its container (its pid
 * namespace; in ours, its uid).  At most ATTACH_MAX_PER_CONTAINER per
 * container and ATTACH_MAX_ALL in all: the rest are counted in list->skips,
 * never dropped silently.  0, or -errno with e set (list freed).
 */
int attaching_list(const struct attach_env *env, struct attach_list *list,
		   struct err_text *e);
void attaching_list_free(struct attach_list *list);

/*
 * Attach (or stop, or detach) every JVM of list, in forked workers, at
 * most env->jobs at once, each container getting a fair share of the
 * workers and at most attaching_budget_ms() of their time (its JVMs not
 * started after that come back skipped).  out has list->n entries, filled
 * in list order.  Returns how many succeeded, or -errno with e set (out
 * of memory: nothing ran).
 */
int attaching_run(struct attach_env *env, const struct attach_list *list,
		  struct attach_outcome *out, struct err_text *e);

/* Verbose lines describing the target (kind, ids, namespaces). */
void attaching_log_facts(const struct target *t, const struct attach_log *log);

/*
 * Refuse what must not be attached: unreadable maps (cannot confirm a JVM),
 * not a JVM (naming a JVM child if there is one), a foreign pid namespace
 * without NStgid, root/cwd not opened.  0 or -errno with e set.
 */
int attaching_precheck(const struct target *t, struct err_text *e);

#endif
