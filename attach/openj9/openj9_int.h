/* SPDX-License-Identifier: Apache-2.0 */
/*
 * openj9_int.h - the inside of attach/openj9: the steps openj9_exec() is
 * made of, shared by the folder's files and exported to the unit tests and
 * the fuzzer, never to the layers above (they see openj9.h only).
 */
#ifndef JSYM_OPENJ9_INT_H
#define JSYM_OPENJ9_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/ipc.h>
#include <sys/types.h>

#include "openj9.h"

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
/* An openj9_target's /proc/<pid> for confine_open, or -1: ours. */
#define MNT(t) ((t)->mnt_fd > 0 ? (t)->mnt_fd : -1)

int openj9_common_dir(const struct openj9_target *t, char *path, size_t pathlen,
		      struct err_text *e);
/* Common-dir entries that are not VMs (and not counted for posts, B6). */
bool openj9_skip_entry(const char *name);
/* Find the VM dir advertising nspid in the open common dir (see
 * openj9_find_vm; mnt_fd as openj9_target's).  Returns 0, -ENOENT, -ENAMETOOLONG, -errno. */
int openj9_find_in_dir(int mnt_fd, int common, pid_t nspid, char *vmid, size_t vmid_len);
/* The SysV key of the common dir's _notifier: ftok(path, 0xa1) computed
 * from an fstat of the file opened in the target's root (confine_open;
 * mnt_fd as openj9_target's).  0 or -errno. */
int openj9_notifier_key(int mnt_fd, int common, key_t *key);
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

#endif
