/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vm_write.h - the perf map `jsym map` writes, in the JVM's container.
 *
 * The same file the agent keeps (docs/perf-map.md): /tmp/perf-<nspid>.map
 * as the JVM sees /tmp, "START SIZE name\n" in lowercase hex without 0x,
 * sorted by address, mode 0644, owned by the JVM's uid.  Written the way
 * attach/deploy/place.c writes into a container: /tmp opened from the
 * target's root dirfd (confine_open, common/confine.h) and refused unless it
 * is a real directory, sticky if world-writable; the map written to a new
 * file of an exclusive name (O_CREAT|O_EXCL|O_NOFOLLOW), given to the
 * JVM's uid with fchown, then renamed over the map, so readers see the old
 * map or the new one.  An existing map that is not a regular file, or that
 * belongs to neither the JVM's uid nor root, is refused, never replaced.
 */
#ifndef JSYM_VM_WRITE_H
#define JSYM_VM_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base.h"
#include "target.h"
#include "vm_scan.h"

/*
 * Render s as perf-map text into a malloc'd buffer (*out, the caller
 * frees; NUL-terminated after the length).  Names are escaped with
 * term_escape (control bytes, newlines included, C1 controls and
 * invisible format characters as \xNN), so a map never carries a
 * terminal escape.  The escaped names together stop at the walk's cap on
 * raw names (s->max_name_bytes, else VM_MAX_NAME_BYTES): escaping can make
 * four bytes of one, and the map ends before the first name that would
 * pass it (vm_map_text.capped).  Length or -ENOMEM.
 */
long vm_map_render(const struct vm_snapshot *s, char **out);

/* A map's text rendered a part at a time (zeroed to start): while a
 * snapshot is taken, its settled entries (vm_snapshot.idle). */
struct vm_map_text {
	char *buf;              /* malloc'd, NUL-terminated after len */
	size_t len, cap;
	size_t done;            /* entries rendered (or left out: capped) */
	size_t lines;           /* entries in the text */
	size_t name_bytes;      /* escaped names in the text */
	bool capped;            /* the escaped names reached their cap: the
	                           entries from `lines` on are left out */
};

/* Render s's entries [t->done, upto) onto t.  0 or -ENOMEM (t as it
 * was). */
int vm_map_render_more(const struct vm_snapshot *s, size_t upto, struct vm_map_text *t);

/* The whole map of s, taken, on t: the rest rendered, or all of it again
 * when what was settled did not hold (vm_snapshot.settled 0).  0 or
 * -ENOMEM. */
int vm_map_text_finish(const struct vm_snapshot *s, struct vm_map_text *t);

/*
 * Replace the JVM's map with text[len].  where[cap] gets the path as the
 * JVM names it.  0 or -errno with e set.
 */
int vm_map_write(const struct target *t, const char *text, size_t len, char *where,
		 size_t cap, struct err_text *e);

/*
 * The steps of that replacement, for any file of jsym's in the container's
 * /tmp (the map, the journal of `jsym map --follow`):
 *   vm_out_begin   /tmp checked, what is at /tmp/NAME checked, a new file of
 *                  an exclusive name created in it (o->fd, write-only)
 *                  with the JVM's uid and gid as the file-system ids (a
 *                  directory the JVM's user cannot write is refused,
 *                  -EACCES), mode 0644.  where[cap]
 *                  gets "/tmp/NAME" as the JVM names it.
 *   vm_out_commit  /tmp/NAME checked again, the new file renamed over it.
 *                  o->fd stays open (the caller's to close or keep writing:
 *                  it is the file at /tmp/NAME now).
 *   vm_out_abort   the new file removed, the fds closed.
 * Each returns 0 or -errno with e set; after a failure the new file is gone.
 */
struct vm_out {
	int dirfd, fd;
	int mnt_fd;             /* the target's /proc/<pid> (not ours to close) */
	uid_t uid;
	bool created;           /* tmp exists and is not renamed yet */
	char name[64], tmp[112], where[192];
};

int vm_out_begin(const struct target *t, const char *name, struct vm_out *o, char *where,
		 size_t cap, struct err_text *e);
int vm_out_commit(struct vm_out *o, struct err_text *e);
void vm_out_abort(struct vm_out *o);

#endif
