/* SPDX-License-Identifier: Apache-2.0 */
/*
 * base.h - the entry of attach/base, the one header of the folder that the
 * layers above see (attach/base/include/): the bottom layer's whole
 * vocabulary, declared here.  Error text (errtext.h, from common/, which
 * the agent may include too) and the one confined open of what a target
 * names (confine.h, from common/, which the lookup library links too) come
 * with it.  Below, one section per module: the types the protocols share
 * and the verbose step log (steplog.c), the monotonic clock (clock.c),
 * whole reads and writes and lock waits (fdio.c), terminal escaping
 * (termtext.c), strict numbers and JSON strings (text.c), the two timeouts
 * of an attach and their defaults.
 */
#ifndef JSYM_BASE_H
#define JSYM_BASE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "confine.h"
#include "errtext.h"

/* ---- the types every attach protocol shares (steplog.c) ------------- */

/*
 * The few types every attach protocol shares.
 *
 * A protocol module (hotspot.c, openj9.c) turns one jattach-style command
 * (`load`, `properties`, `threaddump`, `jcmd`, ...) into its wire form, streams
 * the JVM's text to an fd and summarises the outcome in a struct
 * attach_reply.  Modules never print and never exit: they return 0 or
 * -errno and, where a reason is worth more than an errno, fill `err`.
 */

/* HotSpot's result line for "protocol version not supported" (a v2 request
 * to a JVM that does not offer v2). */
#define ATTACH_HS_NO_PROTOCOL 101

/* Outcome of one command the JVM answered (the call itself returned 0). */
struct attach_reply {
	int vm_code;            /* the JVM's result: HotSpot's first line (0, -1,
	                           101, ...); OpenJ9: 0 for ATTACH_ACK / data,
	                           -1 for ATTACH_ERR */
	bool agent_code_known;  /* `load` only: the agent's Agent_OnAttach result
	                           was reported */
	int agent_code;         /* that result when agent_code_known */
	bool failed;            /* the JVM refused or the command failed, even if
	                           vm_code is 0 (JDK 21+ load errors, OpenJ9 ERR) */
	char message[512];      /* first line(s) of the JVM's error text, if any */
};

/*
 * Verbose step log: one line per step ("socket found after 23 ms").  Modules
 * call attach_step(); the CLI decides where (if anywhere) lines go.
 */
typedef void (*attach_step_fn)(void *ctx, const char *line);

struct attach_log {
	attach_step_fn fn;      /* NULL: steps are dropped */
	void *ctx;
};

/* Format one step line and hand it to log->fn (no-op when log or fn is NULL). */
void attach_step(const struct attach_log *log, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- the clock (clock.c) -------------------------------------------- */

/*
 * The one clock of the attach side: monotonic milliseconds.
 *
 * Every deadline and every "[N ms]" in a verbose line is measured with it,
 * so a wall-clock jump (NTP, a container's clock) never shortens or
 * stretches a timeout.
 */

/* CLOCK_MONOTONIC in milliseconds. */
long clock_ms(void);

/* ---- whole reads and writes, lock waits (fdio.c) -------------------- */

/*
 * The attach side's one way to write all of a buffer, to read a
 * small file, and to wait for a file lock.  Writing and waiting are the
 * shared bottom layer's (common/wholeio.h), which the agent uses too.
 *
 * Helpers return 0 (or a length) or -errno, never print, and leave the fd
 * open: closing is the caller's, who opened it.
 */

/*
 * Wait until fd is ready for events (POLLIN, POLLOUT), restarting after
 * EINTR.  timeout_ms <= 0: no limit.  Returns 0, -ETIMEDOUT, or -errno.
 */
int fdio_wait(int fd, short events, int timeout_ms);

/*
 * Write all len bytes of buf to fd, retrying short writes and EINTR.  A
 * socket is written with send(MSG_NOSIGNAL), so a peer that went away gives
 * -EPIPE instead of a SIGPIPE; any other fd with write().  When fd is
 * non-blocking and full, wait for room (fdio_wait: each wait at most
 * timeout_ms; <= 0: no limit).
 * Returns 0, -ETIMEDOUT, -EIO (a write that took nothing), or -errno
 * (-EPIPE: the reader is gone).  On failure an unknown prefix was written.
 */
int fdio_write_all(int fd, const void *buf, size_t len, int timeout_ms);

/*
 * Read fd until EOF or max bytes (a longer file is cut there, which the
 * parsers tolerate) into a malloc'd buffer *out, NUL-terminated one byte
 * past the returned length.  The caller frees *out.  Returns the length, or
 * -ENOMEM / -errno with *out NULL.
 */
ssize_t fdio_read_all(int fd, size_t max, char **out);

/*
 * Read fd into buf (cap bytes, the caller's) until EOF or cap bytes, each
 * read first waiting for data at most until deadline (a clock_ms() time;
 * 0: no limit), so a pipe's writer cannot hold it longer.  Nothing is
 * added after the data (no NUL).  Returns the length (cap: the buffer
 * filled, EOF maybe not reached), or -ETIMEDOUT / -errno.
 */
ssize_t fdio_read_buf(int fd, void *buf, size_t cap, long deadline);

enum fdio_lock {
	FDIO_FLOCK,             /* flock(LOCK_EX): shared by jsym processes */
	FDIO_RECORD,            /* fcntl(F_SETLK, F_WRLCK) on the whole file:
	                           what the OpenJ9 VMs use (docs/protocols.md B3) */
};

/*
 * Take an exclusive lock of that kind on fd, retrying every 10 ms while
 * another holder has it, until deadline (clock_ms() time).  Returns 0,
 * -ETIMEDOUT when the deadline passed, other -errno (the lock cannot be
 * taken at all).
 */
int fdio_lock_until(int fd, enum fdio_lock kind, long deadline);

/* ---- terminal escaping (termtext.c) --------------------------------- */

/*
 * Text read from a target, made safe for an operator's
 * terminal.
 *
 * Anything jsym read from a target (its release file, cmdline, comm, cgroup,
 * paths in its root, a JVM's reply) may have been written by whoever
 * controls the container, including escape sequences that would recolour,
 * retitle or rewrite the operator's terminal.  Every byte that is not
 * printable is shown as \xNN: C0 controls (ESC is \x1b), DEL, the C1
 * controls U+0080..U+009F (each of their two UTF-8 bytes), the invisible
 * format characters that reorder or hide text (the bidi overrides U+202E
 * and the others of text_utf8_invisible (base_int.h), each of their UTF-8
 * bytes) and bytes that are not part of valid UTF-8.  Printable ASCII and other valid
 * UTF-8 of U+00A0 and above stay as they are.
 *
 * A backslash is kept as it is, so escaping twice changes nothing: modules
 * escape the target text they embed in an error, and the CLI escapes its
 * whole line once more without doubling anything.  The price is that a
 * literal "\x1b" in the target's text looks like an escaped ESC.
 */

/* Keep '\n' and '\t' (for jsym's own multi-line messages); by default they
 * are escaped too, so one field cannot start a forged line. */
#define TERM_KEEP_NL 1u

/*
 * Escape n bytes of s into dst (cap bytes, cap > 0), always NUL-terminated.
 * An escape is never cut in half: when dst is full, the output ends before
 * the first byte that does not fit.  Returns dst.
 */
char *term_escape(char *dst, size_t cap, const char *s, size_t n, unsigned flags);

/* term_escape of the NUL-terminated s, without flags. */
char *term_str(char *dst, size_t cap, const char *s);

/* ---- strict numbers, JSON strings (text.c) -------------------------- */

/*
 * Strict number parsing and JSON string output for the attach side
 * and its command line.
 */

/*
 * Strict decimal: the whole of s is digits (no sign, no blanks, no
 * suffix).  text_parse_int takes min..max (min >= 0), text_parse_pid
 * 1..INT_MAX, text_parse_ms 0..24 h.  Returns 0 with the value stored, or
 * -EINVAL (NULL, garbage, out of range) with *out unchanged.  A count
 * (--jobs) is a text_parse_int, never a text_parse_ms.
 */
int text_parse_int(const char *s, int min, int max, int *out);
int text_parse_pid(const char *s, pid_t *out);
int text_parse_ms(const char *s, int *out);

/*
 * Write s (n bytes, NULs allowed) to f as a JSON string literal, quotes
 * included: '"' and '\\' escaped, \n and \t as such, other control bytes
 * as \u00XX, well-formed UTF-8 as is, and every byte that does not start
 * well-formed UTF-8 (overlong forms, surrogates, above U+10FFFF) as
 * \ufffd, so the output is valid JSON whatever the input.
 */
void text_json_str(FILE *f, const char *s, size_t n);

/*
 * Make the malloc'd *buf (of *cap bytes, 0 for none yet) hold need bytes:
 * its capacity doubled from `first` until it does, at most 2 GiB.  0, or
 * -ENOMEM with *buf and *cap as they were.
 */
int text_reserve(char **buf, size_t *cap, size_t need, size_t first);

/* ---- the timeouts of an attach -------------------------------------- */

/*
 * The two timeouts of an attach, defined once, with their
 * defaults.  Every field, option and document that names one means this,
 * in these words (run.h's run_request, hotspot's hs_opts, openj9's
 * openj9_target, `--timeout` and `--read-timeout` in `jsym --help`,
 * docs/jsym.1 and docs/cli.md):
 *
 * timeout_ms, --timeout MS: the longest wait for the attach socket and
 *   the connection (OpenJ9: for each step of the handshake: its locks,
 *   semaphore, connect-back and greeting).  > 0.
 *
 * read_timeout_ms, --read-timeout MS: the deadline for the whole reply,
 *   from the request sent to its last byte, however it trickles in
 *   (OpenJ9's reply is one message).  0: no limit.
 */

#define ATTACH_TIMEOUT_MS 10000
#define ATTACH_READ_TIMEOUT_MS 30000

/* The defaults as text, for the help texts. */
#define ATTACH_STR_(x) #x
#define ATTACH_STR(x) ATTACH_STR_(x)

/* ---- the watch (watch.c) -------------------------------------------- */

/*
 * A command that touches a target's files runs in a child that this
 * process watches (watch_run): a read under a target's root can block in
 * the kernel for ever, where the confined open cannot see it coming (a
 * FUSE directory as an overlay's lower layer), and only another process
 * can stop waiting.  The child names each step and that step's limit
 * (watch_step); when a step overruns, the watcher kills the child and the
 * command ends, saying which step did not end.
 */
#define WATCH_WHAT_MAX 96
#define WATCH_FIRST_MS 10000    /* the limit until the first watch_step */
#define WATCH_GRACE_MS 5000     /* to end after a signal passed on */

struct watch_end {
	pid_t child;
	int status;             /* the command's exit status: body's return,
	                           128 + N after signal N; -1 when overran
	                           without a signal, or lost */
	int died_of;            /* the signal that ended it, 0: none (or
	                           overran) */
	int signo;              /* the first signal passed on to it, 0: none */
	bool overran;           /* killed: `what` did not end in limit_ms */
	bool output_held;       /* ...while the reader of jsym's output took
	                           nothing (a relay full) */
	bool left;              /* killed, but not dead WATCH_REAP_MS later:
	                           stuck in the kernel, left behind */
	bool lost;              /* reaped by someone else (no status) */
	int limit_ms;           /* the last step's limit, 0: none */
	char what[WATCH_WHAT_MAX];      /* the last step's name, "" before the
	                                   first */
};

/*
 * Run body(ctx) in a forked child, its return value its exit status, and
 * watch it: its first step has WATCH_FIRST_MS, each watch_step starts the
 * next (a stop, Ctrl-Z, does not count).  The signals of
 * watch_stop_signals sent to this process are passed on, and the child
 * then has WATCH_GRACE_MS, unless the caller ignores that signal.  0 with *end filled when the child ended or was given up
 * on; -errno when no child could be made.
 */
int watch_run(int (*body)(void *ctx), void *ctx, struct watch_end *end);

/*
 * The signals that ask jsym to stop: SIGINT and SIGTERM, sent on purpose
 * even to a script's background job, which ignores SIGINT (`kill -INT
 * $!`), and SIGHUP unless the caller ignores it (nohup): a blocked signal
 * is queued even when ignored, so an ignored SIGHUP must not be blocked.
 */
void watch_stop_signals(sigset_t *set);

/*
 * In a watched child: from now on, a step called what (jsym's own text,
 * at most WATCH_WHAT_MAX - 1 bytes kept; NULL: the last name) that must
 * end within limit_ms (<= 0: no limit, e.g. while waiting on stdin).  Two
 * stores in a shared page: cheap enough for a step per address.  Nothing
 * when this process is not the watched child itself.
 */
void watch_step(int limit_ms, const char *what);

/* The longest one attach exchange may take: the socket wait, the probe
 * and the helper each within timeout_ms, the reply within
 * read_timeout_ms, and slack; 0 (no limit) when the reply has none. */
int watch_attach_limit_ms(int timeout_ms, int read_timeout_ms);

#endif
