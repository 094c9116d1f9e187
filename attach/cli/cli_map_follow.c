/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_map_follow.c - `jsym map --follow PID`: keep the JVM's perf map equal
 * to its live code by rescanning, and journal loads and unloads in the
 * agent's format (attach/vmstructs/vm_follow.h, docs/map.md).
 *
 * Runs until SIGINT or SIGTERM (one last scan, the map written if it
 * changed, the journal closed with an UNLOAD per live entry and EPOCH 3)
 * or until the JVM exits (the journal closed the same way).  The two
 * signals are blocked and read from a signalfd, polled together with the
 * JVM's pidfd, so neither an interval's sleep nor a scan is interrupted
 * half-way.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "base.h"
#include "cli.h"
#include "target.h"
#include "vmstructs.h"

/* Failed scans in a row after which following gives up (the JVM alive). */
#define MAX_FAILED_SCANS 10

enum end { END_NONE, END_SIGNAL, END_EXITED };

static bool jvm_gone(const struct target *t)
{
	struct pollfd p = { .fd = t->pidfd, .events = POLLIN };

	if (t->pidfd >= 0)
		return poll(&p, 1, 0) == 1;
	return kill(t->pid, 0) != 0 && errno == ESRCH;
}

/* Sleep up to ms: END_SIGNAL, END_EXITED, or END_NONE when the time is up. */
static enum end wait_interval(int sfd, const struct target *t, int ms, int *signo)
{
	struct pollfd p[2] = { { .fd = sfd, .events = POLLIN },
			       { .fd = t->pidfd, .events = POLLIN } };
	long until = clock_ms() + ms;

	for (;;) {
		long left = until - clock_ms();
		int n;

		if (left <= 0)
			return t->pidfd < 0 && jvm_gone(t) ? END_EXITED : END_NONE;
		n = poll(p, t->pidfd >= 0 ? 2 : 1, (int)left);
		if (n < 0 && errno != EINTR)
			return END_NONE;
		if (n > 0 && (p[0].revents & POLLIN)) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				*signo = (int)si.ssi_signo;
			return END_SIGNAL;
		}
		if (n > 0 && p[1].revents)
			return END_EXITED;
	}
}

static void print_end(const struct target *t, const struct vm_follow_stats *f, enum end why,
		      int signo, bool json)
{
	if (json) {
		printf("{\"pid\":%d,\"nspid\":%d,\"source\":\"vmstructs\",\"ok\":true,"
		       "\"follow\":true,\"end\":\"%s\",\"journal\":", (int)t->pid,
		       (int)t->st.nspid, why == END_EXITED ? "exited" : "signal");
		text_json_str(stdout, f->journal, strlen(f->journal));
		printf(",\"scans\":%llu,\"loads\":%llu,\"stubs\":%llu,\"unloads\":%llu}\n",
		       (unsigned long long)f->scans, (unsigned long long)f->loads,
		       (unsigned long long)f->stubs, (unsigned long long)f->unloads);
		return;
	}
	if (why == END_EXITED)
		printf("jsym: %d: the JVM exited; ", (int)t->pid);
	else
		printf("jsym: %d: stopped by %s; ", (int)t->pid, strsignal(signo));
	printf("%s closed: %llu loads, %llu stubs, %llu unloads in %llu scans\n",
	       f->journal, (unsigned long long)f->loads, (unsigned long long)f->stubs,
	       (unsigned long long)f->unloads, (unsigned long long)f->scans);
}

/* The first state's line (not with --json). */
static void print_start(const struct target *t, const struct vm_follow_stats *f,
			int interval_ms)
{
	char w[4 * sizeof(f->where)], jn[4 * sizeof(f->journal)];

	/* both in the JVM's /tmp or its AltTempDir: the target's text */
	printf("jsym: %d: following: %zu Java methods and %zu stubs in %s, loads and "
	       "unloads in %s%s (every %d ms; stop with Ctrl-C)\n", (int)t->pid, f->java,
	       f->entries - f->java, term_str(w, sizeof(w), f->where),
	       term_str(jn, sizeof(jn), f->journal), (t->ns[TNS_MNT].known &&
	       t->ns[TNS_MNT].differs) ? " inside the JVM's container" : "",
	       interval_ms);
	fflush(stdout);
}

int cli_map_follow(const struct target *t, struct vm_session *s, int interval_ms,
		   bool verbose, bool json, struct err_text *e)
{
	struct vm_follow_stats f;
	sigset_t set, old;
	enum end why = END_NONE;
	int sfd, rc, rc2, failed = 0, signo = 0;
	char what[WATCH_WHAT_MAX];

	watch_stop_signals(&set);
	if (sigprocmask(SIG_BLOCK, &set, &old) != 0)
		return err_set(e, -errno, "cannot block SIGINT, SIGTERM and SIGHUP: %s", strerror(errno));
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0) {
		rc = err_set(e, -errno, "cannot make a signalfd: %s", strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
		return rc;
	}
	rc = vmstructs_follow_start(s, "jsym-map " JSYM_VERSION, &f, e);
	if (rc == 0 && !json)
		print_start(t, &f, interval_ms);
	snprintf(what, sizeof(what), "%d: map --follow's scan", (int)t->pid);
	while (rc == 0 && why == END_NONE) {
		/* the wait, the scan and its writes to the JVM's files */
		watch_step(interval_ms + CLI_MAP_MS, what);
		why = wait_interval(sfd, t, interval_ms, &signo);
		if (why == END_EXITED)
			break;
		/* after a signal: one last scan, so the map is the final state */
		rc = vmstructs_follow_step(s, &f, e);
		if (rc && jvm_gone(t)) {
			rc = 0;
			why = END_EXITED;
			break;
		}
		if (rc && ++failed < MAX_FAILED_SCANS) {
			if (verbose)
				cli_err("%d: scan failed (%s), trying again", (int)t->pid, e->msg);
			rc = 0;
			continue;
		}
		if (rc)
			break;
		failed = 0;
		if (f.added || f.removed)
			rc = vmstructs_follow_write(s, &f, e);
		if (verbose && (f.added || f.removed))
			cli_err("%d: +%zu -%zu: %zu entries (%zu known, %u carried, %u dropped)",
				(int)t->pid, f.added, f.removed, f.entries, f.known,
				f.carried, f.dropped);
	}
	rc2 = vmstructs_follow_stop(s, &f, e);
	if (rc == 0)
		rc = rc2;
	if (rc == 0)
		print_end(t, &f, why, signo, json);
	close(sfd);
	/* The stop signals stay blocked: the command ends here, and a second
	 * copy of the signal that ended it (`pkill -INT jsym` reaches the
	 * watcher, which passes its copy on, and this child) asks for nothing
	 * new; given back, it would end jsym by that signal after its clean
	 * stop.  Only a signalfd that could not be made gives the mask back. */
	return rc;
}
