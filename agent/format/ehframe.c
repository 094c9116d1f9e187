/* SPDX-License-Identifier: Apache-2.0 */
/* ehframe.c - encode one piece of JIT code's .eh_frame and .eh_frame_hdr
 * (ehframe.h), per the DWARF 4 call frame information and the LSB's
 * .eh_frame / .eh_frame_hdr layout. */
#include "ehframe.h"

#include <errno.h>
#include <string.h>

#include "jsym_arch.h"

/* DWARF call frame instructions and expression operators used here. */
enum {
	CFA_advance_loc = 0x40, CFA_offset = 0x80,
	CFA_nop = 0x00, CFA_advance_loc1 = 0x02, CFA_advance_loc2 = 0x03,
	CFA_advance_loc4 = 0x04, CFA_same_value = 0x08, CFA_def_cfa = 0x0c,
	CFA_def_cfa_offset = 0x0e, CFA_def_cfa_expression = 0x0f, CFA_expression = 0x10,
	OP_breg0 = 0x70, OP_deref = 0x06,
};
/* Pointer encodings: pc-relative or relative to the header, signed 4 bytes. */
enum { PE_udata4 = 0x03, PE_sdata4 = 0x0b, PE_pcrel = 0x10, PE_datarel = 0x30 };

/* The registers of each architecture, by DWARF number. */
struct arch_regs {
	uint8_t sp, fp, ra;
	uint8_t code_align;     /* instruction size unit of advance_loc */
	int32_t entry_cfa;      /* CFA = sp + this at a function's first byte */
	uint8_t entry_ra_saved; /* the call pushed the return address */
};
static const struct arch_regs REGS[] = {
	[EHFRAME_X86_64] = { .sp = 7, .fp = 6, .ra = 16, .code_align = 1, .entry_cfa = 8,
			     .entry_ra_saved = 1 },
	[EHFRAME_AARCH64] = { .sp = 31, .fp = 29, .ra = 30, .code_align = 4, .entry_cfa = 0,
			      .entry_ra_saved = 0 },
};

enum ehframe_arch ehframe_host_arch(void)
{
	return JSYM_ELF_MACHINE == EM_AARCH64 ? EHFRAME_AARCH64 : EHFRAME_X86_64;
}

/* A bounded writer: every put checks room; `bad` sticks once it overflows. */
struct out {
	unsigned char *p;
	size_t len, cap;
	int bad;
};

static void put8(struct out *o, unsigned v)
{
	if (o->len >= o->cap) {
		o->bad = 1;
		return;
	}
	o->p[o->len++] = (unsigned char)v;
}

static void put32(struct out *o, uint32_t v)
{
	for (int i = 0; i < 4; i++)     /* little-endian: both arches are */
		put8(o, (v >> (8 * i)) & 0xff);
}

static void set32(struct out *o, size_t at, uint32_t v)
{
	if (at + 4 <= o->len)
		for (int i = 0; i < 4; i++)
			o->p[at + i] = (unsigned char)(v >> (8 * i));
}

static void uleb(struct out *o, uint64_t v)
{
	do {
		unsigned b = v & 0x7f;

		v >>= 7;
		put8(o, b | (v ? 0x80 : 0));
	} while (v);
}

static void sleb(struct out *o, int64_t v)
{
	for (;;) {
		unsigned b = (unsigned)v & 0x7f;
		int done;

		v >>= 7;        /* arithmetic on every compiler jsym builds with */
		done = (v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40));
		put8(o, b | (done ? 0 : 0x80));
		if (done)
			return;
	}
}

/* Pad with DW_CFA_nop from `start` to a multiple of 8 bytes, then write the
 * entry's length (the bytes after the length field) at `start`. */
static void close_entry(struct out *o, size_t start)
{
	while ((o->len - start) % 8)
		put8(o, CFA_nop);
	set32(o, start, (uint32_t)(o->len - start - 4));
}

/* DW_CFA_expression or def_cfa_expression of "breg(fp) + off [deref]". */
static void fp_expr(struct out *o, const struct arch_regs *r, int is_cfa, unsigned reg,
		    int64_t off, int deref)
{
	unsigned char tmp[16];
	struct out e = { .p = tmp, .cap = sizeof(tmp) };

	put8(&e, OP_breg0 + r->fp);
	sleb(&e, off);
	if (deref)
		put8(&e, OP_deref);
	put8(o, is_cfa ? CFA_def_cfa_expression : CFA_expression);
	if (!is_cfa)
		uleb(o, reg);
	uleb(o, e.len);
	for (size_t i = 0; i < e.len; i++)
		put8(o, tmp[i]);
}

static void saved_rule(struct out *o, unsigned reg, int saved, int64_t below_cfa)
{
	if (saved) {
		put8(o, CFA_offset | reg);
		uleb(o, (uint64_t)(below_cfa / 8));     /* factored by data_align -8 */
	} else {
		put8(o, CFA_same_value);
		uleb(o, reg);
	}
}

/* The instructions that take the state from `was` to `now`. */
static void row_change(struct out *o, const struct arch_regs *r, const struct ehframe_row *was,
		       const struct ehframe_row *now)
{
	if (now->cfa == EHFRAME_CFA_INTERP) {
		if (was->cfa == EHFRAME_CFA_INTERP)
			return;
		fp_expr(o, r, 1, 0, -8, 1);
		fp_expr(o, r, 0, r->ra, 8, 0);
		fp_expr(o, r, 0, r->fp, 0, 0);
		return;
	}
	if (was->cfa != now->cfa) {
		put8(o, CFA_def_cfa);
		uleb(o, now->cfa == EHFRAME_CFA_FP ? r->fp : r->sp);
		uleb(o, (uint64_t)now->cfa_off);
	} else if (was->cfa_off != now->cfa_off) {
		put8(o, CFA_def_cfa_offset);
		uleb(o, (uint64_t)now->cfa_off);
	}
	/* leaving an interpreter row resets both rules */
	if (was->cfa == EHFRAME_CFA_INTERP || was->ra_saved != now->ra_saved)
		saved_rule(o, r->ra, now->ra_saved, 8);
	if (was->cfa == EHFRAME_CFA_INTERP || was->fp_saved != now->fp_saved)
		saved_rule(o, r->fp, now->fp_saved, 16);
}

static void advance(struct out *o, uint32_t delta)
{
	if (delta < 64) {
		put8(o, CFA_advance_loc | delta);
	} else if (delta <= 0xff) {
		put8(o, CFA_advance_loc1);
		put8(o, delta);
	} else if (delta <= 0xffff) {
		put8(o, CFA_advance_loc2);
		put8(o, delta & 0xff);
		put8(o, delta >> 8);
	} else {
		put8(o, CFA_advance_loc4);
		put32(o, delta);
	}
}

static int check_rows(const struct arch_regs *r, uint64_t code_size,
		      const struct ehframe_row *rows, size_t n)
{
	if (!n || rows[0].off != 0 || code_size == 0 || code_size > (1u << 30))
		return -EINVAL;
	if (n > EHFRAME_MAX_ROWS)
		return -E2BIG;
	for (size_t i = 0; i < n; i++) {
		if (rows[i].off % r->code_align || rows[i].off >= code_size ||
		    (i && rows[i].off <= rows[i - 1].off) || rows[i].cfa > EHFRAME_CFA_INTERP ||
		    rows[i].cfa_off < 0 || rows[i].cfa_off % 8 || rows[i].cfa_off > (1 << 20))
			return -EINVAL;
	}
	return 0;
}

int ehframe_build(enum ehframe_arch arch, uint64_t code_size, uint64_t text_size,
		  const struct ehframe_row *rows, size_t n, unsigned char *buf, size_t cap,
		  struct ehframe_sizes *sz)
{
	const struct arch_regs *r;
	struct out o = { .p = buf, .cap = cap };
	struct ehframe_row state;
	uint64_t text = (text_size + 7) & ~7ull;  /* where .eh_frame begins */
	size_t fde, hdr;
	int rc;

	if ((unsigned)arch >= sizeof(REGS) / sizeof(REGS[0]))
		return -EINVAL;
	r = &REGS[arch];
	if ((rc = check_rows(r, code_size, rows, n)) < 0)
		return rc;
	if (!text_size || text_size > code_size)
		return -EINVAL;

	/* The CIE: "zR" (FDE addresses pc-relative sdata4), the entry state. */
	put32(&o, 0);
	put32(&o, 0);                   /* CIE id */
	put8(&o, 1);                    /* version */
	put8(&o, 'z');
	put8(&o, 'R');
	put8(&o, 0);
	uleb(&o, r->code_align);
	sleb(&o, -8);                   /* data alignment */
	put8(&o, r->ra);
	uleb(&o, 1);                    /* augmentation data: the R byte */
	put8(&o, PE_pcrel | PE_sdata4);
	put8(&o, CFA_def_cfa);
	uleb(&o, r->sp);
	uleb(&o, (uint64_t)r->entry_cfa);
	if (r->entry_ra_saved)
		saved_rule(&o, r->ra, 1, 8);
	close_entry(&o, 0);

	/* The FDE: the whole code, its rows as advance + change. */
	fde = o.len;
	put32(&o, 0);
	put32(&o, (uint32_t)(fde + 4));                 /* back to the CIE */
	put32(&o, (uint32_t)-(int64_t)(text + fde + 8)); /* pc_begin, pc-relative */
	put32(&o, (uint32_t)code_size);                 /* pc_range */
	uleb(&o, 0);                                    /* no augmentation data */
	state = (struct ehframe_row){ .cfa = EHFRAME_CFA_SP, .cfa_off = r->entry_cfa,
				      .ra_saved = r->entry_ra_saved };
	for (size_t i = 0; i < n; i++) {
		if (i)
			advance(&o, (rows[i].off - rows[i - 1].off) / r->code_align);
		row_change(&o, r, &state, &rows[i]);
		state = rows[i];
	}
	close_entry(&o, fde);
	put32(&o, 0);                   /* the terminator */

	/* The header: version, encodings, the eh_frame pointer, one entry. */
	hdr = o.len;
	put8(&o, 1);
	put8(&o, PE_pcrel | PE_sdata4);
	put8(&o, PE_udata4);
	put8(&o, PE_datarel | PE_sdata4);
	put32(&o, (uint32_t)-(int64_t)(hdr + 4));       /* .eh_frame, from here */
	put32(&o, 1);
	put32(&o, (uint32_t)-(int64_t)(text + hdr));    /* the code, from the header */
	put32(&o, (uint32_t)((int64_t)fde - (int64_t)hdr));
	if (o.bad)
		return -ENOBUFS;
	sz->eh_frame_size = (uint32_t)hdr;
	sz->hdr_size = (uint32_t)(o.len - hdr);
	return (int)o.len;
}
