/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jitdump.h - the jitdump file Linux perf reads (`perf inject --jit`), as
 * tools/perf/Documentation/jitdump-specification.txt describes it: a 40-byte
 * header, then records, all in the host's byte order (perf tells the order
 * by the magic).  The agent writes one JIT_CODE_LOAD per compiled method
 * or stub, with a copy of its code bytes taken while the code is live (in
 * the JVMTI callback), preceded, with the `lines` option, by the
 * JIT_CODE_DEBUG_INFO of the same code (its source lines; perf inject
 * attaches a DEBUG_INFO to the CODE_LOAD that follows it, so nothing may
 * come between them).  Timestamps are CLOCK_MONOTONIC, so record with
 * `perf record -k mono`.  With the unwind option each CODE_LOAD also
 * follows a JIT_CODE_UNWINDING_INFO (jitunwind.h), so that perf's DWARF
 * unwinder walks through the code (`perf record --call-graph dwarf`).
 *
 * perf finds the file through an mmap of it: the writer maps its first page
 * PROT_READ|PROT_EXEC, so `perf record` logs an MMAP event naming the file
 * (or synthesizes one from /proc/PID/maps when it starts later), and
 * `perf inject --jit` opens the file by that path.  The basename must be
 * jit-<pid>.dump with the pid the process sees for itself.
 */
#ifndef JSYM_JITDUMP_H
#define JSYM_JITDUMP_H

#include <stddef.h>
#include <stdint.h>

#include "bbuf.h"
#include "errtext.h"

#define JITDUMP_MAGIC 0x4A695444u   /* "JiTD" as a host-order u32 */
#define JITDUMP_VERSION 1
#define JITDUMP_HEADER_SIZE 40
#define JITDUMP_CODE_LOAD 0
#define JITDUMP_CODE_DEBUG_INFO 2
#define JITDUMP_CODE_CLOSE 3
#define JITDUMP_CODE_UNWINDING_INFO 4
#define JITDUMP_PREFIX_SIZE 16       /* u32 id, u32 total_size, u64 timestamp */
#define JITDUMP_LOAD_FIXED 56        /* prefix + pid, tid, vma, addr, size, index */
#define JITDUMP_DEBUG_FIXED 32       /* prefix + code_addr, nr_entry */
#define JITDUMP_DEBUG_ENTRY 16       /* u64 addr, i32 line, i32 discrim; then the name */
#define JITDUMP_UNWIND_FIXED 40      /* prefix + unwinding, header, mapped sizes */
#define JITDUMP_MAX_UNWIND 4096u     /* tables of one piece of code, at most */
#define JITDUMP_MAX_CODE (16u << 20) /* larger blobs are not dumped */
#define JITDUMP_MAX_RECORD 0x7fffffffu /* total_size is a u32; perf reads it signed */

/* Size of the CODE_LOAD jitdump_put_code_load writes for this name and size. */
size_t jitdump_code_load_size(const char *name, uint64_t size);

/* Append the header.  0, -ENOMEM or -ENOBUFS (buffer unchanged). */
int jitdump_put_header(struct bbuf *b, uint32_t pid, uint64_t ts);

/*
 * Append a JIT_CODE_LOAD for `size` bytes of code at `addr`, which must be
 * readable in this process (they are copied now), named `name` (NUL added).
 * `index` is unique per load (perf names its ELF jitted-<pid>-<index>.so).
 * 0, -EINVAL (size 0 or above JITDUMP_MAX_CODE), -ENOMEM or -ENOBUFS
 * (buffer unchanged).
 */
int jitdump_put_code_load(struct bbuf *b, uint64_t ts, uint32_t pid, uint32_t tid,
			  uint64_t addr, uint64_t size, uint64_t index, const char *name);

/* One entry of a JIT_CODE_DEBUG_INFO: code from `addr` on (up to the next
 * entry's addr) is line `line` of source file `file` (NUL-terminated). */
struct jitdump_line {
	uint64_t addr;
	uint32_t line;
	const char *file;
};

/*
 * Append a JIT_CODE_DEBUG_INFO for the code at `code_addr` with entries
 * e[0..n), in address order (discriminators 0).  Every entry carries its
 * whole file name: the spec's "\xff\0" = "same file as before" shorthand
 * is not used, because perf before 6.5 writes it into the DWARF line table
 * as a file name.  0, -EINVAL (n 0, or the record would pass
 * JITDUMP_MAX_RECORD), -ENOMEM or -ENOBUFS (buffer unchanged).
 */
int jitdump_put_debug_info(struct bbuf *b, uint64_t ts, uint64_t code_addr,
			   const struct jitdump_line *e, size_t n);

/*
 * Append a JIT_CODE_UNWINDING_INFO with `data`: an .eh_frame of
 * eh_frame_size bytes followed by an .eh_frame_hdr of hdr_size
 * (agent/format/ehframe.h), for the CODE_LOAD that follows (perf inject
 * pairs it with the next load, like a DEBUG_INFO).  The mapped size is the
 * data's size rounded up to 8: perf maps that much after the code.  The
 * record is padded to 8 bytes.  0, -EINVAL (a part empty, or past
 * JITDUMP_MAX_UNWIND), -ENOMEM or -ENOBUFS (buffer unchanged).
 */
int jitdump_put_unwinding(struct bbuf *b, uint64_t ts, const void *data, size_t eh_frame_size,
			  size_t hdr_size);

/* Size of the record jitdump_put_unwinding writes for data_len bytes. */
size_t jitdump_unwinding_size(size_t data_len);

/* Append a JIT_CODE_CLOSE (the writer is done).  0 or -errno. */
int jitdump_put_close(struct bbuf *b, uint64_t ts);

/*
 * The open dump: the file, and the executable mapping of its first page
 * that makes perf see it.
 */
struct jitdump_file {
	int fd;          /* -1 when closed */
	void *marker;    /* the PROT_EXEC mapping, or NULL */
	size_t marker_len;
	uint64_t size;   /* bytes in the file */
};

/*
 * Open DIR/jsym-jit-<pid>/jit-<pid>.dump in dirfd (the directory is made
 * 0755 if missing; a symlink or non-directory there is refused), append to
 * it when `append` and it holds a header already, else start it empty, and
 * map it executable.  Returns 0 (f->size 0 = write a header first) or
 * -errno with a reason in why.  A mapping refused (a noexec mount) is not
 * an error of the open: f->marker stays NULL and why says so (check it).
 */
int jitdump_open(struct jitdump_file *f, int dirfd, int pid, int append,
		 struct err_text *why);

/* Unmap and close.  Harmless on a closed file. */
void jitdump_close(struct jitdump_file *f);

#endif
