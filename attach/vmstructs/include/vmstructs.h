/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vmstructs.h - the entry of attach/vmstructs, the one header of the folder
 * that the layers above see (attach/vmstructs/include/): `jsym map`, a
 * HotSpot JVM's code cache read from outside (docs/map.md).
 *
 * A session holds what one JVM's reading needs (its memory, its vmStructs
 * tables, the layouts taken from them, the name cache, and --follow's two
 * snapshots and journal).  Nothing here prints: the numbers come back in
 * struct vm_map_stats and struct vm_follow_stats, the CLI says them.
 */
#ifndef JSYM_VMSTRUCTS_H
#define JSYM_VMSTRUCTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "target.h"

struct vm_session;

/* What one snapshot found and where its map went. */
struct vm_map_stats {
	size_t entries, java;           /* stubs: entries - java */
	unsigned heaps, dead, dropped, resyncs;
	uint64_t blocks;
	bool partial;
	const char *capped;             /* NULL, or the cap that ended the walk */
	char cap_value[48];             /* that cap's value, as text */
	char where[192];                /* the map's path as the JVM names it */
	long ms;                        /* the snapshot's time */
	uint64_t reads, bytes;          /* the reads of the JVM's memory */
};

/* --follow: the live set and the journal after the last step. */
struct vm_follow_stats {
	size_t entries, java, known;
	unsigned carried, dropped;
	size_t added, removed;          /* of the last step */
	uint64_t scans, loads, stubs, unloads;
	char journal[192];              /* its path as the JVM names it */
	char where[192];                /* the map's */
};

/*
 * Open a session on t's JVM: t must be a HotSpot JVM whose maps and root
 * jsym can read, and (writes) not one where the jsym agent keeps the map.
 * Reads libjvm.so's symbols and the vmStructs tables.  *out is set either
 * way (NULL when out of memory) and goes to vmstructs_close().  0 or -errno
 * with e set.
 */
int vmstructs_open(const struct target *t, bool writes, struct vm_session **out,
		   struct err_text *e);
void vmstructs_close(struct vm_session *s);

/* --tables: every field, type and constant of the tables, one a line, the
 * names escaped for a terminal; *text is malloc'd.  Its length, or -ENOMEM. */
long vmstructs_tables_text(const struct vm_session *s, char **text);

/*
 * One snapshot rendered as a perf map: written to out, or (out NULL) into
 * the JVM's container as /tmp/perf-<nspid>.map.  0 or -errno with e set.
 */
int vmstructs_map(struct vm_session *s, FILE *out, struct vm_map_stats *st,
		  struct err_text *e);

/*
 * `jsym attach --fallback=map`: open, map into the container, close.
 * where[cap] gets the map's path, *java its Java methods.  0 or -errno
 * with e set.
 */
int vmstructs_map_once(const struct target *t, char *where, size_t cap, size_t *java,
		       struct err_text *e);

/*
 * --follow (vm_follow.h): the first scan, the journal created (`writer` its
 * version text) and the map written.  Then each step rescans and journals
 * the difference; vmstructs_follow_write writes the map again (after a
 * step that changed it); vmstructs_follow_stop closes the journal.  Each
 * returns 0 or -errno with e set and fills st.
 */
int vmstructs_follow_start(struct vm_session *s, const char *writer,
			   struct vm_follow_stats *st, struct err_text *e);
int vmstructs_follow_step(struct vm_session *s, struct vm_follow_stats *st,
			  struct err_text *e);
int vmstructs_follow_write(struct vm_session *s, struct vm_follow_stats *st,
			   struct err_text *e);
int vmstructs_follow_stop(struct vm_session *s, struct vm_follow_stats *st,
			  struct err_text *e);

#endif
