/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ehframe.h - the unwinding data of one piece of JIT code, as perf wants it
 * in a jitdump's JIT_CODE_UNWINDING_INFO record: an `.eh_frame` (one CIE,
 * one FDE) followed by an `.eh_frame_hdr` with a one-entry search table.
 *
 * `perf inject --jit` writes the code into an ELF file with `.text` first,
 * `.eh_frame` at the code's size rounded up to 8 from the code's start,
 * and `.eh_frame_hdr` right after it; it maps that file over the code, so
 * the tables sit in memory right after the code.  Every address in them is
 * therefore written relative to where it is read (pc-relative FDE
 * addresses, a data-relative header table): the bytes do not depend on
 * where the code lives, only on its size.  perf's libunwind path reads
 * only the header's table and expects 8-byte entries (datarel|sdata4).
 * docs/whole-stacks.md tells the whole story, with the measurements.
 *
 * The caller describes the code as rows, in increasing offset order: from
 * `off` on (until the next row) the canonical frame address (CFA: the
 * caller's stack pointer after the return) is a register plus an offset,
 * or the interpreter's saved sender SP; the return address and the frame
 * pointer are saved below it or still in their registers.  This covers
 * every frame shape HotSpot's JIT code has (agent/jvm/frameshape.h).
 * Pure: no JVM, no I/O; both architectures on any host.
 */
#ifndef JSYM_EHFRAME_H
#define JSYM_EHFRAME_H

#include <stddef.h>
#include <stdint.h>

enum ehframe_arch { EHFRAME_X86_64, EHFRAME_AARCH64 };

enum ehframe_cfa {
	EHFRAME_CFA_SP,       /* CFA = sp + cfa_off */
	EHFRAME_CFA_FP,       /* CFA = fp + cfa_off (rbp / x29) */
	EHFRAME_CFA_INTERP,   /* an interpreter frame: CFA = the sender SP saved
	                         at fp - 8, the return address at fp + 8, the
	                         caller's fp at fp + 0 (cfa_off, ra_saved and
	                         fp_saved are not used) */
};

struct ehframe_row {
	uint32_t off;         /* from the code's start */
	uint8_t cfa;          /* enum ehframe_cfa */
	int32_t cfa_off;      /* bytes, a multiple of 8 */
	uint8_t ra_saved;     /* return address at CFA - 8 (else: in the link
	                         register; always saved on x86_64) */
	uint8_t fp_saved;     /* caller's fp at CFA - 16 (else: unchanged) */
};

#define EHFRAME_MAX_ROWS 64      /* more are refused: -E2BIG */
/* The most ehframe_build writes: CIE 24, FDE head 20, terminator 4,
 * header 20, and at most 21 bytes a row (advance_loc4, then the
 * interpreter's three expressions): 1,412 for EHFRAME_MAX_ROWS. */
#define EHFRAME_MAX_BYTES 1536

/* What ehframe_build wrote: eh_frame_size + hdr_size bytes, in that order. */
struct ehframe_sizes {
	uint32_t eh_frame_size;   /* CIE, FDE and the zero terminator */
	uint32_t hdr_size;        /* the .eh_frame_hdr */
};

/*
 * Encode the tables of `code_size` bytes of code described by rows[0..n)
 * (rows[0].off must be 0) into out[0..cap), for arch, to be placed at the
 * first multiple of 8 from `text_size` bytes after the code's start: the
 * size of the code the jitdump's CODE_LOAD carries, code_size or less (the
 * tables then lie over the code's own last bytes, which the FDE still
 * covers: jitunwind.h).  Returns the bytes written (eh_frame_size +
 * hdr_size, a multiple of 4) with *sz filled, or -EINVAL (no rows, offsets
 * not increasing or past the code, an offset not a multiple of the
 * instruction size, a CFA offset not a multiple of 8, code_size 0 or past
 * 2^30, text_size 0 or past code_size), -E2BIG (too many rows) or -ENOBUFS
 * (cap too small; EHFRAME_MAX_BYTES always suffices).
 */
int ehframe_build(enum ehframe_arch arch, uint64_t code_size, uint64_t text_size,
		  const struct ehframe_row *rows, size_t n, unsigned char *out, size_t cap,
		  struct ehframe_sizes *sz);

/* The arch of the build: EHFRAME_X86_64 or EHFRAME_AARCH64. */
enum ehframe_arch ehframe_host_arch(void);

#endif
