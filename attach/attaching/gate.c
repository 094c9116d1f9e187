/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gate.c - what the attach decides per JVM before it deploys anything:
 * whether this JDK may take the agent at all (jdk_agent_verdict), whether its
 * container has the memory for it, and the agent's options for it
 * (attaching_int.h).  Warnings go to the caller's hooks.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "attaching_int.h"
#include "deploy.h"
#include "target.h"

/* A warning about t for the user (env->hooks.warn), formatted here. */
static void warn(const struct attach_env *env, const struct target *t,
		 const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void warn(const struct attach_env *env, const struct target *t,
		 const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (!env->hooks.warn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	env->hooks.warn(env->hooks.ctx, t->pid, buf);
}

/*
 * A JDK the agent must not go into (jdk_agent_verdict): refused unless
 * --force; a doubt is said on stderr and the attach goes on.
 */
int attach_version_gate(const struct attach_env *env, const struct target *t,
			struct attach_outcome *out, const struct attach_log *log,
			struct err_text *e)
{
	struct err_text why;
	enum jdk_verdict v;

	if (t->maps.kind != PROC_HOTSPOT)
		return 0;
	v = jdk_agent_verdict(t->jdk_major, t->jdk_version, &why);
	if (v == JDK_AGENT_REFUSE && !env->force) {
		out->version_refused = true;
		return err_set(e, -EOPNOTSUPP, "refusing to load the agent: %s; update "
			       "the JDK, use jsym map (it loads nothing), or give "
			       "--force to load it anyway", why.msg);
	}
	if (v == JDK_AGENT_REFUSE)
		warn(env, t, "warning: loading the agent anyway (--force): %s", why.msg);
	else if (v == JDK_AGENT_WARN)
		warn(env, t, "warning: %s", why.msg);
	if (v != JDK_AGENT_OK)
		attach_step(log, "version check: %s", v == JDK_AGENT_WARN ? "doubt" :
			    "refused, forced");
	return 0;
}

/*
 * A JVM whose memory cgroup (or one above it) is close to its limit: the
 * agent takes memory in the JVM (its tables, the JVM's bookkeeping for the
 * compiled-method events it replays, and the map and journal it writes to
 * a memory-backed /tmp), and a container pushed past its limit gets its
 * JVM killed.  Measured (91-runc-limits): a JDK 17 container's usage grew
 * by 7 MiB during the attach, and one 4 MiB below its limit was killed by
 * the kernel during `load`.  Refused below DEPLOY_MEM_RESERVE unless
 * --force.
 */
int attach_memory_gate(const struct attach_env *env, const struct target *t,
		       struct attach_outcome *out, const struct attach_log *log,
		       struct err_text *e)
{
	uint64_t room;
	int rc;

	if (t->maps.agent[0])
		return 0;       /* an agent already runs: it takes no more */
	rc = deploy_cgroup_memory_room(t, &room);
	if (rc)
		attach_step(log, "memory check: the JVM's memory cgroup cannot be read "
			    "(%s): not checked", strerror(-rc));
	else if (room == UINT64_MAX)
		attach_step(log, "memory check: no memory limit above the JVM");
	else
		attach_step(log, "memory check: %llu KiB left below the JVM's memory limit",
			    (unsigned long long)room >> 10);
	if (rc || room >= DEPLOY_MEM_RESERVE)
		return 0;
	if (env->force) {
		warn(env, t, "warning: loading the agent anyway (--force) with %llu KiB "
		     "left below the container's memory limit",
		     (unsigned long long)room >> 10);
		attach_step(log, "memory check: refused, forced");
		return 0;
	}
	out->memory_refused = true;
	return err_set(e, -EDQUOT, "refusing to load the agent: the JVM's container has "
		       "%llu KiB left below its memory limit, and the agent takes memory "
		       "in the JVM (jsym wants %u MiB free: past its limit the kernel "
		       "kills the JVM); raise the limit, use jsym map (it loads "
		       "nothing), or give --force to load it anyway",
		       (unsigned long long)room >> 10, DEPLOY_MEM_RESERVE >> 20);
}

/*
 * The agent's options for this JVM: the user's, with dir= added when the
 * user named none and the agent's outputs must leave /tmp (JDK 28's
 * AltTempDir with an unusable /tmp: target_out_dir).  out->out_dir gets
 * the directory; *opts points at env's options or at buf.
 */
int attach_agent_options(const struct attach_env *env, const struct target *t,
			 struct attach_outcome *out, char *buf, size_t cap,
			 const char **opts, const struct attach_log *log,
			 struct err_text *e)
{
	const char *dir = env->out_dir[0] ? env->out_dir : target_out_dir(t);
	int n;

	snprintf(out->out_dir, sizeof(out->out_dir), "%s", dir);
	*opts = env->options;
	if (env->out_dir[0] || !strcmp(dir, "/tmp"))
		return 0;
	n = snprintf(buf, cap, "dir=%s%s%s", dir, env->options ? "," : "",
		     env->options ? env->options : "");
	if (n < 0 || (size_t)n >= cap)
		return err_set(e, -E2BIG, "the agent's options with dir=%s are too "
			       "long", dir);
	attach_step(log, "the JVM's /tmp is missing or read-only and its temp dir "
		    "is %s (JDK 28's AltTempDir): the agent writes there (perf "
		    "looks in /tmp)", dir);
	*opts = buf;
	return 0;
}
