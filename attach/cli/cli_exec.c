/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_exec.c - `jsym exec PID COMMAND [ARGS...]`.
 *
 * The parent learns about the target (target_open: every fd opened before
 * anything is entered), refuses what must not be touched, then forks one
 * single-threaded child that enters the namespaces, takes the JVM's
 * credentials and speaks the protocol.  The child streams the JVM's output
 * to our stdout itself and sends a struct run_result back through a pipe;
 * the parent only prints the verdict and picks the exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "attaching.h"
#include "cli.h"
#include "run.h"
#include "target.h"

#define MAX_ARGS RUN_MAX_ARGS
#define JOIN_MAX (256 * 1024)

struct exec_env {
	int timeout_ms;
	int read_timeout_ms;
	int protocol;
	bool verbose;
	bool json;
	pid_t pid;
	const char *cmd;
	const char *args[MAX_ARGS];
	int nargs;
	char joined[JOIN_MAX];  /* jcmd: the words joined by blanks */
};

/* The commands and how many arguments each takes (max -1: any number). */
static const struct {
	const char *name;
	int min_args, max_args;
	const char *args;       /* for the usage message */
} commands[] = {
	{ "load", 1, 3, "LIB [true|false [OPTIONS]]" },
	{ "properties", 0, 0, "" },
	{ "agentProperties", 0, 0, "" },
	{ "threaddump", 0, 1, "[-l]" },
	{ "jcmd", 1, -1, "CMD [ARGS...]" },
	{ "printflag", 1, 1, "NAME" },
	{ "setflag", 2, 2, "NAME VALUE" },
	{ "dumpheap", 1, 3, "FILE [-live|-all [GZIP_LEVEL]]" },
	{ "inspectheap", 0, 3, "[-live|-all [FILE [THREADS]]]" },
	{ "datadump", 0, 0, "" },
};

/* Index of command c, or -1. */
static int find_command(const char *c)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(c, commands[i].name))
			return (int)i;
	return -1;
}

static void exec_usage(void)
{
	cli_err("usage: jsym exec [--timeout MS] [--read-timeout MS] "
		"[--protocol auto|1|2] [-v] [--json] PID COMMAND [ARGS...] "
		"(jsym exec --help lists the commands)");
}

/* Build the argument list; jcmd gets its words as one command line. */
static int set_args(struct exec_env *env, int argc, char **argv)
{
	if (argc > MAX_ARGS) {
		cli_err("too many arguments (at most %d)", MAX_ARGS);
		return -E2BIG;
	}
	if (!strcmp(env->cmd, "jcmd") && argc > 0) {
		size_t pos = 0;

		for (int i = 0; i < argc; i++) {
			size_t n = strlen(argv[i]);

			if (pos + n + 2 > sizeof(env->joined)) {
				cli_err("jcmd command line longer than %d bytes", JOIN_MAX);
				return -E2BIG;
			}
			if (i)
				env->joined[pos++] = ' ';
			memcpy(env->joined + pos, argv[i], n);
			pos += n;
		}
		env->joined[pos] = '\0';
		env->args[0] = env->joined;
		env->nargs = 1;
		return 0;
	}
	for (int i = 0; i < argc; i++)
		env->args[i] = argv[i];
	env->nargs = argc;
	/* load LIB: the second argument says whether LIB is an absolute path */
	if (!strcmp(env->cmd, "load") && argc == 1) {
		env->args[1] = argv[0][0] == '/' ? "true" : "false";
		env->nargs = 2;
	}
	return 0;
}

static int parse(struct exec_env *env, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ "read-timeout", required_argument, NULL, 'r' },
		{ "protocol", required_argument, NULL, OPT_PROTOCOL },
		{ "verbose", no_argument, NULL, 'v' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	env->timeout_ms = ATTACH_TIMEOUT_MS;
	env->read_timeout_ms = ATTACH_READ_TIMEOUT_MS;
	optind = 1;
	/* '+': stop at PID, so "threaddump -l" keeps its -l */
	while ((c = cli_getopt(argc, argv, "+t:r:vh", opts)) != -1) {
		switch (c) {
		case 't':
		case 'r':
			if (cli_timeout_opt(c, optarg, &env->timeout_ms,
					    &env->read_timeout_ms))
				return -EINVAL;
			break;
		case OPT_PROTOCOL:
			if (!strcmp(optarg, "auto") || !strcmp(optarg, "0"))
				env->protocol = 0;
			else if (!strcmp(optarg, "1") || !strcmp(optarg, "2"))
				env->protocol = optarg[0] - '0';
			else {
				cli_err("--protocol wants auto, 1 or 2, not '%s'", optarg);
				return -EINVAL;
			}
			break;
		case 'v':
			env->verbose = true;
			break;
		case OPT_JSON:
			env->json = true;
			break;
		case 'h':
			cli_help(stdout, argv[0]);
			return 1;
		default:
			exec_usage();
			return -EINVAL;
		}
	}
	if (argc - optind < 2) {
		exec_usage();
		return -EINVAL;
	}
	if (text_parse_pid(argv[optind], &env->pid)) {
		cli_err("'%s' is not a pid", argv[optind]);
		return -EINVAL;
	}
	env->cmd = argv[optind + 1];
	c = find_command(env->cmd);
	if (c < 0) {
		cli_err("unknown attach command '%s' (known: load, properties, "
			"agentProperties, threaddump, jcmd, printflag, setflag, "
			"dumpheap, inspectheap, datadump)", env->cmd);
		return -EINVAL;
	}
	if (argc - optind - 2 < commands[c].min_args) {
		cli_err("missing arguments: jsym exec PID %s %s", env->cmd,
			commands[c].args);
		return -EINVAL;
	}
	if (commands[c].max_args >= 0 && argc - optind - 2 > commands[c].max_args) {
		cli_err("too many arguments: jsym exec PID %s %s", env->cmd,
			commands[c].args);
		return -EINVAL;
	}
	return set_args(env, argc - optind - 2, argv + optind + 2);
}

static int verdict(const struct exec_env *env, int rc,
		   const struct run_result *res)
{
	const struct attach_reply *r = &res->reply;

	if (rc)
		return JSYM_EXIT_FAIL;
	if (r->failed)
		return JSYM_EXIT_JVM;
	if (r->agent_code_known && r->agent_code != 0)
		return JSYM_EXIT_AGENT;
	(void)env;
	return JSYM_EXIT_OK;
}

static void print_human(const struct exec_env *env, int rc,
			const struct run_result *res)
{
	const struct attach_reply *r = &res->reply;

	if (rc) {
		cli_err("%s", res->err.msg[0] ? res->err.msg : strerror(-rc));
		return;
	}
	if (r->failed) {
		if (!strcmp(env->cmd, "load") || r->vm_code == 0 || r->vm_code == ATTACH_HS_NO_PROTOCOL)
			cli_err("the JVM refused %s (result %d): %s", env->cmd,
				r->vm_code, r->message);
		else
			cli_err("the JVM refused %s (result %d; its message is above)",
				env->cmd, r->vm_code);
	} else if (r->agent_code_known && r->agent_code != 0) {
		cli_err("the agent's Agent_OnAttach returned %d", r->agent_code);
	}
}

/* out_fd: the memfd holding the output, or -1 when none was made. */
static void print_json(const struct exec_env *env, const struct target *t,
		       int rc, const struct run_result *res, int out_fd)
{
	const struct attach_reply *r = &res->reply;
	char *buf = NULL;
	off_t len = out_fd >= 0 ? lseek(out_fd, 0, SEEK_END) : 0;

	printf("{\"pid\":%d,\"command\":", (int)env->pid);
	text_json_str(stdout, env->cmd, strlen(env->cmd));
	/* a pid that could not be opened is no kind of process at all */
	if (t->proc_fd >= 0)
		printf(",\"jvm\":\"%s\"", run_target_kind_name(t));
	else
		printf(",\"jvm\":null");
	if (rc) {
		printf(",\"ok\":false,\"error\":");
		text_json_str(stdout, res->err.msg, strlen(res->err.msg));
	} else {
		printf(",\"ok\":%s,\"vm_code\":%d", r->failed ||
		       (r->agent_code_known && r->agent_code) ? "false" : "true",
		       r->vm_code);
		if (r->agent_code_known)
			printf(",\"agent_code\":%d", r->agent_code);
		if (r->failed) {
			printf(",\"message\":");
			text_json_str(stdout, r->message, strlen(r->message));
		}
	}
	if (len > 0 && (buf = malloc((size_t)len)) != NULL &&
	    pread(out_fd, buf, (size_t)len, 0) == len) {
		printf(",\"output\":");
		text_json_str(stdout, buf, (size_t)len);
	}
	free(buf);
	printf(",\"exit\":%d}\n", verdict(env, rc, res));
}

int cli_exec_main(int argc, char **argv)
{
	static struct exec_env env;
	static struct run_result res;
	struct cli_log cl;
	struct attach_log log = { cli_step, &cl };
	struct target t;
	char what[WATCH_WHAT_MAX];
	int rc, out_fd;

	rc = parse(&env, argc, argv);
	if (rc)
		return rc > 0 ? JSYM_EXIT_OK : JSYM_EXIT_USAGE;
	/* --json collects the output in a memfd; until it exists there is
	 * none (stdout may be a file with earlier contents: never read it) */
	out_fd = env.json ? -1 : STDOUT_FILENO;
	cli_log_init(&cl, env.verbose);
	snprintf(what, sizeof(what), "%d: the look at the process", (int)env.pid);
	watch_step(CLI_LOOK_MS, what);
	rc = target_open(env.pid, TARGET_FDS, &t, &res.err);
	if (rc == 0) {
		attaching_log_facts(&t, &log);
		rc = attaching_precheck(&t, &res.err);
	}
	if (rc == 0 && env.json) {
		out_fd = memfd_create("jsym-output", MFD_CLOEXEC);
		if (out_fd < 0)
			rc = err_set(&res.err, -errno, "cannot create a memfd: %s",
				     strerror(errno));
	}
	if (rc == 0) {
		struct run_request rq = {
			.cmd = env.cmd, .args = env.args, .nargs = env.nargs,
			.protocol = env.protocol, .timeout_ms = env.timeout_ms,
			.read_timeout_ms = env.read_timeout_ms,
		};

		snprintf(what, sizeof(what), "%d: exec %s", (int)env.pid, env.cmd);
		watch_step(watch_attach_limit_ms(env.timeout_ms, env.read_timeout_ms),
			   what);
		rc = run_attach(&t, &rq, out_fd, &log, &res);
	}
	watch_step(0, NULL);    /* what is left only prints */
	if (env.json)
		print_json(&env, &t, rc, &res, out_fd);
	else if (rc == 0)
		attach_step(&log, "done: JVM result %d%s", res.reply.vm_code,
			    res.reply.agent_code_known ? ", agent result known" : "");
	if (!env.json || rc || res.reply.failed)
		print_human(&env, rc, &res);
	else if (res.reply.agent_code_known && res.reply.agent_code)
		print_human(&env, rc, &res);
	if (out_fd != STDOUT_FILENO && out_fd >= 0)
		close(out_fd);
	target_close(&t);
	return verdict(&env, rc, &res);
}
