/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vm_follow.h - `jsym map --follow`: the code cache read again and again,
 * its changes journaled in the agent's format (docs/journal-format.md).
 *
 * Each step rescans the JVM (vm_snapshot_rescan: blobs still the same as
 * in the previous scan keep their journal id and are not named or
 * revalidated again) and compares the two snapshots by blob identity
 * (block, code range, Method*, name): what is gone gets an UNLOAD naming
 * the id of its LOAD or STUB, what is new a LOAD (an nmethod: class,
 * method, descriptor, display name, as the agent writes it) or a STUB.
 * All records of one step carry the time the step's walk began, so a
 * record's time is exact to one interval.  The journal is
 * /tmp/jsym-<nspid>.journal in the JVM's container, created like the map
 * (vm_write.h: confined, exclusive, given to the JVM's uid, renamed into
 * place) and then appended to through the fd jsym keeps.
 *
 * Memory: two snapshots (the code cache's size) and the name cache, which
 * is emptied when it holds far more methods than are compiled.
 */
#ifndef JSYM_VM_FOLLOW_H
#define JSYM_VM_FOLLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "base.h"
#include "journal.h"
#include "target.h"
#include "vm_scan.h"

struct vm_follow {
	struct vm_snapshot cur;         /* live now; every entry has its id */
	struct vm_snapshot next;        /* the step's scan */
	struct journal_writer jw;
	bool open;                      /* jw holds the journal's fd */
	char journal[192];              /* its path as the JVM names it */
	uint64_t scans, loads, stubs, unloads;
	size_t added, removed;          /* of the last step */
};

/*
 * First scan of j; create the journal (header with the JVM's nspid and
 * start time, `writer` as its version text; EPOCH 1, a LOAD or STUB per
 * entry) and write it.  f->cur is then the map to write.  0 or -errno
 * with e set; f must be given to vm_follow_free() either way.
 */
int vm_follow_start(struct vm_follow *f, const struct target *t, struct vm_jvm *j,
		    const struct vm_layout *l, struct vm_name_cache *nc, const char *writer,
		    struct err_text *e);

/*
 * Rescan, journal the difference and write it.  f->added and f->removed
 * say what changed (the map is to be rewritten when either is not 0).  On
 * an error (a scan that failed: the JVM gone, or memory unreadable) f->cur
 * and the journal are left as they were.  0 or -errno with e set.
 */
int vm_follow_step(struct vm_follow *f, struct vm_jvm *j, const struct vm_layout *l,
		   struct vm_name_cache *nc, struct err_text *e);

/*
 * The end, as the agent's: an UNLOAD for every live entry, then EPOCH 3
 * (nothing is known to be live after it); the journal is closed.  0 or
 * -errno with e set.
 */
int vm_follow_stop(struct vm_follow *f, struct err_text *e);

/* Free the snapshots; close the journal if still open (no records). */
void vm_follow_free(struct vm_follow *f);

#endif
