/* SPDX-License-Identifier: Apache-2.0 */
/*
 * openj9.h - the OpenJ9 attach client (semaphore + replyInfo + TCP): the
 * entry of attach/openj9, the one header of the folder that the layers above
 * see (attach/openj9/include/).  The protocol's steps are openj9_int.h.
 *
 * Protocol facts: docs/protocols.md section B.  Sequence of one openj9_exec():
 *
 *   find the common dir  -> read every <dir>/attachInfo, match processId
 *   fcntl-lock _attachlock
 *   listen on 127.0.0.1:0 (the target's net ns)  -> write <vmdir>/replyInfo
 *   fcntl-lock every VM's attachNotificationSync
 *   semop(#0, +1) x N on the _notifier set (the target's ipc ns, never created)
 *   accept (poll, timeout)  -> check "ATTACH_CONNECTED <key> "
 *   delete replyInfo, unlock the sync files, cancel the posts, unlock _attachlock
 *   send the command, read the NUL-terminated reply, send ATTACH_DETACHED
 *
 * Everything the client created or took (replyInfo, locks, posts, sockets) is
 * undone on every way out, including timeouts and errors.
 *
 * HOW TO CALL (contract with the caller in attach/):
 *   - Call from a forked, single-threaded child (fcntl locks are per process
 *     and released when the child exits; nothing here is thread-safe).
 *   - Before the call the child must share or have entered (setns) the
 *     target's IPC namespace (the SysV semaphore lives there) and NETWORK
 *     namespace (the listening socket must be created there: the JVM connects
 *     to its own 127.0.0.1).  Do not enter the mount namespace: all file work
 *     goes through t->root_fd.  The pid namespace is not needed.
 *   - Credentials: unchanged.  As root (CAP_DAC_OVERRIDE + CAP_CHOWN) the
 *     client creates replyInfo and fchowns it to t->uid:t->gid.  As a non-root
 *     user it must already run with euid == t->uid (replyInfo must belong to
 *     the VM's user; the VM dir is 01711).  No seteuid happens here.
 *   - SIGPIPE needs no handling: sends use MSG_NOSIGNAL.
 *   - Nothing is printed; e receives "<what failed>: <cause> (<remedy>)".
 */
#ifndef JSYM_OPENJ9_H
#define JSYM_OPENJ9_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/ipc.h>
#include <sys/types.h>

#include "base.h"

struct openj9_target {
	int root_fd;            /* O_PATH|O_DIRECTORY fd of the target's "/"
	                           (e.g. open("/proc/<pid>/root")); not closed */
	int mnt_fd;             /* O_PATH fd of the target's /proc/<pid>, whose
	                           mountinfo confine_open reads (confine.h);
	                           <= 0: this process's own; not closed */
	pid_t nspid;            /* the target's pid in its own pid namespace */
	uid_t uid;              /* the target's effective uid, host view */
	gid_t gid;              /* the target's effective gid, host view */
	const char *tmpdir;     /* the target's $TMPDIR (environ), or NULL */
	const char *attach_dir; /* -Dcom.ibm.tools.attach.directory=..., or NULL */
	int timeout_ms;         /* each step of the handshake: locks, semaphore,
	                           accept and the greeting (base.h); <= 0:
	                           ATTACH_TIMEOUT_MS */
	int read_timeout_ms;    /* the whole reply's deadline; 0: no limit
	                           (base.h) */
	const struct attach_log *log; /* step lines; may be NULL */
};

/*
 * Run one jattach-style command against the VM advertising t->nspid.
 *   argv[0]          translation
 *   load LIB [ABS [OPTS]]  ATTACH_LOADAGENTPATH(LIB[,OPTS]) if LIB starts with
 *                    '/' or ABS is "true", else ATTACH_LOADAGENT(LIB[,OPTS]);
 *                    a ',' in LIB is refused (OpenJ9 cuts the name there)
 *   properties       ATTACH_GETSYSTEMPROPERTIES (properties text as sent)
 *   agentProperties  ATTACH_GETAGENTPROPERTIES
 *   threaddump       ATTACH_DIAGNOSTICS:Thread.print
 *   jcmd CMD [ARG..] ATTACH_DIAGNOSTICS:CMD,ARG,... (words split at blanks)
 *   dumpheap [FILE]  ATTACH_DIAGNOSTICS:Dump.heap[,FILE]
 *   inspectheap      ATTACH_DIAGNOSTICS:GC.class_histogram
 *   datadump         ATTACH_DIAGNOSTICS:Dump.java
 *   printflag, setflag, others: -EOPNOTSUPP, "not supported by OpenJ9"
 * Streams the reply text to out_fd (diagnostics: the decoded string_result;
 * out_fd < 0: discard) and fills *rep:
 *   ATTACH_ACK                          vm_code 0 (load: agent_code_known, 0)
 *   ATTACH_ERR AgentInitializationExceptionN
 *                                       vm_code -1, agent_code_known, agent_code N,
 *                                       failed false (the agent said no: exit 4)
 *   ATTACH_ERR anything else            vm_code -1, failed, message = text
 *   diagnostics error=true              vm_code -1, failed, message = type: msg
 * Returns 0 when the VM answered (look at *rep), -ENOENT no such VM,
 * -ETIMEDOUT no connect-back within timeout_ms or a reply not complete
 * within read_timeout_ms, -EOPNOTSUPP command not available on OpenJ9, -EINVAL bad
 * arguments, -EPROTO the VM hung up before replying, -EMSGSIZE reply over
 * 64 MiB, other -errno; e is set on every failure.
 */
int openj9_exec(const struct openj9_target *t, int argc, const char *const argv[],
		int out_fd, struct attach_reply *rep, struct err_text *e);

#endif
