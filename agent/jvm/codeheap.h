/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codeheap.h - where a compiled method's code ends, read in-process from
 * HotSpot's code heap through its own vmStructs tables.
 *
 * A method's range in the map is code_begin..code_end: its instructions and
 * its stubs (exception and deopt handlers), as `jcmd Compiler.codelist` and
 * `Compiler.perfmap` give it and `jsym map` reads it; a sample in a stub
 * belongs to the method (docs/perf-map.md).  JVMTI's CompiledMethodLoad
 * reports that range on JDK 17 and later, but only the instructions on JDK
 * 8 and 11 (insts_size: 24 to 216 bytes short).  There the agent finds the
 * nmethod that starts at the reported address and takes its code_end.
 *
 * Nothing is trusted: the tables come from the libjvm.so the agent runs in
 * (its exported gHotSpotVM* symbols, found with dl_iterate_phdr: no libdl),
 * read by `jsym map`'s own reader (agent/format's vm_tables.h) through a
 * struct vm_mem over the agent's own memory;
 * every read stays inside a code heap's committed range; the nmethod found
 * must begin its code exactly at the reported address, and end it after the
 * reported size, inside the heap.  Anything else keeps JVMTI's size.
 */
#ifndef JSYM_CODEHEAP_H
#define JSYM_CODEHEAP_H

#include <stdint.h>

#include "vm_mem.h"
#include "vm_tables.h"

/* The size to record for the code JVMTI reported at code_begin with
 * jvmti_size bytes, on a JVM of JVMTI major version jdk_major (1 for JDK
 * 8): code_end - code_begin where the heap tells it, else jvmti_size.
 * Thread-safe; the tables are looked up once, at the first call. */
uint64_t codeheap_code_size(uint64_t code_begin, uint64_t jvmti_size, int jdk_major);

/* A blob's code and frame, for the unwinding data (frameshape.h). */
struct codeheap_blob {
	uint64_t code_begin, code_end;
	uint32_t frame_words;     /* CodeBlob::_frame_size (words, return
	                             address and saved fp included), 0: none */
	int64_t frame_complete;   /* _frame_complete_offset from code_begin,
	                             -1: none */
	uint64_t limit;           /* no other blob's code starts below this
	                             (this block's end, the next block's header
	                             and a CodeBlob's own), 0: not known */
};

/* The blob whose code holds addr, read from the heap now.  0, or -ENOENT
 * (not in a code heap, the tables or the frame's fields are missing).
 * Thread-safe, like codeheap_code_size. */
int codeheap_blob_at(uint64_t addr, struct codeheap_blob *b);

/* ---- for the unit tests: the same lookups over given tables ---- */

/* Take the layout from HotSpot's vmStructs tables read through m with
 * vm_tables_read (sym: the exported symbols' addresses, vm_tables.h): the
 * agent reads its own JVM's, the tests fake ones.  0, -ENOENT (a table
 * lacks an entry), or vm_tables_read's -errno. */
int codeheap_setup(struct vm_mem *m, const uint64_t sym[VS_COUNT]);

/* code_end - code_begin of the nmethod whose code begins at code_begin,
 * or 0 (not found, or not plausible against min_size). */
uint64_t codeheap_lookup(uint64_t code_begin, uint64_t min_size);

/* codeheap_blob_at over the tables codeheap_setup took. */
int codeheap_blob_lookup(uint64_t addr, struct codeheap_blob *b);

#endif
