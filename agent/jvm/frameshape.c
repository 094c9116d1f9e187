/* SPDX-License-Identifier: Apache-2.0 */
/* frameshape.c - unwinding rows of HotSpot JIT code from its frame size and
 * its prologue and epilogue instructions (frameshape.h). */
#include "frameshape.h"

#include <errno.h>
#include <string.h>

/* The rows under construction: offsets only ever grow. */
struct rows {
	struct ehframe_row *r;
	size_t n, cap;
	uint64_t size;
};

static void add(struct rows *s, uint64_t off, struct ehframe_row st)
{
	if (off >= s->size)
		return;
	st.off = (uint32_t)off;
	if (s->n && s->r[s->n - 1].off >= st.off) {
		s->r[s->n - 1] = st;    /* the same offset: the later state holds */
		return;
	}
	if (s->n < s->cap)
		s->r[s->n++] = st;
}

static int room(const struct rows *s, size_t k)
{
	return s->n + k <= s->cap;
}

static struct ehframe_row sp_row(int32_t off, int ra, int fp)
{
	return (struct ehframe_row){ .cfa = EHFRAME_CFA_SP, .cfa_off = off, .ra_saved = (uint8_t)ra,
				     .fp_saved = (uint8_t)fp };
}

static const struct ehframe_row FP_FRAME = { .cfa = EHFRAME_CFA_FP, .cfa_off = 16, .ra_saved = 1,
					     .fp_saved = 1 };

/* ---- x86_64 ---------------------------------------------------------------- */

static int at(const struct frameshape_in *in, uint64_t i, const char *bytes, size_t n)
{
	return i + n <= in->size && memcmp(in->code + i, bytes, n) == 0;
}

static int64_t imm32(const struct frameshape_in *in, uint64_t i)
{
	int32_t v;

	if (i + 4 > in->size)
		return -1;
	memcpy(&v, in->code + i, 4);
	return v;
}

static int64_t imm8(const struct frameshape_in *in, uint64_t i)
{
	return i < in->size ? (int8_t)in->code[i] : -1;
}

/* `add/sub rsp, v` at i (op 0xc4 add, 0xec sub): its length, or 0. */
static uint64_t x86_rsp_imm(const struct frameshape_in *in, uint64_t i, unsigned op, int64_t v)
{
	char i8[] = { 0x48, (char)0x83, (char)op }, i32[] = { 0x48, (char)0x81, (char)op };

	if (v <= 127 && at(in, i, i8, 3) && imm8(in, i + 3) == v)
		return 4;
	if (at(in, i, i32, 3) && imm32(in, i + 3) == v)
		return 7;
	return 0;
}

/* C1's and C2's prologue with a stack bang: push rbp, [mov rbp, rsp,]
 * sub rsp, F8-16.  Its end, or 0. */
static uint64_t x86_push_sub(const struct frameshape_in *in, uint64_t p, int64_t f8)
{
	uint64_t q = p + 1, k;

	if (p >= in->size || in->code[p] != 0x55)
		return 0;
	if (at(in, q, "\x48\x89\xe5", 3) || at(in, q, "\x48\x8b\xec", 3))
		q += 3;
	if (f8 == 16)
		return 0;   /* push rbp alone: a lone 0x55 byte is too weak a sign */
	k = x86_rsp_imm(in, q, 0xec, f8 - 16);
	return k ? q + k : 0;
}

/* C2's prologue without a bang, and its runtime stubs' (OptoRuntime):
 * sub rsp, F8-8; mov [rsp+F8-16], rbp.  Its end, or 0. */
static uint64_t x86_sub_store(const struct frameshape_in *in, uint64_t p, int64_t f8)
{
	uint64_t k = x86_rsp_imm(in, p, 0xec, f8 - 8), q = p + k;

	if (!k)
		return 0;
	if (f8 == 16 && at(in, q, "\x48\x89\x2c\x24", 4))
		return q + 4;
	if (f8 - 16 <= 127 && at(in, q, "\x48\x89\x6c\x24", 4) && imm8(in, q + 4) == f8 - 16)
		return q + 5;
	if (at(in, q, "\x48\x89\xac\x24", 4) && imm32(in, q + 4) == f8 - 16)
		return q + 8;
	return 0;
}

/* Past the return polls HotSpot puts between `pop rbp` and `ret` (JDK 8:
 * test [rip+d], eax; 11: mov r10, [r15+d]; test [r10], eax; 16 on: cmp
 * rsp, [r15+d]; ja), and the reserved stack check before them (cmp rsp,
 * [r15+d]; jb, @ReservedStackAccess methods): the offset after the `ret`
 * or a tail jump (jmp rel32,
 * jmp reg), or at the first other instruction, where the frame is whole
 * again. */
static uint64_t x86_after_ret(const struct frameshape_in *in, uint64_t j)
{
	static const struct { const char *b; unsigned n, len; } polls[] = {
		{ "\x49\x3b\xa7", 3, 7 }, { "\x49\x3b\x67", 3, 4 }, { "\x0f\x87", 2, 6 },
		{ "\x77", 1, 2 }, { "\x4d\x8b\x97", 3, 7 }, { "\x4d\x8b\x57", 3, 4 },
		{ "\x41\x85\x02", 3, 3 }, { "\x85\x05", 2, 6 },
		{ "\x0f\x82", 2, 6 }, { "\x72", 1, 2 },     /* jb: the reserved stack check */
	};

	for (int step = 0; step < 6 && j < in->size; step++) {
		size_t k;

		if (in->code[j] == 0xc3)
			return j + 1;
		if (in->code[j] == 0xe9)
			return j + 5 <= in->size ? j + 5 : in->size;
		if (j + 1 < in->size && in->code[j] == 0xff && (in->code[j + 1] & 0xf8) == 0xe0)
			return j + 2;
		if (j + 2 < in->size && in->code[j] == 0x41 && in->code[j + 1] == 0xff &&
		    (in->code[j + 2] & 0xf8) == 0xe0)
			return j + 3;
		for (k = 0; k < sizeof(polls) / sizeof(polls[0]); k++)
			if (at(in, j, polls[k].b, polls[k].n))
				break;
		if (k == sizeof(polls) / sizeof(polls[0]))
			return j;
		j += polls[k].len;
	}
	return j;
}

static int64_t x86_fixed(const struct frameshape_in *in, struct rows *s, uint64_t limit,
			 struct frameshape_found *f)
{
	int64_t f8 = (int64_t)in->frame_words * 8;
	struct ehframe_row body = sp_row((int32_t)f8, 1, 1);
	uint64_t end = 0, p;

	for (p = 0; p < limit && !end; p++) {
		if ((end = x86_push_sub(in, p, f8)) != 0) {
			add(s, p + 1, sp_row(16, 1, 1));
		} else if ((end = x86_sub_store(in, p, f8)) != 0) {
			add(s, p + x86_rsp_imm(in, p, 0xec, f8 - 8), sp_row((int32_t)f8, 1, 0));
		}
	}
	if (!end)
		return -1;
	add(s, end, body);
	f->prologue_end = (int32_t)end;
	/* Epilogues: add rsp, F8-16; pop rbp; [poll]; ret.  Found from each
	 * pop rbp (memchr: this runs for every method of a late attach). */
	for (p = end + 4; f8 > 16 && p < in->size && room(s, 3); p++) {
		const unsigned char *pop = memchr(in->code + p, 0x5d, in->size - p);
		uint64_t after;

		if (!pop)
			break;
		p = (uint64_t)(pop - in->code);
		if (x86_rsp_imm(in, p - 4, 0xc4, f8 - 16) != 4 &&
		    (p < end + 7 || x86_rsp_imm(in, p - 7, 0xc4, f8 - 16) != 7))
			continue;
		add(s, p, sp_row(16, 1, 1));
		add(s, p + 1, sp_row(8, 1, 0));
		after = x86_after_ret(in, p + 1);
		add(s, after, body);
		f->epilogues++;
		p = after - 1;
	}
	return (int64_t)end;
}

/* `enter` before `limit`: rows up to the frame pointer frame, and the
 * `leave; ret` pairs after it. */
static int x86_fp_stub(const struct frameshape_in *in, struct rows *s, uint64_t limit,
		       struct frameshape_found *f)
{
	uint64_t p;

	for (p = 0; p < limit; p++)
		if (at(in, p, "\x55\x48\x89\xe5", 4) || at(in, p, "\x55\x48\x8b\xec", 4))
			break;
	if (p >= limit)
		return 0;
	add(s, p + 1, sp_row(16, 1, 1));
	add(s, p + 4, FP_FRAME);
	f->prologue_end = (int32_t)(p + 4);
	for (p += 4; p + 1 < in->size && room(s, 2); p++) {
		const unsigned char *leave = memchr(in->code + p, 0xc9, in->size - p - 1);

		if (!leave)
			break;
		p = (uint64_t)(leave - in->code);
		if (in->code[p + 1] != 0xc3)
			continue;
		add(s, p + 1, sp_row(8, 1, 0));
		add(s, p + 2, FP_FRAME);
		f->epilogues++;
	}
	return 1;
}

/* ---- aarch64 ----------------------------------------------------------------- */

static uint32_t insn(const struct frameshape_in *in, uint64_t i)
{
	uint32_t v = 0;

	if (i + 4 <= in->size)
		memcpy(&v, in->code + i, 4);
	return v;
}

#define A64_STP_FP_LR_PRE 0xa9bf7bfdu    /* stp x29, x30, [sp, #-16]! */
#define A64_LDP_FP_LR_POST 0xa8c17bfdu   /* ldp x29, x30, [sp], #16 */
#define A64_MOV_FP_SP 0x910003fdu        /* mov x29, sp */
#define A64_RET 0xd65f03c0u
#define A64_ADD_SP_16 0x910043ffu        /* add sp, sp, #16 */

/* add/sub sp, sp, #v (0x91... add, 0xd1... sub), v < 4096. */
static uint32_t a64_sp_imm(uint32_t op, int64_t v)
{
	return v >= 0 && v < 4096 ? op | (uint32_t)v << 10 | 0x3ff : 0;
}

/* stp/ldp x29, x30, [sp, #v] (signed offset), v/8 in imm7. */
static uint32_t a64_pair(uint32_t op, int64_t v)
{
	return v >= 0 && v <= 504 && v % 8 == 0 ? op | (uint32_t)(v / 8) << 15 | 0x7bfd : 0;
}

/* The offset after the first `ret` in the next 8 instructions, or 0. */
static uint64_t a64_after_ret(const struct frameshape_in *in, uint64_t j)
{
	for (int k = 0; k < 8 && j + 4 <= in->size; k++, j += 4)
		if (insn(in, j) == A64_RET)
			return j + 4;
	return 0;
}

static int64_t a64_fixed(const struct frameshape_in *in, struct rows *s, uint64_t limit,
			 struct frameshape_found *f)
{
	int64_t f8 = (int64_t)in->frame_words * 8;
	struct ehframe_row body = sp_row((int32_t)f8, 1, 1), entry = sp_row(0, 0, 0);
	uint32_t sub_small = a64_sp_imm(0xd1000000u, f8), stp = a64_pair(0xa9000000u, f8 - 16);
	uint32_t sub_rest = a64_sp_imm(0xd1000000u, f8 - 16);
	uint32_t ldp = a64_pair(0xa9400000u, f8 - 16), add_all = a64_sp_imm(0x91000000u, f8);
	uint32_t add_rest = a64_sp_imm(0x91000000u, f8 - 16);
	uint64_t end = 0, p, r;

	for (p = 0; p + 4 <= limit && !end; p += 4) {
		uint32_t i = insn(in, p);

		if (sub_small && stp && i == sub_small && insn(in, p + 4) == stp) {
			add(s, p + 4, sp_row((int32_t)f8, 0, 0));
			end = p + 8;
		} else if (i == A64_STP_FP_LR_PRE) {
			uint64_t q = p + 4 + 4 * (insn(in, p + 4) == A64_MOV_FP_SP);

			add(s, p + 4, sp_row(16, 1, 1));
			end = f8 == 16 ? p + 4 : sub_rest && insn(in, q) == sub_rest ? q + 4 : 0;
			if (!end)
				return -1;
		}
	}
	if (!end)
		return -1;
	add(s, end, body);
	f->prologue_end = (int32_t)end;
	for (p = end; p + 4 <= in->size && room(s, 3); p += 4) {
		uint32_t i = insn(in, p);

		if ((i & 0xffff83ffu) == 0xa9bf03ffu) {
			/* stp xzr, xN, [sp, #-16]!: C2's breadcrumb around a
			 * runtime call (JDK 8 to 24), popped by the add after
			 * the call: blr, then from JDK 21 a post-call nop of
			 * three words, so up to 8 words on */
			for (r = p + 4; r < p + 36 && insn(in, r) != A64_ADD_SP_16; r += 4)
				;
			if (r < p + 36) {
				add(s, p + 4, sp_row((int32_t)f8 + 16, 1, 1));
				add(s, r + 4, body);
				p = r;
			}
		} else if (ldp && add_all && i == ldp && insn(in, p + 4) == add_all &&
			   (r = a64_after_ret(in, p + 8)) != 0) {
			add(s, p + 4, sp_row((int32_t)f8, 0, 0));
			add(s, p + 8, entry);
			add(s, r, body);
			f->epilogues++;
			p = r - 4;
		} else if (add_rest && i == add_rest && insn(in, p + 4) == A64_LDP_FP_LR_POST &&
			   (r = a64_after_ret(in, p + 8)) != 0) {
			add(s, p + 4, sp_row(16, 1, 1));
			add(s, p + 8, entry);
			add(s, r, body);
			f->epilogues++;
			p = r - 4;
		}
	}
	return (int64_t)end;
}

static int a64_fp_stub(const struct frameshape_in *in, struct rows *s, uint64_t limit,
		       struct frameshape_found *f)
{
	uint64_t p, r;

	for (p = 0; p < limit; p += 4)
		if (insn(in, p) == A64_STP_FP_LR_PRE && insn(in, p + 4) == A64_MOV_FP_SP)
			break;
	if (p >= limit)
		return 0;
	add(s, p + 4, sp_row(16, 1, 1));
	add(s, p + 8, FP_FRAME);
	f->prologue_end = (int32_t)(p + 8);
	for (p += 8; p + 4 <= in->size && room(s, 2); p += 4) {
		if (insn(in, p) != A64_LDP_FP_LR_POST || !(r = a64_after_ret(in, p + 4)))
			continue;
		add(s, p + 4, sp_row(0, 0, 0));
		add(s, r, FP_FRAME);
		f->epilogues++;
		p = r - 4;
	}
	return 1;
}

/* ---- the entry --------------------------------------------------------------- */

int frameshape_rows(const struct frameshape_in *in, struct ehframe_row *rows, size_t cap,
		    struct frameshape_found *found)
{
	int a64 = in->arch == EHFRAME_AARCH64;
	struct rows s = { .r = rows, .cap = cap, .size = in->size };
	struct frameshape_found f = { .prologue_end = -1 };
	struct ehframe_row entry = a64 ? sp_row(0, 0, 0) : sp_row(8, 1, 0);

	if (!in->code || !in->size || cap < 4)
		return -EINVAL;
	if (in->kind == FRAMESHAPE_INTERP) {
		rows[0] = (struct ehframe_row){ .cfa = EHFRAME_CFA_INTERP };
		*found = f;
		return 1;
	}
	add(&s, 0, entry);
	if (in->kind == FRAMESHAPE_FIXED) {
		int64_t fc = in->frame_complete;
		uint64_t limit = fc > 0 && (uint64_t)fc <= in->size ? (uint64_t)fc :
				 in->size < 96 ? in->size : 96;

		if (in->frame_words < 2 || in->frame_words > (1u << 17))
			return -EINVAL;
		if ((a64 ? a64_fixed(in, &s, limit, &f) : x86_fixed(in, &s, limit, &f)) < 0) {
			/* Not C1's or C2's prologue: a stub that saves registers
			 * after `enter` (Runtime1's, SharedRuntime's resolve and
			 * ic_miss stubs) keeps its frame pointer; else the frame
			 * is whole from _frame_complete_offset on. */
			s.n = 0;
			add(&s, 0, entry);
			f.epilogues = 0;
			f.fp_stub = (uint8_t)(a64 ? a64_fp_stub(in, &s, limit, &f) :
					      x86_fp_stub(in, &s, limit, &f));
			if (!f.fp_stub) {
				s.n = 0;
				if (fc > 0)
					add(&s, 0, entry);
				add(&s, fc > 0 ? (uint64_t)fc : 0,
				    sp_row((int32_t)in->frame_words * 8, 1, 1));
			}
		}
	} else {
		f.fp_stub = (uint8_t)(a64 ? a64_fp_stub(in, &s, 16, &f) : x86_fp_stub(in, &s, 16, &f));
	}
	*found = f;
	return (int)s.n;
}
