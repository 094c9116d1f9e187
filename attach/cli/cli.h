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
 * -j is --jobs (attach), never --json or --journal.
 */
enum cli_long_opt {
	OPT_ALL = CHAR_MAX + 1,
	OPT_CLEAN,
	OPT_DELIVERY,
	OPT_FALLBACK,
	OPT_FORCE,
	OPT_JOURNAL,
	OPT_JSON,
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

/* "jsym: <text>" on stderr, escaped for the terminal (termtext.h). */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Text read from a target (a name in a map or journal, a path) on f,
 * escaped for the terminal (termtext.h) however long it is. */
void cli_put_text(FILE *f, const char *s);

/*
 * The -t/--timeout (> 0) and -r/--read-timeout options that exec and attach
 * share: for c 't' or 'r', parse arg into the matching field and return 0,
 * or print why it is wrong and return -EINVAL; any other c: 1.
 */
int cli_timeout_opt(int c, const char *arg, int *timeout_ms, int *read_timeout_ms);

struct target;

/*
 * Call fn for every process /proc shows here except jsym itself, opened
 * with target_open(pid, 0) and closed after fn returns (a process that
 * exits meanwhile is skipped).  fn returns non-zero to stop the walk.
 * 0, or -errno with the reason printed when /proc cannot be read.
 */
int cli_each_process(int (*fn)(struct target *t, void *ctx), void *ctx);

/*
 * cli_each_process with a time budget per process: target_open and fn run
 * in a forked child, which has budget_ms for them; one that has not ended
 * by then is killed and left behind (a read the kernel never finishes, a
 * process stuck in D state, cannot hold up the rest), and stalled(pid,
 * ctx) is called in its place.  ctx (ctx_len bytes) is shared with each
 * child for its duration (fn's changes are seen), so it must hold no
 * pointer to memory fn changes; fn's output goes to the same stdout and
 * stderr.  0, or -errno as cli_each_process.
 */
int cli_each_process_bounded(int (*fn)(struct target *t, void *ctx), void *ctx,
			     size_t ctx_len, int budget_ms,
			     void (*stalled)(pid_t pid, void *ctx));

/* The commands (cli_usage.c): `jsym --help` prints it to stdout. */
void cli_usage(FILE *f);

/* One command's options and examples (`jsym COMMAND --help`, `jsym help
 * COMMAND`).  0, or -ENOENT when cmd is not a command (nothing printed). */
int cli_help(FILE *f, const char *cmd);

struct attach_log;
struct err_text;

/* Verbose lines describing the target (kind, ids, namespaces). */
void cli_log_facts(const struct target *t, const struct attach_log *log);

/*
 * Refuse what must not be attached: unreadable maps (cannot confirm a JVM),
 * not a JVM (naming a JVM child if there is one), a foreign pid namespace
 * without NStgid, root/cwd not opened.  0 or -errno with e set.
 */
int cli_precheck(const struct target *t, struct err_text *e);

int cli_exec_main(int argc, char **argv);
int cli_list_main(int argc, char **argv);
/* `jsym resolve`: addresses -> Java methods from the agent's files (cli_resolve.c). */
int cli_resolve_main(int argc, char **argv);
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
