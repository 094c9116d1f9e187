/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_attach_gate.c - what `jsym attach` decides per JVM before it
 * deploys anything: whether this JDK may take the agent at all
 * (jdk_version.h), and the agent's options for it (cli_attach.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_attach.h"
#include "deploy.h"
#include "target.h"

/*
 * A JDK the agent must not go into (jdk_version.h): refused unless
 * --force; a doubt is said on stderr and the attach goes on.
 */
int attach_version_gate(const struct attach_env *env, const struct target *t,
			struct attach_outcome *out, const struct attach_log *log,
			struct err_text *e)
{
	char why[512];
	enum jdk_verdict v;

	if (t->maps.kind != PROC_HOTSPOT)
		return 0;
	v = jdk_agent_verdict(t->jdk_major, t->jdk_version, why, sizeof(why));
	if (v == JDK_AGENT_REFUSE && !env->force) {
		out->version_refused = true;
		return err_set(e, -EOPNOTSUPP, "refusing to load the agent: %s; update "
			       "the JDK, use jsym map (it loads nothing), or give "
			       "--force to load it anyway", why);
	}
	if (v == JDK_AGENT_REFUSE)
		cli_err("%d: warning: loading the agent anyway (--force): %s",
			(int)t->pid, why);
	else if (v == JDK_AGENT_WARN)
		cli_err("%d: warning: %s", (int)t->pid, why);
	if (v != JDK_AGENT_OK)
		attach_step(log, "version check: %s", v == JDK_AGENT_WARN ? "doubt" :
			    "refused, forced");
	return 0;
}

/*
 * The agent's options for this JVM: the user's, with dir= added when the
 * user named none and the agent's outputs must leave /tmp (JDK 28's
 * AltTempDir with an unusable /tmp: deploy_out_dir).  out->out_dir gets
 * the directory; *opts points at env's options or at buf.
 */
int attach_agent_options(const struct attach_env *env, const struct target *t,
			 struct attach_outcome *out, char *buf, size_t cap,
			 const char **opts, const struct attach_log *log,
			 struct err_text *e)
{
	const char *dir = env->out_dir[0] ? env->out_dir : deploy_out_dir(t);
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
