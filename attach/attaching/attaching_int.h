/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attaching_int.h - inside attach/attaching: one JVM's attach and the
 * worker limits (attaching.c, for all.c), the gates one JVM passes before
 * anything is deployed (gate.c), for attaching.c.
 */
#ifndef JSYM_ATTACHING_INT_H
#define JSYM_ATTACHING_INT_H

#include <stdbool.h>
#include <sys/stat.h>

#include "attaching.h"

/* --all's list being built (all.c), and what a container is: a process's
 * pid namespace, and in jsym's own its uid (the host's users are each a
 * container of their own). */
struct container_key {
	dev_t dev;
	ino_t ino;
	unsigned uid;
};

struct attach_scan {
	struct attach_list *list;
	struct container_key *keys;     /* one per group of list */
	struct stat self_ns;
	bool self_known;
	int cap_groups, cap_pids;
};

/*
 * One JVM found in container k (named name): appended to s->list, or
 * counted in its group as left out past ATTACH_MAX_PER_CONTAINER or
 * ATTACH_MAX_ALL.  0, or -ENOMEM.
 */
int attach_scan_add(struct attach_scan *s, pid_t pid, const struct container_key *k,
		    const char *name);
/* The scan's own memory freed (the list stays the caller's). */
void attach_scan_end(struct attach_scan *s);

/*
 * A JDK the agent must not go into (jdk_agent_verdict): -EOPNOTSUPP with
 * the reason and the ways out in e, and out->version_refused, unless
 * --force; a forced refusal or a doubt is a warning (env->hooks.warn).  0
 * when the attach may go on (always for OpenJ9).
 */
int attach_version_gate(const struct attach_env *env, const struct target *t,
			struct attach_outcome *out, const struct attach_log *log,
			struct err_text *e);

/*
 * A JVM whose memory cgroup, or one above it, has less than
 * DEPLOY_MEM_RESERVE left below its limit (and no agent yet): -EDQUOT with
 * the room and the ways out in e, and out->memory_refused, unless --force
 * (a warning).  0 when the attach may go on, also when the room cannot be
 * read.
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

/*
 * One JVM, in the calling process (attaching_run calls it in a worker):
 * out is filled whatever happens.  env->builds' bytes are read into env
 * when the agent must be copied.
 */
void attaching_one(struct attach_env *env, pid_t pid, struct attach_outcome *out);

/* The longest one JVM may take (a worker's limit); 0: no limit. */
int attaching_worker_limit_ms(const struct attach_env *env);

/* A container's share of worker time under --all; 0: no limit. */
long attaching_budget_ms(const struct attach_env *env);

#endif
