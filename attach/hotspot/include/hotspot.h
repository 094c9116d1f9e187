/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hotspot.h - the HotSpot attach client (trigger file, SIGQUIT, Unix socket,
 * protocol v1 and v2).  Facts: docs/protocols.md section A.
 *
 * Sequence of hotspot_exec():
 *   open the JVM's /tmp inside its root (root dirfd, never a /proc path)
 *   socket /tmp/.java_pid<nspid> present  -> connect, no signal
 *   else  create .attach_pid<nspid> in the JVM's cwd (else its /tmp),
 *         SIGQUIT through the pidfd (only when hotspot_may_signal() agrees),
 *         wait for the socket (inotify + fallback poll, bounded, ends early
 *         when the JVM exits), remove the trigger on every path out
 *   protocol: v1 when the request fits and the JVM is older than 24 or of
 *   unknown version; else ask `getversion` once and use v2 when offered
 *   connect (bounded), send, read the result line and the body (bounded
 *   inactivity), stream the body to out_fd (failure text to err_fd)
 *
 * HOW TO CALL: in a forked single-threaded child (the function fchdir()s into
 * the JVM's /tmp so the socket address is always short), after ns_enter()
 * and after creds_become() to the JVM's euid/egid (the trigger's owner and
 * the socket peer credentials must be the JVM's user, docs/protocols.md A2/A4/C5).
 * SIGPIPE needs no handling: sends use MSG_NOSIGNAL; a closed out_fd ends
 * the stream quietly.  While the trigger file exists, SIGINT/SIGTERM/SIGHUP
 * handlers remove it and _exit(128+N) (the child is disposable).
 */
#ifndef JSYM_HOTSPOT_H
#define JSYM_HOTSPOT_H

#include <stddef.h>

#include "base.h"

struct target;

/* How hotspot_exec waits, and where the JVM's reply goes. */
struct hs_opts {
	int timeout_ms;         /* socket wait and connect (> 0) */
	int read_timeout_ms;    /* longest the whole reply may take, from the
	                           request sent to its last byte; <= 0: none */
	int out_fd;             /* the JVM's output (-1: discard), escaped
	                           when it is a terminal, else as is */
	int err_fd;             /* the JVM's text when the command failed,
	                           always escaped */
	const struct attach_log *log;
	const char *dir;        /* the socket's directory as the JVM names it,
	                           for messages (NULL: /tmp); hotspot_exec sets
	                           it, the caller leaves it NULL */
	int dir_fd;             /* that directory, an O_PATH fd found by the
	                           confined open: hotspot_exec sets it (the
	                           caller's value is not used) */
};

struct hs_request {
	const char *name;       /* load, properties, jcmd, ... */
	const char *const *args;
	int nargs;
	int protocol;           /* 0 auto, 1 force v1, 2 force v2 */
};

/*
 * Run one command.  Returns 0 when the JVM answered (look at *r: vm_code,
 * failed, agent_code), or -errno with e set: -ETIMEDOUT (no socket / no
 * connect / no reply in time), -ESRCH (the JVM exited), -EPERM (not
 * allowed to signal, or a missing capability), -EMSGSIZE / -ENAMETOOLONG /
 * -E2BIG (request over the protocol limits), -ECONNRESET (closed without a
 * reply: wrong peer credentials or a refused request), -EPROTO (garbled
 * reply), other -errno.
 */
int hotspot_exec(const struct target *t, const struct hs_request *rq,
		 const struct hs_opts *o, struct attach_reply *r,
		 struct err_text *e);


#endif
