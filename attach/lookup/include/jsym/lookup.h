/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jsym/lookup.h - resolve JIT code addresses of a JVM to Java frames, from
 * the files jsym's agent writes (docs/lookup.md, docs/journal-format.md).
 *
 * Library: libjsym-lookup.so.1 (symbol version JSYM_LOOKUP_1.0) or
 * libjsym-lookup.a; `pkg-config --cflags --libs jsym-lookup`.
 *
 *   jsym_lookup *lk;
 *   struct jsym_frame f[16];
 *   int n;
 *
 *   if (jsym_lookup_open_pid(&lk, pid, NULL) < 0) ...
 *   n = jsym_lookup_resolve(lk, addr, f, 16);   // f[0] innermost
 *   for (int i = 0; i < n && i < 16; i++)
 *           printf("%s.%s (%s:%d)\n", f[i].class_name, f[i].method, f[i].file, f[i].line);
 *   jsym_lookup_refresh(lk);                    // now and then: what the JVM compiled since
 *   jsym_lookup_close(lk);
 *
 * Conventions:
 *   - Every function that can fail returns a negative errno value (-ENOENT,
 *     -EACCES, -EPROTO, ...); on an open handle jsym_lookup_error() then has
 *     a one-line reason (a failed open leaves *out NULL: the errno is all).
 *   - A jsym_lookup is opaque and not thread-safe: one thread at a time per
 *     handle (open one handle per thread to resolve in parallel).
 *   - Strings in a struct jsym_frame are NUL-terminated, "" when unknown,
 *     owned by the handle, and valid until the next call on that handle
 *     other than jsym_lookup_resolve / jsym_lookup_error.
 *   - Times are CLOCK_MONOTONIC nanoseconds: the clock of the journal and
 *     of `perf record -k 1`.
 *   - What a handle holds is capped (docs/lookup.md, "Limits"): 1,048,576
 *     live code ranges, 256 MiB of names, 256 MiB of inline-stack tables.
 *     A file past a cap is refused with -E2BIG (never read in part): open
 *     fails, or refresh fails, forgets what the handle held (resolve then
 *     answers 0) and keeps failing until the file is started over.  A read
 *     has no deadline of its own: only regular files on local file systems
 *     are opened (no FIFO, device or FUSE file), so it ends at the end of
 *     the file, in a time that grows with the file's size.
 *
 * ABI: version 1.0.  struct jsym_frame and every function here keep their
 * layout and meaning for all 1.x; later additions get new symbol versions.
 */
#ifndef JSYM_LOOKUP_PUBLIC_H
#define JSYM_LOOKUP_PUBLIC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JSYM_LOOKUP_VERSION_MAJOR 1
#define JSYM_LOOKUP_VERSION_MINOR 0

typedef struct jsym_lookup jsym_lookup;

enum jsym_frame_kind {
	JSYM_FRAME_METHOD = 1,   /* a compiled Java method (the outermost frame of a stack) */
	JSYM_FRAME_INLINED = 2,  /* a method inlined into the one below it */
	JSYM_FRAME_STUB = 3,     /* interpreter, stubs, adapters: name only */
	JSYM_FRAME_MAP = 4,      /* a perf-map line: name only */
};

struct jsym_frame {
	const char *name;        /* display name: "long Busy.heavyCompute(int)", a stub's name */
	const char *class_name;  /* "java.util.HashMap$Node" */
	const char *method;      /* "resize", "<init>" */
	const char *signature;   /* JVM descriptor "(I)J" */
	const char *file;        /* source file "HashMap.java" (agent option `lines`) */
	uint64_t start, size;    /* code range: the compiled method's, the stub's, or for an
	                            inlined frame the range of its code holding the address */
	int32_t line;            /* source line (agent option `lines`), 0 when unknown */
	int32_t bci;             /* bytecode index, -1 when unknown */
	uint32_t kind;           /* enum jsym_frame_kind */
	uint32_t reserved;       /* 0 */
};

/*
 * Open the symbol files of the JVM with host pid `pid`: DIR/jsym-NSPID.journal
 * inside the JVM's own filesystem (/proc/PID/root; NSPID is the pid the JVM
 * sees in its own pid namespace), else DIR/perf-NSPID.map.  dir NULL means
 * "/tmp" (the agent's default dir=).  Paths resolve inside that root and
 * only regular files are read.  Needs the JVM's uid or CAP_SYS_PTRACE (the
 * kernel's rule for /proc/PID/root).  Nothing is read until the first
 * jsym_lookup_refresh, which open does once.
 * Returns 0 and *out, or -ENOENT (no files), -EACCES/-EPERM, -ESRCH, -ENOMEM,
 * -EPROTO (not a journal), -E2BIG (past a cap, see Conventions), ...
 */
int jsym_lookup_open_pid(jsym_lookup **out, int pid, const char *dir);

/*
 * Open a journal (`journal`) or, when it is NULL, a perf map (`map`), e.g.
 * copied off a machine.  Reads it once.  Same returns as jsym_lookup_open_pid.
 */
int jsym_lookup_open_files(jsym_lookup **out, const char *journal, const char *map);

/*
 * Follow the file: read and apply what was appended since the last call.
 * A journal started over by a new JVM with the same pid is read again from
 * its start.  Returns the number of records or lines applied (>= 0), or
 * -errno (-EBADMSG: corruption; what was read before it stays usable;
 * -E2BIG: past a cap, nothing read stays, see Conventions).
 */
long jsym_lookup_refresh(jsym_lookup *lk);

/*
 * Resolve as of time `ns` (journals only): later records are not applied.
 * 0 means "everything" (the default).  Going back in time re-reads the
 * journal from its start, so resolve samples in time order.  Needed after
 * the JVM exited: its agent then closes every range.  0, -EINVAL for a
 * perf map, or the errors of jsym_lookup_refresh.
 */
int jsym_lookup_set_time(jsym_lookup *lk, uint64_t ns);

/*
 * The Java stack at `addr`, innermost frame first: inlined frames (when the
 * agent ran with `unfold`), then the compiled method, stub or map line that
 * holds the address.  Fills frames[0 .. min(n, max)) and returns n, the
 * number of frames of the whole stack (>= 1); 0 when no live code holds
 * addr; -ENOMEM.  frames may be NULL when max is 0.  Fast: a radix index
 * over the code ranges, no allocation in the steady state.
 */
int jsym_lookup_resolve(jsym_lookup *lk, uint64_t addr, struct jsym_frame *frames, size_t max);

/* jsym_lookup_set_time(lk, ns) then jsym_lookup_resolve(...). */
int jsym_lookup_resolve_at(jsym_lookup *lk, uint64_t addr, uint64_t ns,
			   struct jsym_frame *frames, size_t max);

/* The reason of the last failure on lk, or "" (never NULL; lk NULL gives ""). */
const char *jsym_lookup_error(const jsym_lookup *lk);

/* The library's version, "1.0". */
const char *jsym_lookup_version(void);

/* Close the files and free everything.  NULL is fine. */
void jsym_lookup_close(jsym_lookup *lk);

#ifdef __cplusplus
}
#endif

#endif
