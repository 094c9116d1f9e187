/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_attach.c - `jsym attach PID...|--all`, `jsym attach --stop`, `jsym detach`.
 *
 * Parses the command line into the use case's request (attaching.h), hands
 * it to attaching_run, which does the attach of each JVM (prechecks, gates,
 * deploy, load, the map fallback) in a bounded pool of workers, and prints
 * the outcomes (cli_attach_print.c) and the exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attaching.h"
#include "base.h"
#include "cli.h"
#include "cli_attach.h"

/* The use case's verdicts are the command's exit statuses. */
_Static_assert((int)ATTACH_EXIT_FAIL == JSYM_EXIT_FAIL &&
	       (int)ATTACH_EXIT_JVM == JSYM_EXIT_JVM &&
	       (int)ATTACH_EXIT_AGENT == JSYM_EXIT_AGENT &&
	       (int)ATTACH_EXIT_OK == JSYM_EXIT_OK,
	       "attaching.h's exits are cli.h's");

static void usage_err(void)
{
	cli_err("usage: jsym attach [-v] [--json] [--force] [--options OPTS] [--agent-dir DIR] "
		"[--delivery auto|copy|memfd] "
		"[--timeout MS] (PID... | --all [--jobs N]) | jsym attach --stop [--clean] "
		"PID... | jsym detach [-a DIR] [-t MS] [-r MS] [-v] [--json] PID...");
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

/* --delivery's word into env.  0, or -EINVAL with the reason printed. */
static int set_delivery(struct attach_env *env, const char *arg)
{
	if (!strcmp(arg, "auto"))
		env->delivery = DEPLOY_DELIVER_AUTO;
	else if (!strcmp(arg, "copy"))
		env->delivery = DEPLOY_DELIVER_COPY;
	else if (!strcmp(arg, "memfd"))
		env->delivery = DEPLOY_DELIVER_MEMFD;
	else {
		cli_err("--delivery wants auto, copy or memfd, not '%s'", arg);
		return -EINVAL;
	}
	return 0;
}

/* One option into env: 0, 1 for --help (printed), or -EINVAL with the
 * reason printed. */
static int set_opt(struct attach_env *env, int c, const char *arg, const char *cmd)
{
	switch (c) {
	case OPT_ALL: env->all = true; return 0;
	case 'j':
		if (text_parse_int(arg, 1, MAX_JOBS, &env->jobs)) {
			cli_err("--jobs wants 1 to %d, not '%s'", MAX_JOBS, arg);
			return -EINVAL;
		}
		return 0;
	case 'o': env->options = arg; return 0;
	case 'a': env->agent_dir = arg; return 0;
	case OPT_DELIVERY: return set_delivery(env, arg);
	case OPT_STOP: env->stop = true; return 0;
	case OPT_CLEAN: env->clean = true; return 0;
	case 't':
	case 'r':
		return cli_timeout_opt(c, arg, &env->timeout_ms, &env->read_timeout_ms) ?
		       -EINVAL : 0;
	case 'v': env->verbose = true; return 0;
	case OPT_JSON: env->json = true; return 0;
	case OPT_FORCE: env->force = true; return 0;
	case OPT_FALLBACK:
		if (strcmp(arg, "map")) {
			cli_err("--fallback knows only 'map', not '%s'", arg);
			return -EINVAL;
		}
		env->fallback_map = true;
		return 0;
	case 'h':
		cli_help(stdout, cmd);
		return 1;
	default:
		usage_err();
		return -EINVAL;
	}
}

/*
 * Where each option that is not for every use makes sense.  --stop loads
 * nothing, so what shapes a load (the agent's options, the delivery, the
 * gates --force passes, the map fallback) is refused with it.  jsym detach
 * is attach --stop --clean of the pids it names: it takes the timeouts,
 * -v, --json and --agent-dir (the builds whose copies it removes), and no
 * other.  The options not listed (-t, -r, -v, --json, -h) fit everywhere.
 */
static const struct opt_fit {
	int c;
	const char *name;
	bool with_stop;         /* makes sense with --stop */
	bool in_detach;         /* makes sense in jsym detach */
} opt_fits[] = {
	{ OPT_ALL, "--all", true, false },
	{ 'j', "--jobs", true, false },
	{ 'o', "--options", false, false },
	{ 'a', "--agent-dir", true, true },
	{ OPT_DELIVERY, "--delivery", false, false },
	{ OPT_STOP, "--stop", true, false },
	{ OPT_CLEAN, "--clean", true, false },
	{ OPT_FALLBACK, "--fallback", false, false },
	{ OPT_FORCE, "--force", false, false },
};

/* Bit i of the result: opt_fits[i] is the option c (0 for another). */
static unsigned opt_fit_bit(int c)
{
	for (size_t i = 0; i < sizeof(opt_fits) / sizeof(opt_fits[0]); i++)
		if (opt_fits[i].c == c)
			return 1u << i;
	return 0;
}

/* The first option of given (opt_fit_bit's) that does not fit detach or
 * --stop, printed: -EINVAL; else 0. */
static int check_fit(const struct attach_env *env, unsigned given, bool detach)
{
	for (size_t i = 0; i < sizeof(opt_fits) / sizeof(opt_fits[0]); i++) {
		const struct opt_fit *f = &opt_fits[i];

		if (!(given & (1u << i)))
			continue;
		if (detach && !f->in_detach) {
			cli_err("detach: %s makes no sense (detach is attach --stop "
				"--clean of the PIDs named; jsym detach --help)", f->name);
			return -EINVAL;
		}
		if (env->stop && !f->with_stop) {
			cli_err("%s cannot go with --stop", f->name);
			return -EINVAL;
		}
	}
	return 0;
}

/* The options that go together, and the pids.  0 or -errno (printed). */
static int check_opts(struct attach_env *env, unsigned given, bool detach,
		      int argc, char **argv)
{
	if (check_fit(env, given, detach))
		return -EINVAL;
	if (env->clean && !env->stop) {
		cli_err("--clean goes with --stop (or use jsym detach PID)");
		return -EINVAL;
	}
	if (env->options && strchr(env->options, '\n')) {
		cli_err("--options must be one line");
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

/* The command line into env; detach: it is jsym detach's.  0, 1 for
 * --help (printed), or -errno with the reason printed. */
static int parse(struct attach_env *env, int argc, char **argv, bool detach)
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
	unsigned given = 0;
	int c, rc;

	env->timeout_ms = ATTACH_TIMEOUT_MS;
	env->read_timeout_ms = ATTACH_READ_TIMEOUT_MS;
	env->jobs = 4;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "j:o:a:t:r:vh", opts)) != -1) {
		if ((rc = set_opt(env, c, optarg, argv[0])) != 0)
			return rc;
		given |= opt_fit_bit(c);
	}
	/* before the checks, which then see what detach is */
	if (detach)
		env->stop = env->clean = true;
	return check_opts(env, given, detach, argc, argv);
}

static void progress(int done, int running, int total, void *ctx)
{
	(void)ctx;
	if (isatty(STDERR_FILENO))
		dprintf(STDERR_FILENO, "\rjsym: %d of %d JVMs done, %d running ",
			done, total, running);
	if (done == total && isatty(STDERR_FILENO))
		dprintf(STDERR_FILENO, "\r%*s\r", 48, "");
}

/* The use case's hooks: the step log (per JVM, in its worker), warnings
 * and --all's progress on stderr. */
static void log_begin(void *ctx)
{
	struct cli_log *cl = ctx;

	cli_log_init(cl, cl->on);
}

static void warn(void *ctx, pid_t pid, const char *text)
{
	(void)ctx;
	cli_err("%d: %s", (int)pid, text);
}

/* The command line read, the builds found, the JVMs listed: -1 to go on,
 * else the exit status. */
static int setup(struct attach_env *env, struct cli_log *cl, int argc, char **argv,
		 bool detach, struct attach_list *list)
{
	struct err_text e = { "" };
	int rc = parse(env, argc, argv, detach);

	if (rc)
		return rc > 0 ? JSYM_EXIT_OK : JSYM_EXIT_USAGE;
	cli_log_init(cl, env->verbose);
	env->hooks = (struct attach_hooks){ .begin = log_begin, .step = cli_step,
					    .warn = warn, .progress = progress, .ctx = cl };
	if (attaching_setup(env, &e) != 0 || attaching_list(env, list, &e) != 0) {
		cli_err("%s", e.msg);
		return JSYM_EXIT_FAIL;
	}
	if (env->all && list->n == 0 && list->skipped == 0 && list->stalled == 0) {
		if (env->json)
			printf("{\"jvms\":[],\"attached\":0,\"failed\":0,\"exit\":%d}\n",
			       JSYM_EXIT_FAIL);
		cli_err("no JVM visible from here (jsym list -v says why a process "
			"could not be inspected)");
		attaching_list_free(list);
		return JSYM_EXIT_FAIL;
	}
	return -1;
}

/* Every outcome printed: JSON, --all's table, or one text per JVM; then the
 * failures and what --all left out on stderr. */
static void report(const struct attach_env *env, const struct attach_list *list,
		   const struct attach_outcome *out, int ok)
{
	int n = list->n, tried = n + list->skipped;

	if (env->json && !env->all) {
		for (int i = 0; i < n; i++) {
			attach_print_json(env, &out[i]);
			printf("\n");
		}
	} else if (env->json) {
		printf("{\"jvms\":[");
		for (int i = 0; i < n; i++) {
			if (i)
				printf(",");
			attach_print_json(env, &out[i]);
		}
		printf("],\"attached\":%d,\"failed\":%d", ok, tried - ok);
		if (list->skipped)
			printf(",\"left_out\":%d", list->skipped);
		printf(",\"exit\":%d}\n", ok == tried ? 0 : ok ? JSYM_EXIT_PARTIAL :
		       JSYM_EXIT_FAIL);
	} else if (env->all) {
		attach_print_table(env, out, n);
	} else {
		for (int i = 0; i < n; i++)
			attach_print_human(env, &out[i]);
	}
	if (env->json || env->all)
		for (int i = 0; i < n; i++)
			if (out[i].exit)
				attach_print_failure(&out[i]);
	if (env->all) {
		attach_print_left_out(list);
		cli_err("%d of %d JVMs %s, %d failed", ok, tried, env->stop ?
			"stopped" : "attached", tried - ok);
	}
}

int cli_attach_main(int argc, char **argv, bool detach)
{
	static struct attach_env env;
	static struct cli_log cl;
	struct attach_list list;
	struct attach_outcome *out;
	struct err_text e = { "" };
	int ok, rc, tried;

	rc = setup(&env, &cl, argc, argv, detach, &list);
	if (rc >= 0)
		return rc;
	out = calloc((size_t)list.n + 1, sizeof(*out));
	ok = out ? attaching_run(&env, &list, out, &e) : -ENOMEM;
	if (ok < 0) {
		cli_err("%s", e.msg[0] ? e.msg : "out of memory");
		free(out);
		attaching_list_free(&list);
		return JSYM_EXIT_FAIL;
	}
	report(&env, &list, out, ok);
	tried = list.n + list.skipped;
	rc = tried == 1 ? out[0].exit : ok == tried ? JSYM_EXIT_OK :
	     ok ? JSYM_EXIT_PARTIAL : JSYM_EXIT_FAIL;
	free(out);
	attaching_list_free(&list);
	deploy_builds_free(&env.builds);
	return rc;
}
