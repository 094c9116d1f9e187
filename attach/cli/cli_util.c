/* SPDX-License-Identifier: Apache-2.0 */
/* cli_util.c - the verbose step log, error output and escaped target text of
 * the command line. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"
#include "cli.h"
#include "target.h"

void cli_log_init(struct cli_log *l, bool on)
{
	l->on = on;
	l->start_ms = clock_ms();
}

void cli_step(void *ctx, const char *line)
{
	struct cli_log *l = ctx;

	char safe[2048];

	if (!l || !l->on)
		return;
	/* one write per line: the attach child logs to the same stderr */
	dprintf(STDERR_FILENO, "jsym: [%ld ms] %s\n", clock_ms() - l->start_ms,
		term_str(safe, sizeof(safe), line));
}

void cli_err(const char *fmt, ...)
{
	char buf[1024], safe[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* Messages embed target text (comm, paths, the JVM's own message);
	 * whatever a caller did not escape is escaped here. */
	dprintf(STDERR_FILENO, "jsym: %s\n", term_escape(safe, sizeof(safe), buf,
							  strlen(buf), TERM_KEEP_NL));
}

int cli_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts)
{
	char *name = argv[0], prog[64];
	int c;

	/* both libcs print argv[0] before their message and read it for
	 * nothing else; the permutation moves only argv[optind...] */
	snprintf(prog, sizeof(prog), "jsym: %s", name);
	argv[0] = prog;
	c = getopt_long(argc, argv, shortopts, longopts, NULL);
	argv[0] = name;
	return c;
}

void cli_put_text(FILE *f, const char *s)
{
	size_t n = strlen(s), cap = 4 * n + 1; /* an escape is 4 bytes for 1 */
	char small[1024], *buf = cap <= sizeof(small) ? small : malloc(cap);

	if (!buf) {
		fputs("(out of memory)", f);
		return;
	}
	fputs(term_escape(buf, cap, s, n, 0), f);
	if (buf != small)
		free(buf);
}

int cli_timeout_opt(int c, const char *arg, int *timeout_ms, int *read_timeout_ms)
{
	if (c == 't') {
		if (text_parse_ms(arg, timeout_ms) || !*timeout_ms) {
			cli_err("--timeout wants milliseconds > 0, not '%s'", arg);
			return -EINVAL;
		}
		return 0;
	}
	if (c == 'r') {
		if (text_parse_ms(arg, read_timeout_ms)) {
			cli_err("--read-timeout wants milliseconds, not '%s'", arg);
			return -EINVAL;
		}
		return 0;
	}
	return 1;
}

int cli_each_process_bounded(int (*fn)(struct target *t, void *ctx), void *ctx,
			     size_t ctx_len, int budget_ms,
			     void (*stalled)(pid_t pid, void *ctx))
{
	DIR *d = opendir("/proc");
	pid_t self = getpid(), pid;
	struct dirent *de;
	int r = TARGET_VISIT_DONE;

	if (!d) {
		int err = errno;

		cli_err("cannot read /proc: %s", strerror(err));
		return -err;
	}
	while (r != TARGET_VISIT_STOP && (de = readdir(d)) != NULL) {
		if (text_parse_pid(de->d_name, &pid) || pid == self)
			continue;
		r = target_visit_bounded(pid, budget_ms, fn, ctx, ctx_len);
		if (r < 0) {
			cli_err("cannot fork to inspect process %d: %s", (int)pid, strerror(-r));
			break;
		}
		if (r == TARGET_VISIT_STALLED && stalled)
			stalled(pid, ctx);
	}
	closedir(d);
	return r < 0 ? r : 0;
}

struct watched {
	const struct cli_command *c;
	int argc;
	char **argv;
};

static int watched_body(void *ctx)
{
	const struct watched *w = ctx;

	return w->c->main(w->argc, w->argv);
}

/* The command line asks for JSON (its options, before any "--"). */
static bool wants_json(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json"))
			return true;
	return false;
}

/* Why the watched command was given up on, as one sentence. */
static void gave_up_text(const struct cli_command *c, const struct watch_end *end,
			 char *buf, size_t cap)
{
	const char *what = end->what[0] ? end->what : c->name;

	if (end->lost)
		snprintf(buf, cap, "%s ended unseen: its process was reaped by "
			 "another (SIGCHLD taken elsewhere); its outcome is unknown",
			 c->name);
	else if (end->signo)
		snprintf(buf, cap, "%s did not end within %d ms of %s: killed", c->name,
			 end->limit_ms, strsignal(end->signo));
	else if (end->output_held)
		snprintf(buf, cap, "%s did not end within %d ms: the reader of jsym's "
			 "output took nothing for that long; jsym gave up on it", what,
			 end->limit_ms);
	else
		snprintf(buf, cap, "%s did not end within %d ms: a file or /proc entry "
			 "it reads never answered (a FUSE or network file system, "
			 "perhaps below an overlay?); jsym gave up on it", what,
			 end->limit_ms);
}

int cli_run_watched(const struct cli_command *c, int argc, char **argv)
{
	struct watched w = { c, argc, argv };
	struct watch_end end;
	struct sigaction sa;
	char why[512];
	int rc = watch_run(watched_body, &w, &end);

	if (rc) {
		cli_err("cannot start %s in a child process: %s (%s)", c->name,
			strerror(-rc), rc == -EMFILE || rc == -ENFILE ?
			"too many open files: raise the limit, ulimit -n" :
			"the system is out of processes or memory");
		return JSYM_EXIT_FAIL;
	}
	if (end.overran || end.lost) {
		gave_up_text(c, &end, why, sizeof(why));
		if (wants_json(argc, argv)) {
			printf("{\"ok\":false,\"error\":");
			text_json_str(stdout, why, strlen(why));
			printf(",\"exit\":%d}\n", end.signo ? end.status : JSYM_EXIT_FAIL);
			fflush(stdout);
		}
		cli_err("%s", why);
	}
	if (end.left)
		cli_err("process %d, which ran it, did not die within 500 ms of SIGKILL: "
			"it is stuck in the kernel (as in a FUSE request that is never "
			"answered) and is left behind; it ends when that file system "
			"answers or is unmounted (umount -l, or write 1 to its abort in "
			"/sys/fs/fuse/connections/)", (int)end.child);
	if (end.overran || end.lost)
		return end.signo ? end.status : JSYM_EXIT_FAIL;
	if ((end.died_of == SIGINT || end.died_of == SIGTERM || end.died_of == SIGHUP) &&
	    sigaction(end.died_of, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN) {
		/* ended as jsym's own process would have: a shell sees it */
		signal(end.died_of, SIG_DFL);
		raise(end.died_of);
	} else if (end.died_of == SIGKILL) {
		cli_err("%s was killed (SIGKILL: the kernel's OOM killer, or kill -9)",
			c->name);
	} else if (end.died_of && end.died_of != SIGINT && end.died_of != SIGTERM &&
		   end.died_of != SIGHUP && end.died_of != SIGPIPE) {
		cli_err("%s died of signal %d (a jsym bug: please report it with -v "
			"output)", c->name, end.died_of);
	}
	return end.status;
}
