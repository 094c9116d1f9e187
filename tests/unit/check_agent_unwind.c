/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_agent_unwind.c - the jitdump's unwinding data: frame shapes found in
 * HotSpot's instructions (agent/jvm/frameshape.c) and the .eh_frame and
 * .eh_frame_hdr encoded from them (agent/format/ehframe.c), for x86_64 and
 * aarch64.  Each case lays the tables out as `perf inject --jit` does (the
 * code at 0x80 of an ELF file, .eh_frame at its size rounded up to 8,
 * .eh_frame_hdr after it) and reads them back with binutils' readelf
 * --debug-dump=frames-interp, so the rows are judged by a decoder that is
 * not ours.  The code bytes are the instructions HotSpot emits (x86_64.ad,
 * c1_MacroAssembler, macroAssembler_aarch64.cpp), assembled by hand.
 */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ehframe.h"
#include "frameshape.h"

extern Suite *agent_unwind_suite(void);

#define TEXT_AT 0x80

static void put(FILE *f, const void *p, size_t n)
{
	ck_assert_uint_eq(fwrite(p, 1, n, f), n);
}

/* An ELF file with .text (code), .eh_frame and .eh_frame_hdr laid out as
 * perf's genelf does, at path. */
static void write_elf(const char *path, uint16_t machine, const unsigned char *code,
		      uint64_t text_size, const unsigned char *tables,
		      const struct ehframe_sizes *sz)
{
	static const char names[] = "\0.text\0.eh_frame\0.eh_frame_hdr\0.shstrtab";
	uint64_t eh_at = TEXT_AT + ((text_size + 7) & ~7ull), hdr_at = eh_at + sz->eh_frame_size;
	uint64_t str_at = hdr_at + sz->hdr_size, sh_at = (str_at + sizeof(names) + 7) & ~7ull;
	Elf64_Ehdr eh = { .e_type = ET_DYN, .e_machine = machine, .e_version = EV_CURRENT,
			  .e_shoff = sh_at, .e_ehsize = sizeof(Elf64_Ehdr),
			  .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = 5, .e_shstrndx = 4 };
	Elf64_Shdr sh[5] = {
		{ 0 },
		{ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
		  .sh_addr = TEXT_AT, .sh_offset = TEXT_AT, .sh_size = text_size, .sh_addralign = 16 },
		{ .sh_name = 7, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC, .sh_addr = eh_at,
		  .sh_offset = eh_at, .sh_size = sz->eh_frame_size, .sh_addralign = 8 },
		{ .sh_name = 17, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC, .sh_addr = hdr_at,
		  .sh_offset = hdr_at, .sh_size = sz->hdr_size, .sh_addralign = 4 },
		{ .sh_name = 31, .sh_type = SHT_STRTAB, .sh_offset = str_at,
		  .sh_size = sizeof(names) },
	};
	unsigned char zero[TEXT_AT] = { 0 };
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	put(f, &eh, sizeof(eh));
	put(f, zero, TEXT_AT - sizeof(eh));
	put(f, code, text_size);
	put(f, zero, eh_at - TEXT_AT - text_size);
	put(f, tables, sz->eh_frame_size + sz->hdr_size);
	put(f, names, sizeof(names));
	put(f, zero, sh_at - str_at - sizeof(names));
	put(f, sh, sizeof(sh));
	ck_assert_int_eq(fclose(f), 0);
}

/* readelf's table of the one FDE: its rows, one "LOC CFA regs..." line
 * each, spaces squeezed, into out ("" for an FDE without instructions). */
static void readelf_rows(const char *path, char *out, size_t cap)
{
	char cmd[512], line[512];
	FILE *p;
	int in_fde = 0;
	size_t n = 0;

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames-interp %s 2>&1", path);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	out[0] = '\0';
	while (fgets(line, sizeof(line), p)) {
		if (strstr(line, " FDE "))
			in_fde = 1;
		else if (strstr(line, "ZERO terminator"))
			break;
		else if (in_fde && (line[0] == '0' || strstr(line, "LOC"))) {
			/* squeeze runs of blanks */
			for (char *s = line; *s && n + 2 < cap; s++) {
				if (*s == ' ' && (n == 0 || out[n - 1] == ' ' || out[n - 1] == '\n'))
					continue;
				out[n++] = *s;
			}
			out[n] = '\0';
		} else if (in_fde && line[0] == '\n' && n) {
			break;
		}
	}
	pclose(p);
}

/* Encode rows for code and read them back: readelf's rows. */
static void roundtrip(enum ehframe_arch arch, const unsigned char *code, uint64_t size,
		      uint64_t text_size, const struct ehframe_row *rows, int n, char *out,
		      size_t cap)
{
	unsigned char tables[EHFRAME_MAX_BYTES];
	struct ehframe_sizes sz;
	char dir[] = "/tmp/jsym-unwind-XXXXXX", path[64];
	int len = ehframe_build(arch, size, text_size, rows, (size_t)n, tables, sizeof(tables),
				&sz);

	ck_assert_int_gt(len, 0);
	ck_assert_int_eq(len, (int)(sz.eh_frame_size + sz.hdr_size));
	ck_assert_uint_eq(sz.hdr_size, 20);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/jitted.so", dir);
	write_elf(path, arch == EHFRAME_AARCH64 ? EM_AARCH64 : EM_X86_64, code, text_size,
		  tables, &sz);
	readelf_rows(path, out, cap);
	unlink(path);
	rmdir(dir);
}

static int shape(enum ehframe_arch arch, enum frameshape_kind kind, const unsigned char *code,
		 uint64_t size, uint32_t words, int64_t fc, struct ehframe_row *rows,
		 struct frameshape_found *f)
{
	struct frameshape_in in = { .arch = arch, .kind = kind, .code = code, .size = size,
				    .frame_words = words, .frame_complete = fc };

	return frameshape_rows(&in, rows, EHFRAME_MAX_ROWS, f);
}

/* A C2 method of 6 words (48 bytes) on JDK 17: stack bang, push rbp,
 * sub rsp 32; a body; the epilogue add rsp 32, pop rbp, cmp rsp with the
 * thread's polling word, ja, ret; more body. */
static const unsigned char X86_C2[] = {
	0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff,       /* 00 mov [rsp-0x14000], eax */
	0x55,                                           /* 07 push rbp */
	0x48, 0x83, 0xec, 0x20,                         /* 08 sub rsp, 0x20 */
	0x8b, 0xc6, 0x03, 0xc2, 0x90, 0x90, 0x90, 0x90, /* 0c body */
	0x48, 0x83, 0xc4, 0x20,                         /* 14 add rsp, 0x20 */
	0x5d,                                           /* 18 pop rbp */
	0x49, 0x3b, 0xa7, 0x20, 0x03, 0x00, 0x00,       /* 19 cmp rsp, [r15+0x320] */
	0x0f, 0x87, 0x10, 0x00, 0x00, 0x00,             /* 20 ja the poll stub */
	0xc3,                                           /* 26 ret */
	0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, /* 27 body: an exception path */
	0x90,
};

START_TEST(x86_c2_prologue_and_epilogue)
{
	struct ehframe_row rows[EHFRAME_MAX_ROWS];
	struct frameshape_found f;
	char got[2048];
	int n = shape(EHFRAME_X86_64, FRAMESHAPE_FIXED, X86_C2, sizeof(X86_C2), 6, 12, rows, &f);

	ck_assert_int_eq(n, 6);
	ck_assert_int_eq(f.prologue_end, 0x0c);
	ck_assert_uint_eq(f.epilogues, 1);
	roundtrip(EHFRAME_X86_64, X86_C2, sizeof(X86_C2), sizeof(X86_C2), rows, n, got,
		  sizeof(got));
	ck_assert_str_eq(got, "LOC CFA rbp ra \n"
			 "0000000000000080 rsp+8 u c-8 \n"
			 "0000000000000088 rsp+16 c-16 c-8 \n"
			 "000000000000008c rsp+48 c-16 c-8 \n"
			 "0000000000000098 rsp+16 c-16 c-8 \n"
			 "0000000000000099 rsp+8 s c-8 \n"
			 "00000000000000a7 rsp+48 c-16 c-8 \n");
}
END_TEST

/* C2 without a stack bang (sub rsp first, rbp stored), a large frame of
 * 40 words (320 bytes: the imm32 forms), and a tail jump after the
 * epilogue instead of a return. */
START_TEST(x86_c2_no_bang_large_frame)
{
	static const unsigned char code[] = {
		0x48, 0x81, 0xec, 0x38, 0x01, 0x00, 0x00,       /* 00 sub rsp, 0x138 */
		0x48, 0x89, 0xac, 0x24, 0x30, 0x01, 0x00, 0x00, /* 07 mov [rsp+0x130], rbp */
		0x90, 0x90,                                     /* 0f body */
		0x48, 0x81, 0xc4, 0x30, 0x01, 0x00, 0x00,       /* 11 add rsp, 0x130 */
		0x5d,                                           /* 18 pop rbp */
		0xe9, 0x00, 0x00, 0x00, 0x00,                   /* 19 jmp (a tail call) */
		0x90, 0x90,                                     /* 1e */
	};
	struct ehframe_row rows[EHFRAME_MAX_ROWS];
	struct frameshape_found f;
	char got[2048];
	int n = shape(EHFRAME_X86_64, FRAMESHAPE_FIXED, code, sizeof(code), 40, -1, rows, &f);

	ck_assert_int_eq(f.prologue_end, 0x0f);
	roundtrip(EHFRAME_X86_64, code, sizeof(code), sizeof(code), rows, n, got, sizeof(got));
	ck_assert_str_eq(got, "LOC CFA rbp ra \n"
			 "0000000000000080 rsp+8 u c-8 \n"
			 "0000000000000087 rsp+320 u c-8 \n"
			 "000000000000008f rsp+320 c-16 c-8 \n"
			 "0000000000000098 rsp+16 c-16 c-8 \n"
			 "0000000000000099 rsp+8 s c-8 \n"
			 "000000000000009e rsp+320 c-16 c-8 \n");
}
END_TEST

/* C2's runtime stubs (OptoRuntime): a frame of 2 words, sub rsp, 8 (imm32
 * or imm8) and rbp stored at [rsp] without a displacement. */
START_TEST(x86_c2_runtime_stub)
{
	static const unsigned char code[] = {
		0x48, 0x81, 0xec, 0x08, 0x00, 0x00, 0x00,       /* 00 sub rsp, 8 */
		0x48, 0x89, 0x2c, 0x24,                         /* 07 mov [rsp], rbp */
		0x90, 0x90, 0x90,                               /* 0b */
	};
	static const unsigned char trap[] = {
		0x48, 0x83, 0xec, 0x08, 0x48, 0x89, 0x2c, 0x24, 0x90, 0x90,
	};
	struct ehframe_row rows[EHFRAME_MAX_ROWS];
	struct frameshape_found f;
	int n = shape(EHFRAME_X86_64, FRAMESHAPE_FIXED, code, sizeof(code), 2, 11, rows, &f);

	ck_assert_int_eq(f.prologue_end, 11);
	ck_assert_int_eq(n, 3);
	ck_assert_uint_eq(rows[1].off, 7);
	ck_assert_int_eq(rows[1].cfa_off, 16);
	ck_assert(!rows[1].fp_saved);
	ck_assert(rows[2].fp_saved);
	n = shape(EHFRAME_X86_64, FRAMESHAPE_FIXED, trap, sizeof(trap), 2, -1, rows, &f);
	ck_assert_int_eq(f.prologue_end, 8);
	ck_assert_uint_eq(rows[1].off, 4);
}
END_TEST

/* No prologue in the code (or another shape): the frame is taken as whole
 * from _frame_complete_offset on. */
START_TEST(x86_unknown_prologue_uses_frame_complete)
{
	static const unsigned char code[32] = { 0x90 };
	struct ehframe_row rows[EHFRAME_MAX_ROWS];
	struct frameshape_found f;
	int n = shape(EHFRAME_X86_64, FRAMESHAPE_FIXED, code, sizeof(code), 4, 10, rows, &f);

	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(f.prologue_end, -1);
	ck_assert_uint_eq(rows[1].off, 10);
	ck_assert_int_eq(rows[1].cfa_off, 32);
	ck_assert(rows[1].fp_saved);
	/* a frame under 2 words is refused */
	ck_assert_int_eq(shape(EHFRAME_X86_64, FRAMESHAPE_FIXED, code, sizeof(code), 1, 10, rows,
			       &f), -EINVAL);
}
END_TEST

/* The interpreter: CFA is the sender SP saved at rbp-8, ra at rbp+8, rbp
 * at rbp+0, all DWARF expressions. */
START_TEST(x86_interpreter_expressions)
{
	static const unsigned char code[64] = { 0x90 };
	struct ehframe_row rows[EHFRAME_MAX_ROWS];
	struct frameshape_found f;
	unsigned char tables[EHFRAME_MAX_BYTES];
	struct ehframe_sizes sz;
	char got[2048];
	int n = shape(EHFRAME_X86_64, FRAMESHAPE_INTERP, code, sizeof(code), 0, -1, rows, &f);
	int len = ehframe_build(EHFRAME_X86_64, sizeof(code), sizeof(code), rows, (size_t)n,
				tables, sizeof(tables), &sz);
	/* DW_CFA_def_cfa_expression [breg6 -8; deref] */
	static const unsigned char cfa_expr[] = { 0x0f, 0x03, 0x76, 0x78, 0x06 };

	ck_assert_int_eq(n, 1);
	ck_assert_int_gt(len, 0);
	ck_assert_ptr_nonnull(memmem(tables, sz.eh_frame_size, cfa_expr, sizeof(cfa_expr)));
	roundtrip(EHFRAME_X86_64, code, sizeof(code), sizeof(code), rows, n, got, sizeof(got));
	ck_assert_str_eq(got, "LOC CFA rbp ra \n"
			 "0000000000000080 exp exp exp \n");
}
END_TEST

/* The call stub (and StubRoutines' other `enter` stubs): rbp frame after
 * push rbp; mov rbp, rsp, back to the entry state after leave, again after
 * ret.  A stub with no `enter` is frameless. */
START_TEST(x86_fp_stub_and_leaf)
{
	static const unsigned char code[] = {
		0x55, 0x48, 0x8b, 0xec,         /* 00 push rbp; mov rbp, rsp */
		0x48, 0x83, 0xec, 0x60, 0x90,   /* 04 sub rsp, 0x60; nop */
		0xc9, 0xc3,                     /* 09 leave; ret */
		0x90, 0x90,                     /* 0b */
	};
	static const unsigned char leaf[] = { 0x48, 0x8b, 0x06, 0xff, 0xe0 };
	struct ehframe_row rows[EHFRAME_MAX_ROWS];
	struct frameshape_found f;
	char got[2048];
	int n = shape(EHFRAME_X86_64, FRAMESHAPE_STUB, code, sizeof(code), 0, -1, rows, &f);

	ck_assert(f.fp_stub);
	roundtrip(EHFRAME_X86_64, code, sizeof(code), sizeof(code), rows, n, got, sizeof(got));
	ck_assert_str_eq(got, "LOC CFA rbp ra \n"
			 "0000000000000080 rsp+8 u c-8 \n"
			 "0000000000000081 rsp+16 c-16 c-8 \n"
			 "0000000000000084 rbp+16 c-16 c-8 \n"
			 "000000000000008a rsp+8 s c-8 \n"
			 "000000000000008b rbp+16 c-16 c-8 \n");
	n = shape(EHFRAME_X86_64, FRAMESHAPE_STUB, leaf, sizeof(leaf), 0, -1, rows, &f);
	ck_assert_int_eq(n, 1);
	ck_assert(!f.fp_stub);
	/* the FDE has no instructions of its own: the CIE's entry state
	 * (rsp+8, ra at c-8) holds throughout, and readelf lists no row */
	roundtrip(EHFRAME_X86_64, leaf, sizeof(leaf), sizeof(leaf), rows, n, got, sizeof(got));
	ck_assert_str_eq(got, "");
}
END_TEST

/* Tables folded over the code's own last bytes: the CODE_LOAD carries 16
 * of the 40 bytes, the FDE still covers all 40. */
START_TEST(folded_tables_cover_the_whole_code)
{
	static const unsigned char code[40] = { 0x90 };
	struct ehframe_row rows[1] = { { .off = 0, .cfa = EHFRAME_CFA_SP, .cfa_off = 8,
					 .ra_saved = 1 } };
	unsigned char tables[EHFRAME_MAX_BYTES];
	struct ehframe_sizes sz;
	char dir[] = "/tmp/jsym-unwind-XXXXXX", path[64], cmd[160], line[256];
	FILE *p;
	int ok = 0;

	ck_assert_int_gt(ehframe_build(EHFRAME_X86_64, 40, 16, rows, 1, tables, sizeof(tables),
				       &sz), 0);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/jitted.so", dir);
	write_elf(path, EM_X86_64, code, 16, tables, &sz);
	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames %s", path);
	p = popen(cmd, "r");
	while (fgets(line, sizeof(line), p))
		ok |= strstr(line, "pc=0000000000000080..00000000000000a8") != NULL;
	pclose(p);
	unlink(path);
	rmdir(dir);
	ck_assert_msg(ok, "the FDE covers 0x80..0xa8");
	ck_assert_int_eq(ehframe_build(EHFRAME_X86_64, 40, 41, rows, 1, tables, sizeof(tables),
				       &sz), -EINVAL);
}
END_TEST

static void a64(unsigned char *p, uint32_t insn)
{
	memcpy(p, &insn, 4);
}

/* aarch64 C2, frame of 4 words: sub sp, stp x29/x30 at the top; a runtime
 * call with its 16-byte breadcrumb; the epilogue ldp, add, the poll, ret. */
START_TEST(a64_c2_small_frame_breadcrumb_epilogue)
{
	static const uint32_t insns[] = {
		0xd10083ff,     /* 00 sub sp, sp, #32 */
		0xa9017bfd,     /* 04 stp x29, x30, [sp, #16] */
		0xd503201f,     /* 08 nop */
		0xa9bf27ff,     /* 0c stp xzr, x9, [sp, #-16]! */
		0xd63f0100,     /* 10 blr x8 */
		0x910043ff,     /* 14 add sp, sp, #16 */
		0xa9417bfd,     /* 18 ldp x29, x30, [sp, #16] */
		0x910083ff,     /* 1c add sp, sp, #32 */
		0xf9400388,     /* 20 ldr x8, [x28] */
		0xd65f03c0,     /* 24 ret */
		0xd503201f,     /* 28 nop */
	};
	unsigned char code[sizeof(insns)];
	struct ehframe_row rows[EHFRAME_MAX_ROWS];
	struct frameshape_found f;
	char got[2048];
	int n;

	for (size_t i = 0; i < sizeof(insns) / 4; i++)
		a64(code + 4 * i, insns[i]);
	n = shape(EHFRAME_AARCH64, FRAMESHAPE_FIXED, code, sizeof(code), 4, 8, rows, &f);
	ck_assert_int_eq(f.prologue_end, 8);
	ck_assert_uint_eq(f.epilogues, 1);
	roundtrip(EHFRAME_AARCH64, code, sizeof(code), sizeof(code), rows, n, got, sizeof(got));
	ck_assert_str_eq(got, "LOC CFA x29 ra \n"
			 "0000000000000080 sp+0 u u \n"
			 "0000000000000084 sp+32 u u \n"
			 "0000000000000088 sp+32 c-16 c-8 \n"
			 "0000000000000090 sp+48 c-16 c-8 \n"
			 "0000000000000098 sp+32 c-16 c-8 \n"
			 "000000000000009c sp+32 s s \n"
			 "00000000000000a0 sp+0 s s \n"
			 "00000000000000a8 sp+32 c-16 c-8 \n");
}
END_TEST

/* JDK 21 to 24 put a post-call nop (nop; movk xzr; movk xzr) between the
 * runtime call and the add that pops the breadcrumb: the frame is still 16
 * bytes deeper up to that add. */
START_TEST(a64_jdk21_breadcrumb_post_call_nop)
{
	static const uint32_t insns[] = {
		0xd10083ff,     /* 00 sub sp, sp, #32 */
		0xa9017bfd,     /* 04 stp x29, x30, [sp, #16] */
		0xa9bf27ff,     /* 08 stp xzr, x9, [sp, #-16]! */
		0xd63f0100,     /* 0c blr x8 */
		0xd503201f,     /* 10 nop */
		0xf280003f,     /* 14 movk xzr, #1 */
		0xf2a0005f,     /* 18 movk xzr, #2, lsl #16 */
		0x910043ff,     /* 1c add sp, sp, #16 */
		0xd503201f,     /* 20 nop */
	};
	unsigned char code[sizeof(insns)];
	struct ehframe_row rows[EHFRAME_MAX_ROWS];
	struct frameshape_found f;
	int n;

	for (size_t i = 0; i < sizeof(insns) / 4; i++)
		a64(code + 4 * i, insns[i]);
	n = shape(EHFRAME_AARCH64, FRAMESHAPE_FIXED, code, sizeof(code), 4, 8, rows, &f);
	ck_assert_int_eq(n, 5);
	ck_assert_uint_eq(rows[3].off, 0x0c);       /* after the stp: 16 deeper */
	ck_assert_int_eq(rows[3].cfa_off, 48);
	ck_assert_uint_eq(rows[4].off, 0x20);       /* after the add: the body */
	ck_assert_int_eq(rows[4].cfa_off, 32);
}
END_TEST

/* aarch64 large frame: stp x29, x30, [sp, #-16]! then sub sp; and an
 * `enter` stub; and the interpreter over x29. */
START_TEST(a64_large_frame_fp_stub_interpreter)
{
	static const uint32_t big[] = {
		0xa9bf7bfd,     /* 00 stp x29, x30, [sp, #-16]! */
		0xd10843ff,     /* 04 sub sp, sp, #528 */
		0xd503201f,     /* 08 */
	};
	static const uint32_t stub[] = {
		0xa9bf7bfd,     /* 00 stp x29, x30, [sp, #-16]! */
		0x910003fd,     /* 04 mov x29, sp */
		0xd503201f,     /* 08 */
		0xa8c17bfd,     /* 0c ldp x29, x30, [sp], #16 */
		0xd65f03c0,     /* 10 ret */
		0xd503201f,     /* 14 */
	};
	unsigned char code[64];
	struct ehframe_row rows[EHFRAME_MAX_ROWS];
	struct frameshape_found f;
	char got[2048];
	int n;

	for (size_t i = 0; i < sizeof(big) / 4; i++)
		a64(code + 4 * i, big[i]);
	n = shape(EHFRAME_AARCH64, FRAMESHAPE_FIXED, code, sizeof(big), 68, -1, rows, &f);
	ck_assert_int_eq(f.prologue_end, 8);
	roundtrip(EHFRAME_AARCH64, code, sizeof(big), sizeof(big), rows, n, got, sizeof(got));
	ck_assert_str_eq(got, "LOC CFA x29 ra \n"
			 "0000000000000080 sp+0 u u \n"
			 "0000000000000084 sp+16 c-16 c-8 \n"
			 "0000000000000088 sp+544 c-16 c-8 \n");
	for (size_t i = 0; i < sizeof(stub) / 4; i++)
		a64(code + 4 * i, stub[i]);
	n = shape(EHFRAME_AARCH64, FRAMESHAPE_STUB, code, sizeof(stub), 0, -1, rows, &f);
	ck_assert(f.fp_stub);
	roundtrip(EHFRAME_AARCH64, code, sizeof(stub), sizeof(stub), rows, n, got, sizeof(got));
	ck_assert_str_eq(got, "LOC CFA x29 ra \n"
			 "0000000000000080 sp+0 u u \n"
			 "0000000000000084 sp+16 c-16 c-8 \n"
			 "0000000000000088 x29+16 c-16 c-8 \n"
			 "0000000000000090 sp+0 s s \n"
			 "0000000000000094 x29+16 c-16 c-8 \n");
	n = shape(EHFRAME_AARCH64, FRAMESHAPE_INTERP, code, sizeof(stub), 0, -1, rows, &f);
	roundtrip(EHFRAME_AARCH64, code, sizeof(stub), sizeof(stub), rows, n, got, sizeof(got));
	ck_assert_str_eq(got, "LOC CFA x29 ra \n"
			 "0000000000000080 exp exp exp \n");
}
END_TEST

START_TEST(bad_rows_refused)
{
	struct ehframe_row r[3] = {
		{ .off = 0, .cfa = EHFRAME_CFA_SP, .cfa_off = 8, .ra_saved = 1 },
		{ .off = 4, .cfa = EHFRAME_CFA_SP, .cfa_off = 16, .ra_saved = 1 },
		{ .off = 4, .cfa = EHFRAME_CFA_SP, .cfa_off = 24, .ra_saved = 1 },
	};
	unsigned char out[EHFRAME_MAX_BYTES];
	struct ehframe_sizes sz;

	ck_assert_int_eq(ehframe_build(EHFRAME_X86_64, 16, 16, r, 3, out, sizeof(out), &sz),
			 -EINVAL);       /* offsets not increasing */
	ck_assert_int_eq(ehframe_build(EHFRAME_X86_64, 4, 4, r, 2, out, sizeof(out), &sz),
			 -EINVAL);       /* a row past the code */
	ck_assert_int_eq(ehframe_build(EHFRAME_AARCH64, 16, 16, r + 1, 1, out, sizeof(out), &sz),
			 -EINVAL);       /* the first row not at 0 */
	r[1].off = 2;
	ck_assert_int_eq(ehframe_build(EHFRAME_AARCH64, 16, 16, r, 2, out, sizeof(out), &sz),
			 -EINVAL);       /* not a whole instruction on aarch64 */
	r[1].cfa_off = 12;
	ck_assert_int_eq(ehframe_build(EHFRAME_X86_64, 16, 16, r, 2, out, sizeof(out), &sz),
			 -EINVAL);       /* a CFA offset not a multiple of 8 */
	r[1].cfa_off = 16;
	ck_assert_int_eq(ehframe_build(EHFRAME_X86_64, 16, 16, r, 2, out, 40, &sz), -ENOBUFS);
	ck_assert_int_eq(ehframe_build(EHFRAME_X86_64, 16, 16, r, EHFRAME_MAX_ROWS + 1, out,
				       sizeof(out), &sz), -E2BIG);
}
END_TEST

/* The most rows frameshape ever gives fit EHFRAME_MAX_BYTES. */
START_TEST(max_rows_fit)
{
	unsigned char code[8192];
	struct ehframe_row rows[EHFRAME_MAX_ROWS];
	struct frameshape_found f;
	unsigned char out[EHFRAME_MAX_BYTES];
	struct ehframe_sizes sz;
	size_t at = 0;
	int n;

	memset(code, 0x90, sizeof(code));
	memcpy(code, "\x55\x48\x81\xec\x00\x10\x00\x00", 8);  /* push; sub rsp, 0x1000 */
	for (at = 64; at + 400 < sizeof(code); at += 400)      /* epilogues far apart */
		memcpy(code + at, "\x48\x81\xc4\x00\x10\x00\x00\x5d\xc3", 9);
	n = shape(EHFRAME_X86_64, FRAMESHAPE_FIXED, code, sizeof(code), 514, -1, rows, &f);
	ck_assert_int_le(n, EHFRAME_MAX_ROWS);
	ck_assert_int_gt(n, EHFRAME_MAX_ROWS - 4);
	ck_assert_int_gt(ehframe_build(EHFRAME_X86_64, sizeof(code), sizeof(code), rows,
				       (size_t)n, out, sizeof(out), &sz), 0);
}
END_TEST

Suite *agent_unwind_suite(void)
{
	Suite *s = suite_create("agent_unwind");
	TCase *tc = tcase_create("unwind");

	tcase_add_test(tc, x86_c2_prologue_and_epilogue);
	tcase_add_test(tc, x86_c2_no_bang_large_frame);
	tcase_add_test(tc, x86_c2_runtime_stub);
	tcase_add_test(tc, x86_unknown_prologue_uses_frame_complete);
	tcase_add_test(tc, x86_interpreter_expressions);
	tcase_add_test(tc, x86_fp_stub_and_leaf);
	tcase_add_test(tc, folded_tables_cover_the_whole_code);
	tcase_add_test(tc, a64_c2_small_frame_breadcrumb_epilogue);
	tcase_add_test(tc, a64_jdk21_breadcrumb_post_call_nop);
	tcase_add_test(tc, a64_large_frame_fp_stub_interpreter);
	tcase_add_test(tc, bad_rows_refused);
	tcase_add_test(tc, max_rows_fit);
	suite_add_tcase(s, tc);
	return s;
}
