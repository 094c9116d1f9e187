/* SPDX-License-Identifier: Apache-2.0 */
/*
 * openj9.h - the OpenJ9 attach client (semaphore + replyInfo + TCP).
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
	pid_t nspid;            /* the target's pid in its own pid namespace */
	uid_t uid;              /* the target's effective uid, host view */
	gid_t gid;              /* the target's effective gid, host view */
	const char *tmpdir;     /* the target's $TMPDIR (environ), or NULL */
	const char *attach_dir; /* -Dcom.ibm.tools.attach.directory=..., or NULL */
	int timeout_ms;         /* <= 0: 10000.  Bounds the handshake: locks,
	                           semaphore, accept and the greeting */
	int read_timeout_ms;    /* longest the whole reply may take; <= 0: no
	                           limit (as run.h's and hs_opts') */
	const struct attach_log *log; /* step lines; may be NULL */
};

/*
 * Does an OpenJ9 VM advertise nspid in the target's common dir?
 * Looks at t->attach_dir, else <t->tmpdir>/.com_ibm_tools_attach when that
 * tmpdir exists in the target, else /tmp/.com_ibm_tools_attach, reading each
 * <entry>/attachInfo (processId == nspid; numeric and non-numeric vmIds).
 * When attachInfo is unreadable (mode 0600, other uid) a dir named <nspid>
 * still matches.  Needs no namespace but t->root_fd; takes no lock.
 * Returns 0 and copies the VM's dir name (its vmId) into vmid; -ENOENT when
 * no VM advertises that pid (or no common dir); other -errno with e set.
 * vmid/e may be NULL.
 */
int openj9_find_vm(const struct openj9_target *t, char *vmid, size_t vmid_len,
		   struct err_text *e);

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

/* ---- pure helpers (no I/O), exported for unit tests and fuzzing ---- */

/* One parsed properties file (java.util.Properties.load syntax, ISO-8859-1
 * input; values are decoded to UTF-8).  Bounded: at most OPENJ9_PROPS_MAX
 * entries; later duplicates replace earlier ones. */
#define OPENJ9_PROPS_MAX 256
struct openj9_props {
	size_t n;
	char *key[OPENJ9_PROPS_MAX];
	char *val[OPENJ9_PROPS_MAX];
};

/* Parse len bytes (NULs allowed, treated as data).  Returns 0, -ENOMEM.
 * Free with openj9_props_free(); a failed parse leaves *p empty. */
int openj9_props_parse(struct openj9_props *p, const char *buf, size_t len);
/* Value of key or NULL; the pointer lives as long as *p. */
const char *openj9_props_get(const struct openj9_props *p, const char *key);
void openj9_props_free(struct openj9_props *p);

/* Translate argv (see openj9_exec) to the wire command (no trailing NUL) in
 * out.  *is_load / *is_diag tell how to read the reply.  Returns 0, -EINVAL,
 * -EOPNOTSUPP, -ENAMETOOLONG (e set). */
int openj9_translate(int argc, const char *const argv[], char *out, size_t outlen,
		     bool *is_load, bool *is_diag, struct err_text *e);

/* Map one reply (without its NUL) to *rep and give the text to print in
 * *text and *text_len (malloc'd, caller frees; NULL for load, whose outcome
 * is all in *rep): the decoded string_result of diagnostics, the properties
 * as sent, or for a refused command the JVM's full error text plus '\n'
 * (as HotSpot's error bodies, so the CLI can say "its message is above").
 * Returns 0, -ENOMEM. */
int openj9_map_reply(const char *msg, size_t len, bool is_load, bool is_diag,
		     struct attach_reply *rep, char **text, size_t *text_len);

/* Format the replyInfo body "<key>\n<port>\n" (key: 16 lowercase hex).
 * Returns the length, or -ENOSPC. */
int openj9_reply_info(char *out, size_t outlen, unsigned long long key, int port);

/* Is "ATTACH_CONNECTED <key> " (the first message, NUL stripped) right for
 * this key?  key16 is the 16-char hex key. */
bool openj9_check_connected(const char *msg, size_t len, const char *key16);

/* Framing: a message ends when a read chunk ends in NUL.  Feed each chunk;
 * returns 1 when buf (len bytes so far, including this chunk) is complete,
 * 0 to read more, -EMSGSIZE past max bytes. */
int openj9_frame_done(const char *chunk, size_t chunk_len, size_t total, size_t max);

/* ---- internal, shared by attach/openj9*.c ---- */

#define OPENJ9_MAX_ENTRIES 4096 /* common-dir entries looked at, at most */

/* Open the common dir (O_RDONLY|O_DIRECTORY) and put its target path in
 * path.  Returns fd, -EINVAL for a relative attach_dir, -ENOENT when it is
 * missing, other -errno; e set on failure. */
int openj9_common_dir(const struct openj9_target *t, char *path, size_t pathlen,
		      struct err_text *e);
/* Common-dir entries that are not VMs (and not counted for posts, B6). */
bool openj9_skip_entry(const char *name);
/* Find the VM dir advertising nspid in the open common dir (see
 * openj9_find_vm).  Returns 0, -ENOENT, -ENAMETOOLONG, -errno. */
int openj9_find_in_dir(int common, pid_t nspid, char *vmid, size_t vmid_len);
/* The SysV key of the common dir's _notifier: ftok(path, 0xa1) computed
 * from an fstat of the file opened in the target's root.  0 or -errno. */
int openj9_notifier_key(int common, key_t *key);
/* 16 lowercase hex digits of getrandom (else /dev/urandom).  0 or -errno. */
int openj9_random_key(char key[17]);
/* Listen on 127.0.0.1:0 in the current net ns (lsock[0]) and, best effort,
 * on [::1] at the same port (lsock[1], else -1) for VMs that prefer IPv6.
 * Returns the port or -errno (e set); lsock[0] may need closing. */
int openj9_listen_loopback(int lsock[2], struct err_text *e);
/* Read one message: complete when a read chunk ends in NUL (B7); the whole
 * message within timeout_ms (< 0: no limit).  *buf malloc'd,
 * NUL-terminated, *len without it.  Returns 0, -ETIMEDOUT, -EPIPE (EOF
 * first), -EMSGSIZE (> max), -errno. */
int openj9_read_msg(int fd, size_t max, int timeout_ms, char **buf, size_t *len);
/* Set by openj9_exec's SIGTERM/SIGINT/SIGHUP handler (jsym died: the
 * helper's parent-death signal): every wait then ends at once, as at its
 * deadline, and the session is undone on the usual path (replyInfo removed,
 * posts cancelled) before the helper exits. */
extern volatile sig_atomic_t openj9_cancelled;
/* Milliseconds left until `until` (clock_ms), 0 once cancelled. */
int openj9_left_ms(long until);
/* Send msg plus its NUL (MSG_NOSIGNAL).  0 or -errno. */
int openj9_send_msg(int fd, const char *msg);

#endif
