/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_attach.c - `jsym attach PID...|--all`, `jsym attach --stop`, `jsym detach`.
 *
 * For each JVM: learn about it (target_open), refuse what must not be
 * touched (cli_precheck), get the agent into its reach (attach/deploy:
 * reuse, in place, or copied into its container with the libc picked under
 * the container's own loader), then `load` it through the HotSpot or
 * OpenJ9 client (attach/run).  --all runs the same for every JVM visible
 * from here in a bounded pool of workers and prints one summary.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "cli.h"
#include "cli_attach.h"
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
		snprintf(out->err, sizeof(out->err), "%s", res.err.msg[0] ?
			 res.err.msg : strerror(-rc));
	return rc;
}

static int verdict(const struct attach_outcome *o)
{
	if (o->rc)
		return JSYM_EXIT_FAIL;
	if (o->reply.failed)
		return JSYM_EXIT_JVM;
	if (o->reply.agent_code_known && o->reply.agent_code != 0)
		return JSYM_EXIT_AGENT;
	return JSYM_EXIT_OK;
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
	size_t n;

	/* the agent's way is closed: read the symbols from outside */
	out->mapped = vmstructs_map_once(t, out->map_path, sizeof(out->map_path),
					 &out->map_java, &me) == 0;
	if (out->mapped) {
		out->reply.failed = false;
		return 0;
	}
	n = strlen(out->err);
	snprintf(out->err + n, sizeof(out->err) - n, "; jsym map failed "
		 "too: %.400s", me.msg);
	return rc;
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

static void attach_one(struct attach_env *env, pid_t pid,
		       struct attach_outcome *out)
{
	static struct cli_log cl;
	struct attach_log log = { cli_step, &cl };
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
	cli_log_init(&cl, env->verbose);
	rc = target_open(pid, TARGET_FDS, &t, &e);
	if (rc == 0) {
		record_target(&t, out);
		cli_log_facts(&t, &log);
		rc = cli_precheck(&t, &e);
	}
	if (rc == 0 && env->stop)
		rc = stop_one(env, &t, &log, out, &e);
	else if (rc == 0)
		rc = prepare_load(env, &t, out, optbuf, sizeof(optbuf), &opts, &dopt,
				  &log, &e);
	if (rc == 0 && !env->stop)
		rc = deploy_and_load(env, &t, &dopt, opts, &log, out, &e);
	if (rc && !out->err[0])
		snprintf(out->err, sizeof(out->err), "%s", e.msg[0] ? e.msg : strerror(-rc));
	out->no_agents = out->opened && !env->stop && refuses_agents(&t, out);
	if (out->no_agents && env->fallback_map)
		rc = fallback_map(&t, rc, out);
	out->rc = rc;
	out->exit = verdict(out);
	if (out->opened)
		target_close(&t);
}

static void usage_err(void)
{
	cli_err("usage: jsym attach [-v] [--json] [--force] [--options OPTS] [--agent-dir DIR] "
		"[--delivery auto|copy|memfd] "
		"[--timeout MS] (PID... | --all [--jobs N]) | jsym attach --stop [--clean] "
		"PID... | jsym detach PID...");
}

/* The agent's dir= among its comma-separated options ("" when absent). */
static int agent_dir_of(const char *opts, char *out, size_t cap)
{
	const char *p = opts;

	out[0] = '\0';
	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n > 4 && !strncmp(p, "dir=", 4)) {
			if (p[4] != '/' || n - 4 >= cap)
				return -EINVAL;
			memcpy(out, p + 4, n - 4);
			out[n - 4] = '\0';
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}

static int parse(struct attach_env *env, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, OPT_ALL },
		{ "jobs", required_argument, NULL, 'j' },
		{ "options", required_argument, NULL, 'o' },
		{ "agent-dir", required_argument, NULL, 'a' },
		{ "delivery", required_argument, NULL, OPT_DELIVERY },
		{ "stop", no_argument, NULL, OPT_STOP },
		{ "clean", no_argument, NULL, OPT_CLEAN },
		{ "timeout", required_argument, NULL, 't' },
		{ "read-timeout", required_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "fallback", required_argument, NULL, OPT_FALLBACK },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	env->timeout_ms = 10000;
	env->read_timeout_ms = 30000;
	env->jobs = 4;
	optind = 1;
	while ((c = getopt_long(argc, argv, "j:o:a:t:r:vh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_ALL: env->all = true; break;
		case 'j':
			if (text_parse_int(optarg, 1, MAX_JOBS, &env->jobs)) {
				cli_err("--jobs wants 1 to %d, not '%s'", MAX_JOBS, optarg);
				return -EINVAL;
			}
			break;
		case 'o': env->options = optarg; break;
		case 'a': env->agent_dir = optarg; break;
		case OPT_DELIVERY:
			if (!strcmp(optarg, "auto"))
				env->delivery = DEPLOY_DELIVER_AUTO;
			else if (!strcmp(optarg, "copy"))
				env->delivery = DEPLOY_DELIVER_COPY;
			else if (!strcmp(optarg, "memfd"))
				env->delivery = DEPLOY_DELIVER_MEMFD;
			else {
				cli_err("--delivery wants auto, copy or memfd, not '%s'", optarg);
				return -EINVAL;
			}
			break;
		case OPT_STOP: env->stop = true; break;
		case OPT_CLEAN: env->clean = true; break;
		case 't':
		case 'r':
			if (cli_timeout_opt(c, optarg, &env->timeout_ms,
					    &env->read_timeout_ms))
				return -EINVAL;
			break;
		case 'v': env->verbose = true; break;
		case OPT_JSON: env->json = true; break;
		case OPT_FORCE: env->force = true; break;
		case OPT_FALLBACK:
			if (strcmp(optarg, "map")) {
				cli_err("--fallback knows only 'map', not '%s'", optarg);
				return -EINVAL;
			}
			env->fallback_map = true;
			break;
		case 'h':
			cli_help(stdout, argv[0]);
			return 1;
		default:
			usage_err();
			return -EINVAL;
		}
	}
	if (env->clean && !env->stop) {
		cli_err("--clean goes with --stop (or use jsym detach PID)");
		return -EINVAL;
	}
	if (env->options && (env->stop || strchr(env->options, '\n'))) {
		cli_err(env->stop ? "--options cannot go with --stop" :
			"--options must be one line");
		return -EINVAL;
	}
	if (env->options && agent_dir_of(env->options, env->out_dir,
					   sizeof(env->out_dir)) != 0) {
		cli_err("--options: dir= wants an absolute path of at most %zu bytes",
			sizeof(env->out_dir) - 1);
		return -EINVAL;
	}
	if (env->all == (optind < argc)) {
		usage_err();
		return -EINVAL;
	}
	for (; optind < argc; optind++) {
		if (env->npids == MAX_PIDS) {
			cli_err("too many pids (at most %d)", MAX_PIDS);
			return -E2BIG;
		}
		if (text_parse_pid(argv[optind], &env->pids[env->npids])) {
			cli_err("'%s' is not a pid", argv[optind]);
			return -EINVAL;
		}
		env->npids++;
	}
	return 0;
}

/* Every JVM visible from here (not jsym itself), in /proc order. */
static int add_jvm(struct target *t, void *ctx)
{
	struct attach_env *env = ctx;

	if (t->maps.kind != PROC_NOT_JVM)
		env->pids[env->npids++] = t->pid;
	return env->npids == MAX_PIDS;
}

#define SCAN_BUDGET_MS 3000  /* per process of --all's scan */

static void scan_stalled(pid_t pid, void *ctx)
{
	(void)ctx;
	cli_err("process %d did not answer within %d ms (its /proc files or its "
		"JVM's files): skipped", (int)pid, SCAN_BUDGET_MS);
}

/* Each process in a child with SCAN_BUDGET_MS (cli_each_process_bounded):
 * one that stalls is skipped, the DaemonSet's loop goes on. */
static int scan_jvms(struct attach_env *env)
{
	return cli_each_process_bounded(add_jvm, env, sizeof(*env), SCAN_BUDGET_MS,
					scan_stalled);
}

/* The longest one JVM may take: the socket wait, the probe and the helper
 * each within --timeout, the reply within --read-timeout, and slack; no
 * limit when the reply has none (--read-timeout 0). */
static int worker_limit_ms(const struct attach_env *env)
{
	if (!env->read_timeout_ms)
		return 0;
	return 4 * env->timeout_ms + env->read_timeout_ms + 10000;
}

static void pool_job(int idx, void *result, void *ctx)
{
	struct attach_env *env = ctx;

	attach_one(env, env->pids[idx], result);
}

static void pool_progress(int done, int running, int total, void *ctx)
{
	(void)ctx;
	if (isatty(STDERR_FILENO))
		dprintf(STDERR_FILENO, "\rjsym: %d of %d JVMs done, %d running ",
			done, total, running);
	if (done == total && isatty(STDERR_FILENO))
		dprintf(STDERR_FILENO, "\r%*s\r", 48, "");
}

/* The command line read, the builds found, --all's JVMs listed: -1 to go
 * on, else the exit status. */
static int setup(struct attach_env *env, int argc, char **argv, bool detach)
{
	struct err_text e = { "" };
	int rc = parse(env, argc, argv);

	if (rc)
		return rc > 0 ? JSYM_EXIT_OK : JSYM_EXIT_USAGE;
	if (detach)
		env->stop = env->clean = true;
	if (!env->stop && deploy_find_builds(env->agent_dir, &env->builds, &e) != 0) {
		cli_err("%s", e.msg);
		return JSYM_EXIT_FAIL;
	}
	if (env->stop)
		(void)deploy_find_builds(env->agent_dir, &env->builds, &e); /* names only */
	if (env->all && scan_jvms(env) != 0)
		return JSYM_EXIT_FAIL;
	if (env->all && env->npids == 0) {
		if (env->json)
			printf("{\"jvms\":[],\"attached\":0,\"failed\":0,\"exit\":%d}\n",
			       JSYM_EXIT_FAIL);
		cli_err("no JVM visible from here (jsym list -v says why a process "
			"could not be inspected)");
		return JSYM_EXIT_FAIL;
	}
	return -1;
}

/* The outcome of each JVM whose worker gave none; the JVMs that succeeded
 * counted. */
static int settle_outcomes(const struct attach_env *env, struct attach_outcome *out,
			   const char *failed)
{
	int ok = 0;

	for (int i = 0; i < env->npids; i++) {
		if (failed[i]) {
			out[i].pid = env->pids[i];
			out[i].rc = -EIO;
			out[i].exit = JSYM_EXIT_FAIL;
			snprintf(out[i].err, sizeof(out[i].err), "the worker for this JVM "
				 "ended without a result: it was stopped after %d ms (the "
				 "JVM's container stalled it), or it crashed (a jsym bug: "
				 "please report it with -v output)", worker_limit_ms(env));
		}
		ok += out[i].exit == 0;
	}
	return ok;
}

/* Every outcome printed: JSON, --all's table, or one text per JVM; then the
 * failures on stderr. */
static void report(const struct attach_env *env, const struct attach_outcome *out, int ok)
{
	if (env->json && !env->all) {
		for (int i = 0; i < env->npids; i++) {
			attach_print_json(env, &out[i]);
			printf("\n");
		}
	} else if (env->json) {
		printf("{\"jvms\":[");
		for (int i = 0; i < env->npids; i++) {
			if (i)
				printf(",");
			attach_print_json(env, &out[i]);
		}
		printf("],\"attached\":%d,\"failed\":%d,\"exit\":%d}\n", ok,
		       env->npids - ok, ok == env->npids ? 0 : ok ? JSYM_EXIT_PARTIAL :
		       JSYM_EXIT_FAIL);
	} else if (env->all) {
		attach_print_table(env, out, env->npids);
	} else {
		for (int i = 0; i < env->npids; i++)
			attach_print_human(env, &out[i]);
	}
	if (env->json || env->all)
		for (int i = 0; i < env->npids; i++)
			if (out[i].exit)
				attach_print_failure(&out[i]);
	if (env->all)
		cli_err("%d of %d JVMs %s, %d failed", ok, env->npids, env->stop ?
			"stopped" : "attached", env->npids - ok);
}

int cli_attach_main(int argc, char **argv, bool detach)
{
	static struct attach_env env;
	struct attach_outcome *out;
	char *failed;
	int ok, rc;

	rc = setup(&env, argc, argv, detach);
	if (rc >= 0)
		return rc;
	out = calloc((size_t)env.npids, sizeof(*out));
	failed = calloc((size_t)env.npids, 1);
	if (!out || !failed) {
		cli_err("out of memory");
		return JSYM_EXIT_FAIL;
	}
	/* One JVM goes through the pool too (one worker): the worker's hard
	 * limit then holds for `jsym attach PID` and for an --all that found a
	 * single JVM, not only for many. */
	pool_run(env.npids, env.jobs, worker_limit_ms(&env), pool_job, sizeof(*out), out,
		 failed, env.npids > 1 ? pool_progress : NULL, &env);
	ok = settle_outcomes(&env, out, failed);
	report(&env, out, ok);
	rc = env.npids == 1 ? out[0].exit : ok == env.npids ? JSYM_EXIT_OK :
	     ok ? JSYM_EXIT_PARTIAL : JSYM_EXIT_FAIL;
	free(out);
	free(failed);
	deploy_builds_free(&env.builds);
	return rc;
}
