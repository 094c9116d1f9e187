/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_codecache.h - a fake HotSpot code cache large enough for jsym
 * map's read-ahead to run over several batches and heaps: HEAPS code
 * heaps of BLOCKS two-segment nmethods each, naming METHODS methods of
 * CLASSES classes (block b of heap h names method (7 b + h) % METHODS, so
 * the heaps share methods as C1's and C2's do; CodeCache::_heaps lists
 * them from the highest address down, as JDK 17 lists its own).  Method
 * m of class m % CLASSES is "void pkg.C<class>.m<m>(int)".  The layout is JDK 25's
 * shapes as check_vmstructs' small fake JVM has them.  Read-only once
 * built: any number of threads may read it.
 */
#ifndef JSYM_CHECK_CODECACHE_H
#define JSYM_CHECK_CODECACHE_H

#include <stddef.h>
#include <stdint.h>

#include "vm_jvm.h"
#include "vm_layout.h"
#include "vm_scan.h"

#define CODECACHE_HEAPS 3
#define CODECACHE_BLOCKS 1500
#define CODECACHE_METHODS 4000
#define CODECACHE_CLASSES 40

/* JDK 25's shapes, CodeCache::_heaps at heaps_addr: the layout of this
 * fake and of check_vmstructs' small one. */
void codecache_layout(struct vm_layout *l, uint64_t heaps_addr);

/* Build the fake (once; later calls keep it) and its layout into l. */
void codecache_build(struct vm_layout *l);

/* Microseconds a batched read of the methods' metadata takes (0 unless
 * set while no reader runs): the namer then lags behind the walk,
 * which waits for it, and does what it does meanwhile. */
extern unsigned codecache_names_delay_us;

/* vm_read_fn over the fake (ctx unused). */
int codecache_read(void *ctx, uint64_t addr, void *buf, size_t n);

/* The display name of block b of heap h, into out[cap]. */
void codecache_name(int h, int b, char *out, size_t cap);

/* j set up to read the fake: its page cache, and the namer thread when
 * `threaded`.  0 or -ENOMEM. */
int codecache_jvm(struct vm_jvm *j, bool threaded);

/* List these heaps (0 to CODECACHE_HEAPS - 1, a heap any number of times,
 * up to 8) in CodeCache::_heaps, while no reader runs; codecache_build
 * lists them from the highest address down. */
void codecache_list_heaps(const int *heap, int n);

/* vm_snapshot_take of j into s with an idle hook that renders the settled
 * entries as `jsym map` does (vm_map_render_more, then
 * vm_map_text_finish).  0 when the snapshot was taken and that map equals
 * the map rendered at the end in one go; *idles gets the hook's calls.
 * Else -1, with why on stderr. */
int codecache_take_rendering(struct vm_jvm *j, const struct vm_layout *l,
			     struct vm_snapshot *s, int *idles);

#endif
