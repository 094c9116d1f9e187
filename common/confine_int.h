/* SPDX-License-Identifier: Apache-2.0 */
/*
 * confine_int.h - the inside of common/confine: one walk's state and the
 * steps that tell a file system's kind (confine_mnt.c) for the walk
 * (confine.c).  Not for any other file.
 */
#ifndef JSYM_CONFINE_INT_H
#define JSYM_CONFINE_INT_H

#include <stdbool.h>
#include <sys/types.h>

#include "confine.h"

#define CF_PROC_MAGIC 0x9fa0            /* linux/magic.h PROC_SUPER_MAGIC */

/* One confine_open: where mounts are looked up, what was learnt. */
struct walk {
	int mnt_fd;             /* /proc/PID whose mountinfo is read, -1: ours */
	int self;               /* /proc/self (fd/, fdinfo/) */
	char *mi;               /* mountinfo text, NUL-terminated */
	int mi_reads;
	struct {                /* types found elsewhere (see other_mountinfo) */
		long id;
		char type[64];
	} seen[8];
	int nseen;
	bool keep_link;         /* a symlink as the last component, under
	                           nofollow, is the end (confine_stat's lstat) */
	const char *path;       /* for messages */
	struct err_text *e;
};


/* fd lies on procfs. */
bool cf_on_procfs(int fd);

/* An O_PATH dirfd of this process's /proc/<pid> (the pin, or a new one
 * that *own says the caller closes); -errno, -EPERM when /proc is not
 * procfs. */
int cf_self_dir(bool *own);

/* A procfs file under dirfd read whole, at most max bytes: its length
 * (*out to free) or -errno. */
ssize_t cf_read_proc(int dirfd, const char *name, size_t max, char **out);

/* 0 when fd lies on a file system that stores files; -EREMOTE (it may
 * stall), -EPERM (a kernel interface), -ESTALE (an unknown mount) or
 * -errno, with w->e set. */
int cf_check_mount(struct walk *w, int fd, const char *what);

#endif
