/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jitlines.h - the JIT_CODE_DEBUG_INFO of one compiled method (jitdump.h):
 * which source line each part of its code is, from the inline chains that
 * unfold.h builds and the line tables that the `lines` option reads for the
 * FRAMES records (frames.h), so the two always agree.
 *
 * One entry per range of code whose innermost frame has the same file and
 * line, at the range's first byte.  The innermost frame is the one perf's
 * own libperf-jvmti reports (methods[0] of each PCStackInfo, the leaf of the
 * inline stack): `perf annotate` and `perf report --sort srcline` show the
 * line that is executing, not the call site in the compiled method.  Where
 * it differs from libperf-jvmti:
 *   - an entry starts where a descriptor's range starts, not at its pc:
 *     HotSpot's descriptor at pc_i covers (pc_{i-1}, pc_i] (unfold.h), and
 *     a DWARF row covers code from its address on, so an entry at pc_i
 *     would give the instructions before a call the previous line;
 *   - a frame without a line (no line table: a native method, an
 *     intrinsic) gives way to the nearest caller that has one;
 *   - a last entry at the end of the last range repeats its line, because
 *     perf ends the DWARF sequence at the last entry's address (the last
 *     row would cover nothing otherwise).
 * The file name is the class's package as a directory and its SourceFile
 * attribute ("java/util/HashMap.java"), like libperf-jvmti: the path under
 * a source root, for perf annotate's source view.
 *
 * Pure: no JVMTI, no lock.
 */
#ifndef JSYM_JITLINES_H
#define JSYM_JITLINES_H

#include <stdint.h>

#include "bbuf.h"
#include "frames.h"
#include "unfold.h"

/*
 * Append the JIT_CODE_DEBUG_INFO of the code at code_start to b.  m[] has
 * u->n_methods entries, with their files and line tables (frames.h).
 * Returns the number of entries written, 0 when there is nothing to say
 * (no ranges, or no frame has a line: nothing appended), -ENOMEM or
 * -ENOBUFS (b unchanged).
 */
int jitlines_encode(struct bbuf *b, uint64_t ts, uint64_t code_start,
		    const struct unfold_info *u, const struct frames_method *m);

/* "pkg/sub/File.java" from the external class name "pkg.sub.Cls$Inner" and
 * the source file "File.java", into out[cap] (cut to fit).  An empty file
 * gives "" (unknown). */
void jitlines_path(const char *cls, const char *file, char *out, size_t cap);

#endif
