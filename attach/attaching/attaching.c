/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attaching.c - one JVM's attach, stop or detach (attaching.h): target_open,
 * the prechecks and gates, deploy_prepare, `load` through attach/run,
 * deploy_finish, and the map from outside when the JVM takes no agent.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "attaching_int.h"
#include "deploy.h"
#include "run.h"
#include "target.h"
#include "vmstructs.h"

/* The JVM will not take an agent: attach disabled, no way to reach it
 * (-Xrs without a listener), or it refused dynamic loading. */
static bool refuses_agents(const struct target *t, const struct attach_outcome *o)
{
	return t->maps.kind == PROC_HOTSPOT && (o->version_refused || o->memory_refused ||
	       t->opts.disable_attach ||
	       (t->opts.xrs && !t->opts.start_listener) ||
	       (o->reply.failed && strstr(o->reply.message, "EnableDynamicAgentLoading")));
}

static bool in_container(const struct target *t)
{
	return (t->ns[TNS_PID].known && t->ns[TNS_PID].differs) ||
	       (t->ns[TNS_MNT].known && t->ns[TNS_MNT].differs);
}

/* An agent mapped from a memfd or a deleted file: no path reaches it. */
static bool unnamable(const struct target *t)
{
	return t->maps.agent[0] && (t->maps.agent_deleted ||
				    !strncmp(t->maps.agent, "/memfd:", 7));
}

static int load(const struct attach_env *env, const struct target *t,
		const char *path, const char *opts, const struct attach_log *log,
		struct attach_outcome *out)
{
	const char *args[3] = { path, "true", opts ? opts : "" };
	struct run_request rq = {
		.cmd = "load", .args = args, .nargs = opts ? 3 : 2,
		.timeout_ms = env->timeout_ms, .read_timeout_ms = env->read_timeout_ms,
	};
	static struct run_result res;
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC), rc;

	memset(&res, 0, sizeof(res));
	rc = run_attach(t, &rq, devnull, log, &res);
	if (devnull >= 0)
		close(devnull);
	out->reply = res.reply;
	if (rc)
		err_set(&out->err, rc, "%s", res.err.msg[0] ? res.err.msg : strerror(-rc));
	return rc;
}

static int verdict(const struct attach_outcome *o)
{
	if (o->rc)
		return ATTACH_EXIT_FAIL;
	if (o->reply.failed)
		return ATTACH_EXIT_JVM;
	if (o->reply.agent_code_known && o->reply.agent_code != 0)
		return ATTACH_EXIT_AGENT;
	return ATTACH_EXIT_OK;
}

/* What the report says about the JVM, from what target_open learnt. */
static void record_target(const struct target *t, struct attach_outcome *out)
{
	out->opened = true;
	out->nspid = t->st.nspid;
	out->uid = (unsigned)t->st.uid[1];
	out->kind = t->maps.kind;
	out->jvm_libc = t->maps.libc;
	out->jdk_major = t->jdk_major;
	snprintf(out->jdk_version, sizeof(out->jdk_version), "%s", t->jdk_version);
	out->container = in_container(t);
}

/* --stop: the running agent told to stop (when it can be named again). */
static int stop_agent(const struct attach_env *env, const struct target *t,
		      const struct attach_log *log, struct attach_outcome *out,
		      struct err_text *e)
{
	if (!t->maps.agent[0] && !env->clean)
		return err_set(e, -ENOENT, "no jsym agent runs in this JVM: "
			       "nothing to stop");
	if (unnamable(t))
		return err_set(e, -EALREADY, "the jsym agent in this JVM was loaded "
			       "from %s, which cannot be named again to stop it; it "
			       "stops with the JVM", t->maps.agent);
	if (!t->maps.agent[0])
		return 0;
	snprintf(out->dep.load_path, sizeof(out->dep.load_path), "%s", t->maps.agent);
	out->dep.how = DEPLOY_ALREADY;
	out->deployed = true;
	return load(env, t, t->maps.agent, "stop", log, out);
}

/* --clean: what jsym copied for this JVM removed; out->removed counts it. */
static int clean_copies(struct attach_env *env, const struct target *t,
			struct attach_outcome *out, struct err_text *e)
{
	int rc = deploy_builds_read(&env->builds, e);

	if (rc == 0)
		rc = deploy_clean(t, &env->builds, true, out->kept, sizeof(out->kept), e);
	if (rc < 0)
		return rc;
	out->removed = rc;
	return 0;
}

/* `jsym attach --stop [--clean]` (and detach) for one JVM. */
static int stop_one(struct attach_env *env, const struct target *t,
		    const struct attach_log *log, struct attach_outcome *out,
		    struct err_text *e)
{
	int rc = stop_agent(env, t, log, out, e);

	if (rc == 0 && env->clean)
		rc = clean_copies(env, t, out, e);
	return rc;
}

/* Nothing left behind by a failed first attach: what this call copied goes
 * again unless the JVM maps it after all. */
static void undo_failed_copy(struct attach_env *env, struct target *t, int rc,
			     const struct attach_outcome *out,
			     const struct attach_log *log)
{
	struct err_text ce = { "" };
	int n;

	if (!out->dep.dir_created || !(rc || out->reply.failed ||
	    (out->reply.agent_code_known && out->reply.agent_code)))
		return;
	if (target_reread_maps(t) != 0 || t->maps.agent[0])
		return;
	n = deploy_clean(t, &env->builds, false, NULL, 0, &ce);
	attach_step(log, "the attach failed: removed the %d files it "
		    "copied", n < 0 ? 0 : n);
}

/* The agent into the JVM's reach (deploy_prepare), then `load`, then the
 * memfd helper's end and the clean-up of a failed first attach. */
static int deploy_and_load(struct attach_env *env, struct target *t,
			   const struct deploy_opts *dopt, const char *opts,
			   const struct attach_log *log, struct attach_outcome *out,
			   struct err_text *e)
{
	int rc = 0;

	/* the builds' bytes only when they may be copied: a running agent is
	 * refreshed without them */
	if (!t->maps.agent[0])
		rc = deploy_builds_read(&env->builds, e);
	if (rc == 0)
		rc = deploy_prepare(t, &env->builds, dopt, &out->dep, log, e);
	if (rc == 0)
		out->deployed = true;
	if (rc == 0 && !out->dep.not_reloaded)
		rc = load(env, t, out->dep.load_path, opts, log, out);
	/* the reply is in: the JVM has mapped the memfd, the helper goes */
	if (out->deployed && deploy_finish(&out->dep) != 0)
		attach_step(log, "the memfd helper had to be killed");
	undo_failed_copy(env, t, rc, out, log);
	return rc;
}

/* --fallback=map when the JVM refuses agents: the symbols read from
 * outside.  Returns the attach's rc: 0 once the map is written. */
static int fallback_map(struct target *t, int rc, struct attach_outcome *out)
{
	struct err_text me = { "" };

	/* the agent's way is closed: read the symbols from outside */
	out->mapped = vmstructs_map_once(t, out->map_path, sizeof(out->map_path),
					 &out->map_java, &me) == 0;
	if (out->mapped) {
		out->reply.failed = false;
		return 0;
	}
	return err_add(&out->err, rc, "; jsym map failed too: %.400s", me.msg);
}

/* The agent's options and the gates before a load: the JDK's version, the
 * container's memory, then dir= (dopt->out_dir follows out->out_dir). */
static int prepare_load(const struct attach_env *env, const struct target *t,
			struct attach_outcome *out, char *optbuf, size_t cap,
			const char **opts, struct deploy_opts *dopt,
			const struct attach_log *log, struct err_text *e)
{
	int rc = attach_version_gate(env, t, out, log, e);

	if (rc == 0)
		rc = attach_memory_gate(env, t, out, log, e);
	if (rc)
		return rc;
	rc = attach_agent_options(env, t, out, optbuf, cap, opts, log, e);
	dopt->out_dir = out->out_dir;
	return rc;
}

void attaching_one(struct attach_env *env, pid_t pid, struct attach_outcome *out)
{
	struct attach_log log = { env->hooks.step, env->hooks.ctx };
	struct deploy_opts dopt = { .timeout_ms = env->timeout_ms,
				    .evidence = env->verbose || env->json,
				    .delivery = env->delivery, .out_dir = env->out_dir };
	struct err_text e = { "" };
	const char *opts = env->options;
	char optbuf[1024];
	struct target t;
	int rc;

	memset(out, 0, sizeof(*out));
	out->pid = pid;
	if (env->hooks.begin)
		env->hooks.begin(env->hooks.ctx);
	rc = target_open(pid, TARGET_FDS, &t, &e);
	if (rc == 0) {
		record_target(&t, out);
		attaching_log_facts(&t, &log);
		rc = attaching_precheck(&t, &e);
	}
	if (rc == 0 && env->stop)
		rc = stop_one(env, &t, &log, out, &e);
	else if (rc == 0)
		rc = prepare_load(env, &t, out, optbuf, sizeof(optbuf), &opts, &dopt,
				  &log, &e);
	if (rc == 0 && !env->stop)
		rc = deploy_and_load(env, &t, &dopt, opts, &log, out, &e);
	if (rc && !out->err.msg[0])
		err_set(&out->err, rc, "%s", e.msg[0] ? e.msg : strerror(-rc));
	out->no_agents = out->opened && !env->stop && refuses_agents(&t, out);
	if (out->no_agents && env->fallback_map)
		rc = fallback_map(&t, rc, out);
	out->rc = rc;
	out->exit = verdict(out);
	if (out->opened)
		target_close(&t);
}

