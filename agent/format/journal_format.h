/* SPDX-License-Identifier: Apache-2.0 */
/*
 * journal_format.h - the on-disk layout of jsym's symbol journal, version 1.
 *
 * docs/journal-format.md is the normative description; this header is its
 * machine form, shared by the writer (agent/format/journal.c) and the reader
 * (attach/lookup/journal_read.c).  Every field is little-endian with an explicit
 * width; nothing here is a C struct written to disk, so padding and host
 * byte order never leak into the file.  Use the jf_get / jf_put helpers.
 */
#ifndef JSYM_JOURNAL_FORMAT_H
#define JSYM_JOURNAL_FORMAT_H

#include <stdint.h>
#include <string.h>

/* ---- file header: 64 bytes at offset 0 ---------------------------------- */
#define JF_MAGIC "JSYMJRN1"          /* 8 bytes, no NUL */
#define JF_VERSION 1
#define JF_HEADER_SIZE 64
/* offsets inside the header */
#define JF_H_MAGIC 0                 /* u8[8]  JF_MAGIC */
#define JF_H_VERSION 8               /* u16    JF_VERSION (readers reject larger majors) */
#define JF_H_HEADER_SIZE 10          /* u16    JF_HEADER_SIZE (readers skip to it) */
#define JF_H_FLAGS 12                /* u32    0; reserved */
#define JF_H_PID 16                  /* u32    the JVM's getpid() (its own pid ns) */
#define JF_H_RESERVED 20             /* u32    0 */
#define JF_H_START_REALTIME_NS 24    /* u64    CLOCK_REALTIME when the journal was created */
#define JF_H_PROC_STARTTIME 32       /* u64    field 22 of /proc/self/stat (clock ticks since boot) */
#define JF_H_AGENT_VERSION 40        /* u8[24] agent version text, NUL-padded */
#define JF_AGENT_VERSION_LEN 24

/* ---- records -------------------------------------------------------------- */
/*
 * Every record starts with a 16-byte prefix:
 *   u16 type, u16 flags (0), u32 size (whole record incl. prefix, multiple of 8,
 *   >= 16), u64 timestamp (CLOCK_MONOTONIC ns, the clock `perf record -k 1` uses)
 * A reader that sees fewer than `size` bytes left stops there: the record is
 * still being written (or was torn by a crash) and must be read again later.
 * A reader skips records of unknown type using `size`.
 */
#define JF_PREFIX_SIZE 16
#define JF_ALIGN 8
#define JF_MAX_RECORD (1u << 20)     /* readers treat larger sizes as corruption */

enum jf_type {
	JF_LOAD = 1,    /* a compiled Java method (CompiledMethodLoad) */
	JF_UNLOAD = 2,  /* the end of one earlier LOAD (CompiledMethodUnload) */
	JF_STUB = 3,    /* DynamicCodeGenerated: interpreter, stubs, adapters */
	JF_INLINE = 4,  /* a range of a LOAD's code that belongs to an inlined method */
	JF_EPOCH = 5,   /* the agent (re)started a full dump (GenerateEvents); informational */
	JF_FRAMES = 6,  /* the inline chains (and source lines) of a LOAD's code;
	                   supersedes JF_INLINE, which readers still accept */
};

/*
 * LOAD / INLINE body, after the prefix:
 *   u64 id          LOAD: unique, increasing from 1 within the journal.
 *                   INLINE: the id of the LOAD it belongs to.
 *   u64 code_start  address
 *   u64 code_size   bytes
 *   u16 class_len   class name in external form: "java.util.HashMap"
 *   u16 method_len  method name: "resize", "<init>"
 *   u16 sig_len     JVM signature: "(I)J"
 *   u16 name_len    display name, as jcmd Compiler.perfmap prints it:
 *                   "long Busy.heavyCompute(int)"
 *   then class, method, sig, name bytes (UTF-8, no NULs), zero-padded to 8.
 * For INLINE the u64 at offset 0 is the parent LOAD id; an INLINE ends with
 * its parent's UNLOAD.
 */
#define JF_LOAD_FIXED 32             /* bytes of LOAD/INLINE body before strings */

/*
 * UNLOAD body:
 *   u64 id          the LOAD it ends.  Never "whatever is at code_start":
 *                   the address may already belong to a newer LOAD.
 *   u64 code_start  that LOAD's address (for readers that index by address)
 */
#define JF_UNLOAD_BODY 16

/*
 * STUB body:
 *   u64 id          unique, shares the LOAD id sequence
 *   u64 code_start
 *   u64 code_size
 *   u16 name_len, u16 0, u32 0
 *   then the name ("Interpreter", "StubRoutines (1)", ...), zero-padded to 8.
 * Stubs are never unloaded by JVMTI; a later STUB or LOAD overlapping the
 * same range wins (a reader answers with the entry of the highest id).
 */
#define JF_STUB_FIXED 32

/*
 * EPOCH body:
 *   u64 reason      enum jf_epoch_reason
 */
#define JF_EPOCH_BODY 8

/*
 * FRAMES body (agent option `unfold`; docs/journal-format.md has the bytes):
 *   u64 id          the LOAD it describes; it ends with that LOAD's UNLOAD
 *   u64 code_start  that LOAD's code start; range offsets count from here
 *   u32 n_ranges, u32 n_frames, u32 n_methods, u32 flags (JF_FRAMES_F_*)
 *   then n_ranges ranges of JF_FRAMES_RANGE bytes:
 *     u32 offset, u32 size, u16 depth (>= 1), u16 0
 *   then n_frames frames of JF_FRAMES_FRAME bytes, the ranges' chains in
 *   range order, each chain OUTERMOST first (its first frame is the LOAD's
 *   own method), depth frames per range (n_frames = sum of the depths):
 *     u16 method (index into the method table), u16 bci (0xffff unknown),
 *     u16 line (0 unknown), u16 0
 *   then n_methods methods: u16 class_len, method_len, sig_len, name_len,
 *     file_len, u16 0, then class, method, sig, name (display), source
 *     file bytes; methods follow each other without padding
 *   then zero padding to 8.
 * One LOAD may have several FRAMES records (a big method is split so that
 * each stays under JF_MAX_RECORD); each carries the whole method table.
 */
#define JF_FRAMES_FIXED 32
#define JF_FRAMES_RANGE 12
#define JF_FRAMES_FRAME 8
#define JF_FRAMES_METHOD_FIXED 12
#define JF_FRAMES_NO_BCI 0xffff
#define JF_FRAMES_F_LINES 1u          /* bcis and lines were recorded (option `lines`) */

enum jf_epoch_reason {
	JF_EPOCH_ATTACHED = 1,  /* initial dump after a late attach */
	JF_EPOCH_REFRESH = 2,   /* refresh on a repeated attach */
	JF_EPOCH_STOPPED = 3,   /* agent stopped: no records follow until the
	                           next EPOCH */
	JF_EPOCH_LIVE_SET = 4,  /* first record of a journal the agent started
	                           over (journal_max): the live code follows, as
	                           its original records (ids, times); the file
	                           covers nothing before this record's time */
};

/* ---- little-endian helpers ---------------------------------------------- */
static inline uint16_t jf_get16(const unsigned char *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t jf_get32(const unsigned char *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

static inline uint64_t jf_get64(const unsigned char *p)
{
	return (uint64_t)jf_get32(p) | ((uint64_t)jf_get32(p + 4) << 32);
}

static inline void jf_put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static inline void jf_put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline void jf_put64(unsigned char *p, uint64_t v)
{
	jf_put32(p, (uint32_t)v);
	jf_put32(p + 4, (uint32_t)(v >> 32));
}

/* Round a record size up to JF_ALIGN. */
static inline uint32_t jf_align(uint32_t n)
{
	return (n + (JF_ALIGN - 1)) & ~(uint32_t)(JF_ALIGN - 1);
}

#endif
