/* SPDX-License-Identifier: Apache-2.0 */
/*
 * openj9_emu.h - shared state of the OpenJ9 JVM emulator (test tool).
 *
 * The emulator plays the JVM side of docs/protocols.md B1-B9 from that text
 * alone; it shares no code with the client in attach/openj9*.c so the two
 * can disagree and the tests notice.
 */
#ifndef JSYM_OPENJ9_EMU_H
#define JSYM_OPENJ9_EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct emu {
	const char *vmid;         /* --vmid, else the decimal pid */
	char pidbuf[24];
	const char *display;      /* --display */
	const char *attach_dir;   /* -Dcom.ibm.tools.attach.directory= */
	const char *log_path;     /* --log */
	const char *diag_path;    /* --diag: canned Thread.print text */
	bool never_answer;        /* --never-answer: read replyInfo, never connect */
	int reply_delay_ms;       /* --reply-delay: sleep before answering a command */
	char tmp[1024];           /* tmp dir in use */
	char common[1100];        /* common dir */
	char vmdir[1400];         /* common/vmid */
	char self_dir[1024];      /* dir of our executable (agent search path) */
	int semid;
};

extern struct emu emu;

/* Append one line to the --log file (and nothing else); thread-safe. */
void emu_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* java.util.Properties.store() escaping: append "key=value\n" to a growing
 * buffer (*buf, *len, *cap; malloc'd).  value is UTF-8.  Returns 0 or -1. */
int emu_prop(char **buf, size_t *len, size_t *cap, const char *key, const char *value);
/* The "#<date>" comment line store() writes first. */
int emu_prop_header(char **buf, size_t *len, size_t *cap);

/* Attachment thread: connect to 127.0.0.1:port, send the key, serve
 * commands until ATTACH_DETACH or EOF.  Takes ownership of nothing. */
void emu_attach_start(const char *key, int port);

#endif
