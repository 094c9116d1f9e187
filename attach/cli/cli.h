/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli.h - the `jsym` command line: shared pieces of main.c and cli_*.c.
 *
 * Only this layer prints and only main() decides the exit status.
 */
#ifndef JSYM_CLI_H
#define JSYM_CLI_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "base.h"         /* strict numbers, JSON strings, escaping (attach/base) */

/* Exit codes (docs/cli.md).  JVM result codes are never exit codes. */
enum {
	JSYM_EXIT_OK = 0,       /* success */
	JSYM_EXIT_USAGE = 1,    /* bad command line */
	JSYM_EXIT_FAIL = 2,     /* jsym's own failure before or during attach */
	JSYM_EXIT_JVM = 3,      /* the JVM refused or the command failed */
	JSYM_EXIT_AGENT = 4,    /* Agent_OnAttach returned non-zero */
	JSYM_EXIT_PARTIAL = 5,  /* several JVMs: some succeeded, some failed */
};

/*
 * Options that have no short letter, as getopt_long values (util-linux's
 * style): one list for every command, so that a long-only option is never
 * mistaken for a letter.  A short letter means one thing in every command:
 * -j is --jobs (attach), never --json or --journal; -t is --timeout, so
 * resolve's --at has none; -p is --pid, so exec's --protocol has none
 * (60-docs-man checks every command's letters).
 */
enum cli_long_opt {
	OPT_ALL = CHAR_MAX + 1,
	OPT_AT,
	OPT_CLEAN,
	OPT_DELIVERY,
	OPT_FALLBACK,
	OPT_FORCE,
	OPT_JOURNAL,
	OPT_JSON,
	OPT_LINES,
	OPT_PROTOCOL,
	OPT_STDOUT,
	OPT_STOP,
	OPT_TABLES,
};

#ifndef JSYM_VERSION
#define JSYM_VERSION "0.1"
#endif

/* Verbose step log: "jsym: [12 ms] line" on stderr. */
struct cli_log {
	bool on;
	long start_ms;
};

void cli_log_init(struct cli_log *l, bool on);
/* attach_step_fn for struct attach_log (ctx = struct cli_log *). */
void cli_step(void *ctx, const char *line);

/* "jsym: <text>" on stderr, escaped for the terminal (termtext.c). */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * getopt_long for a command's argv (argv[0] is the command's name): the
 * same, except that getopt's own messages (an unknown option, a missing
 * argument) start "jsym: NAME: " as every other error does, where getopt
 * alone would print the bare command name it finds in argv[0].
 */
struct option;
int cli_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts);

/* Text read from a target (a name in a map or journal, a path) on f,
 * escaped for the terminal (termtext.c) however long it is. */
void cli_put_text(FILE *f, const char *s);

/*
 * The -t/--timeout (> 0) and -r/--read-timeout (0: no limit) options that
 * exec and attach share (base.h says what each means): for c 't' or
 * 'r', parse arg into the matching field and return 0,
 * or print why it is wrong and return -EINVAL; any other c: 1.
 */
int cli_timeout_opt(int c, const char *arg, int *timeout_ms, int *read_timeout_ms);

struct target;

/*
 * Call fn for every process /proc shows here except jsym itself, each
 * looked at by target_visit_bounded (target.h): target_open and fn run in
 * a forked child that has budget_ms for them; one that has not ended by
 * then is killed and left behind (a read the kernel never finishes, a
 * process stuck in D state, cannot hold up the rest), and stalled(pid,
 * ctx) is called in its place.  ctx (ctx_len bytes) is copied to each
 * child and back when it ends in time, so it must hold no pointer to
 * memory fn changes; fn's output goes to the same stdout and stderr; fn
 * returns non-zero to stop the walk.  0, or -errno with the reason
 * printed when /proc cannot be read or no child can be made.
 */
int cli_each_process_bounded(int (*fn)(struct target *t, void *ctx), void *ctx,
			     size_t ctx_len, int budget_ms,
			     void (*stalled)(pid_t pid, void *ctx));

/*
 * Run c->main(argc, argv) in a child that this process watches (base.h,
 * watch_run), and return its exit status.  A step that overran its limit
 * is killed and said on stderr (JSYM_EXIT_FAIL); a signal that ended the
 * child ends this process the same way.
 */
struct cli_command;
int cli_run_watched(const struct cli_command *c, int argc, char **argv);

/* How long a command may take to look at its target (target_open and the
 * checks before any exchange) or to read the files it names. */
#define CLI_LOOK_MS 10000
/* How long `jsym map` may take for one map, from the look at the JVM to
 * the file written (with --follow: for each scan and its writes, after the
 * interval); a real JVM's takes well under a second (docs/map.md). */
#define CLI_MAP_MS 60000

/* One command: a row of the command table (cli_commands.c). */
struct cli_command {
	const char *name;
	int (*main)(int argc, char **argv);     /* argv[0] is the name */
	const char *help;       /* `jsym NAME --help`: options and examples */
	const char *usage;      /* its lines under `jsym --help`'s Commands: */
	/* run in a watched child (cli_run_watched): it reads a target's files
	 * in its own process, with no child of its own to bound them */
	bool watched;
};

/* Every command, in the order of `jsym --help`; ends with a NULL name. */
extern const struct cli_command cli_commands[];

/* The command called name, or NULL. */
const struct cli_command *cli_command(const char *name);

/* The commands (cli_commands.c): `jsym --help` prints it to stdout. */
void cli_usage(FILE *f);

/* One command's options and examples (`jsym COMMAND --help`, `jsym help
 * COMMAND`).  0, or -ENOENT when cmd is not a command (nothing printed). */
int cli_help(FILE *f, const char *cmd);

int cli_exec_main(int argc, char **argv);
int cli_list_main(int argc, char **argv);
/* `jsym resolve`: addresses -> Java methods from the agent's files (cli_resolve.c). */
int cli_resolve_main(int argc, char **argv);
int cli_stacks_main(int argc, char **argv);
/* `jsym map [--follow] PID`: symbols read from the outside (cli_map.c). */
int cli_map_main(int argc, char **argv);
struct vm_session;
/* `jsym map --follow`: the loop over a session of attach/vmstructs
 * (vmstructs.h) opened on t (cli_map_follow.c).  Prints its progress;
 * returns 0 when stopped by SIGINT/SIGTERM or when the JVM exited, else
 * -errno with e set (the journal is closed either way). */
int cli_map_follow(const struct target *t, struct vm_session *s, int interval_ms,
		   bool verbose, bool json, struct err_text *e);
/* `jsym attach ...`; detach: `jsym detach ...` (= attach --stop --clean). */
int cli_attach_main(int argc, char **argv, bool detach);

#endif
