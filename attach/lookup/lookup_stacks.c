/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lookup_stacks.c - `perf script` samples -> folded stacks, every JIT frame
 * expanded into its inline stack from the lookup (the use case of `jsym
 * stacks`; docs/cli.md says which perf script command feeds it).
 *
 * Input, perf script's default output with callchains: a header line per
 * sample ("COMM PID[/TID] TIME: ..."), then one frame per line, innermost
 * first, "\t ADDR SYM+0xOFF (DSO)", and a blank line.  perf 6.1 prints ADDR
 * relative to the DSO's mapping, so:
 *   - a jitted-PID-ID.so of `perf inject --jit` is the code load whose
 *     journal id is ID (the agent's jitdump code_index is the journal id):
 *     its address is that entry's start + OFF (with a perf map, which has
 *     no such ids, the frame keeps perf's name: the jitdump's, the same);
 *   - a /tmp/perf-PID.map or [unknown] frame is an anonymous mapping, whose
 *     ADDR is absolute;
 *   - any other frame is native (libjvm, libc, the kernel): perf's name.
 * A JIT frame the lookup does not know keeps perf's name too.
 *
 * Output, one line per distinct stack, root first: COMM;frame;...;leaf N.
 * A compiled method with an inline stack gives the compiled method, then
 * each method inlined into it, down to the innermost, each of these marked
 * with the suffix "_[i]" (async-profiler's mark).  Everything in a name
 * that could forge a frame or a line (';', a control byte, '\') is written
 * as \xHH: the names are the target's text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lookup_int.h"

#define ST_MAX_STACK (1u << 20)       /* bytes of one folded stack */
#define ST_MAX_BYTES (256u << 20)     /* bytes of all distinct stacks */

struct st_item {
	uint64_t hash, count;
	size_t off, len;             /* in text */
};

struct lookup_stacks {
	struct lookup *lk;
	unsigned flags;
	/* the sample being read: its frames, innermost first, NUL-separated */
	char *comm;
	size_t comm_cap;
	char *fr;
	size_t fr_len, fr_cap;
	size_t *fr_off;
	size_t n_fr, cap_fr_off;
	int in_sample;
	/* the folded line being built */
	char *line;
	size_t line_len, line_cap;
	/* distinct stacks: items in first-seen order, an open-addressed index */
	struct st_item *it;
	size_t n_it, cap_it;
	uint32_t *slot;              /* item index + 1; 0 empty */
	size_t n_slot;
	char *text;
	size_t text_len, text_cap;
	struct lookup_stacks_stats st;
};

struct lookup_stacks *lookup_stacks_new(struct lookup *lk, unsigned flags)
{
	struct lookup_stacks *s = calloc(1, sizeof(*s));

	if (s) {
		s->lk = lk;
		s->flags = flags;
	}
	return s;
}

void lookup_stacks_free(struct lookup_stacks *s)
{
	if (!s)
		return;
	free(s->comm);
	free(s->fr);
	free(s->fr_off);
	free(s->line);
	free(s->it);
	free(s->slot);
	free(s->text);
	free(s);
}

void lookup_stacks_get_stats(const struct lookup_stacks *s, struct lookup_stacks_stats *st)
{
	*st = s->st;
	st->stacks = s->n_it;
}

/* ---- the folded line ------------------------------------------------------ */

static int put_raw(struct lookup_stacks *s, const char *p, size_t n)
{
	if (s->line_len + n + 1 > ST_MAX_STACK)
		return -E2BIG;
	if (lk_grow((void **)&s->line, &s->line_cap, s->line_len + n + 1, 1) < 0)
		return -ENOMEM;
	memcpy(s->line + s->line_len, p, n);
	s->line_len += n;
	return 0;
}

/* Text of the target: ';', '\', control bytes and DEL as \xHH. */
static int put_name(struct lookup_stacks *s, const char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0;

	while (i < n) {
		size_t j = i;
		char esc[4] = { '\\', 'x', 0, 0 };
		int rc;

		while (j < n && p[j] != ';' && p[j] != '\\' && (unsigned char)p[j] >= 0x20 &&
		       p[j] != 0x7f)
			j++;
		if ((rc = put_raw(s, p + i, j - i)) < 0)
			return rc;
		if (j == n)
			break;
		esc[2] = hex[(unsigned char)p[j] >> 4];
		esc[3] = hex[(unsigned char)p[j] & 15];
		if ((rc = put_raw(s, esc, 4)) < 0)
			return rc;
		i = j + 1;
	}
	return 0;
}

static int put_str(struct lookup_stacks *s, const char *p)
{
	return put_name(s, p, strlen(p));
}

/* ";" then a Java frame: Class.method[:FILE:LINE][_[i]]. */
static int put_java(struct lookup_stacks *s, const struct lookup_frame *f, int inlined)
{
	char num[16];
	int rc = put_raw(s, ";", 1);

	if (rc == 0 && f->class_name[0])
		rc = put_str(s, f->class_name);
	if (rc == 0 && f->class_name[0])
		rc = put_raw(s, ".", 1);
	if (rc == 0)
		rc = put_str(s, f->method[0] ? f->method : f->name);
	if (rc == 0 && (s->flags & LOOKUP_STACKS_LINES) && (f->file[0] || f->line > 0)) {
		rc = put_raw(s, ":", 1);
		if (rc == 0)
			rc = put_str(s, f->file[0] ? f->file : "?");
		snprintf(num, sizeof(num), ":%d", f->line > 0 ? f->line : 0);
		if (rc == 0)
			rc = put_raw(s, num, strlen(num));
	}
	if (rc == 0 && inlined)
		rc = put_raw(s, "_[i]", 4);
	return rc;
}

/* The frames of a hit, root first: the compiled method, then what it inlined. */
static int put_hit(struct lookup_stacks *s, const struct lookup_hit *h)
{
	int rc = 0;

	if (h->sym.kind != LOOKUP_LOAD) {
		rc = put_raw(s, ";", 1);
		return rc ? rc : put_str(s, h->sym.name);
	}
	s->st.expanded += h->n_chain > 1 || h->n_inline > 0;
	if (h->n_chain) {
		for (size_t i = h->n_chain; i-- > 0 && rc == 0;)
			rc = put_java(s, &h->chain[i], i + 1 < h->n_chain);
		return rc;
	}
	rc = put_java(s, &h->sym, 0);
	for (size_t i = h->n_inline; i-- > 0 && rc == 0;)
		rc = put_java(s, &h->inlined[i], 1);
	return rc;
}

/* ---- one frame line -------------------------------------------------------- */

struct st_frame {
	uint64_t addr, off;
	int has_off;
	const char *sym, *dso;       /* NUL-terminated in the sample's buffer */
	size_t sym_len;              /* without "+0xOFF" */
};

static int parse_hex(const char *p, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (n == 0 || n > 16)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int d = p[i] >= '0' && p[i] <= '9' ? p[i] - '0' :
			p[i] >= 'a' && p[i] <= 'f' ? p[i] - 'a' + 10 : -1;

		if (d < 0)
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return 0;
}

/* "ADDR SYM+0xOFF (DSO)" (leading blanks gone) into f; 0 or -1. */
static int split_frame(char *p, struct st_frame *f)
{
	char *sp = strchr(p, ' '), *end = p + strlen(p), *open, *plus;

	if (!sp || parse_hex(p, (size_t)(sp - p), &f->addr) < 0)
		return -1;
	while (*sp == ' ')
		sp++;
	f->dso = "";
	if (end > sp && end[-1] == ')' && (open = strstr(sp, " (")) != NULL) {
		char *last = open;

		while ((open = strstr(open + 1, " (")) != NULL)
			last = open;
		end[-1] = '\0';
		*last = '\0';
		f->dso = last + 2;
		end = last;
	}
	f->sym = sp;
	f->sym_len = (size_t)(end - sp);
	f->has_off = 0;
	plus = strrchr(sp, '+');
	if (plus && plus[1] == '0' && plus[2] == 'x' &&
	    parse_hex(plus + 3, (size_t)(end - plus - 3), &f->off) == 0) {
		f->has_off = 1;
		f->sym_len = (size_t)(plus - sp);
	}
	return 0;
}

/* The journal id of a jitted-PID-ID.so of perf inject --jit, or -1. */
static int jitted_id(const char *dso, uint64_t *id)
{
	const char *b = strrchr(dso, '/'), *dash, *dot;
	uint64_t v = 0;

	b = b ? b + 1 : dso;
	if (strncmp(b, "jitted-", 7) != 0 || !(dash = strchr(b + 7, '-')) ||
	    !(dot = strstr(dash, ".so")) || dot[3] != '\0' || dot == dash + 1)
		return -1;
	for (const char *q = dash + 1; q < dot; q++) {
		if (*q < '0' || *q > '9' || v > UINT64_MAX / 10 - 1)
			return -1;
		v = v * 10 + (uint64_t)(*q - '0');
	}
	*id = v;
	return 0;
}

static int is_anon_jit(const char *dso)
{
	const char *b = strrchr(dso, '/');

	if (strcmp(dso, "[unknown]") == 0)
		return 1;
	b = b ? b + 1 : dso;
	return strncmp(b, "perf-", 5) == 0 && strlen(b) > 9 && strcmp(b + strlen(b) - 4, ".map") == 0;
}

/* The absolute address of a JIT frame into *addr: 1, or 0 when it is not one. */
static int jit_addr(struct lookup_stacks *s, const struct st_frame *f, uint64_t *addr)
{
	uint64_t id;
	uint32_t idx;

	if (jitted_id(f->dso, &id) == 0) {
		s->st.jit_frames++;
		/* a perf map's ids are its line numbers: perf's name is as good */
		if (s->lk->st.source != LOOKUP_SOURCE_JOURNAL)
			return 0;
		if (!f->has_off || !lk_map_get(&s->lk->by_id, id, &idx)) {
			s->st.unresolved++;
			return 0;
		}
		*addr = s->lk->ents[idx].start + f->off;
		return 1;
	}
	if (is_anon_jit(f->dso)) {
		s->st.jit_frames++;
		*addr = f->addr;
		return 1;
	}
	return 0;
}

static int put_frame(struct lookup_stacks *s, char *text)
{
	struct st_frame f = { 0 };
	struct lookup_hit hit;
	uint64_t addr;
	int rc;

	if (split_frame(text, &f) < 0) {
		s->st.bad_lines++;
		return 0;
	}
	if (jit_addr(s, &f, &addr)) {
		rc = lookup_find(s->lk, addr, &hit);
		if (rc < 0)
			return rc;
		if (rc == 1)
			return put_hit(s, &hit);
		s->st.unresolved++;
	}
	rc = put_raw(s, ";", 1);
	return rc ? rc : put_name(s, f.sym, f.sym_len);
}

/* ---- the table of stacks --------------------------------------------------- */

static uint64_t hash_of(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
	return h;
}

static int rehash(struct lookup_stacks *s)
{
	size_t n = s->n_slot ? s->n_slot * 2 : 1024;
	uint32_t *t = calloc(n, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < s->n_it; i++) {
		size_t k = s->it[i].hash & (n - 1);

		while (t[k])
			k = (k + 1) & (n - 1);
		t[k] = (uint32_t)(i + 1);
	}
	free(s->slot);
	s->slot = t;
	s->n_slot = n;
	return 0;
}

static int count_line(struct lookup_stacks *s)
{
	uint64_t h = hash_of(s->line, s->line_len);
	size_t k;

	if ((s->n_it + 1) * 2 > s->n_slot && rehash(s) < 0)
		return -ENOMEM;
	for (k = h & (s->n_slot - 1); s->slot[k]; k = (k + 1) & (s->n_slot - 1)) {
		struct st_item *it = &s->it[s->slot[k] - 1];

		if (it->hash == h && it->len == s->line_len &&
		    memcmp(s->text + it->off, s->line, it->len) == 0) {
			it->count++;
			return 0;
		}
	}
	if (s->text_len + s->line_len > ST_MAX_BYTES || s->n_it >= UINT32_MAX - 1)
		return -E2BIG;
	if (lk_grow((void **)&s->it, &s->cap_it, s->n_it + 1, sizeof(*s->it)) < 0 ||
	    lk_grow((void **)&s->text, &s->text_cap, s->text_len + s->line_len, 1) < 0)
		return -ENOMEM;
	memcpy(s->text + s->text_len, s->line, s->line_len);
	s->it[s->n_it] = (struct st_item){ h, 1, s->text_len, s->line_len };
	s->text_len += s->line_len;
	s->slot[k] = (uint32_t)++s->n_it;
	return 0;
}

/* ---- samples ---------------------------------------------------------------- */

/* The sample read so far, folded root first, and counted. */
static int end_sample(struct lookup_stacks *s)
{
	int rc;

	if (!s->in_sample)
		return 0;
	s->in_sample = 0;
	s->line_len = 0;
	rc = put_str(s, s->comm);
	for (size_t i = s->n_fr; i-- > 0 && rc == 0;)
		rc = put_frame(s, s->fr + s->fr_off[i]);
	if (rc == 0)
		rc = count_line(s);
	if (rc == 0)
		s->st.samples++;
	return rc;
}

/* COMM of a header line: the text before the first all-digit word (PID or PID/TID). */
static int start_sample(struct lookup_stacks *s, const char *p, size_t n)
{
	size_t end = 0, i = 0;

	while (i < n) {
		size_t j = i, digits = 0;

		while (j < n && p[j] != ' ' && p[j] != '\t') {
			digits += (p[j] >= '0' && p[j] <= '9') || (p[j] == '/' && j > i);
			j++;
		}
		if (j > i && digits == j - i && i > 0)
			break;
		end = j;
		while (j < n && (p[j] == ' ' || p[j] == '\t'))
			j++;
		i = j;
	}
	if (lk_grow((void **)&s->comm, &s->comm_cap, end + 1, 1) < 0)
		return -ENOMEM;
	memcpy(s->comm, p, end);
	s->comm[end] = '\0';
	s->n_fr = 0;
	s->fr_len = 0;
	s->in_sample = 1;
	return 0;
}

static int add_frame(struct lookup_stacks *s, const char *p, size_t n)
{
	if (s->fr_len + n + 1 > ST_MAX_STACK)
		return 0;    /* deeper than a folded line may be: the rest is dropped */
	if (lk_grow((void **)&s->fr, &s->fr_cap, s->fr_len + n + 1, 1) < 0 ||
	    lk_grow((void **)&s->fr_off, &s->cap_fr_off, s->n_fr + 1, sizeof(size_t)) < 0)
		return -ENOMEM;
	memcpy(s->fr + s->fr_len, p, n);
	s->fr[s->fr_len + n] = '\0';
	s->fr_off[s->n_fr++] = s->fr_len;
	s->fr_len += n + 1;
	return 0;
}

int lookup_stacks_line(struct lookup_stacks *s, const char *p, size_t n)
{
	int rc;

	while (n && (p[n - 1] == '\n' || p[n - 1] == '\r'))
		n--;
	if (memchr(p, '\0', n)) {
		s->st.bad_lines++;
		return 0;
	}
	if (n == 0)
		return end_sample(s);
	if (p[0] != ' ' && p[0] != '\t') {
		if ((rc = end_sample(s)) < 0)
			return rc;
		return start_sample(s, p, n);
	}
	while (n && (*p == ' ' || *p == '\t'))
		p++, n--;
	if (!s->in_sample) {
		s->st.bad_lines++;
		return 0;
	}
	return add_frame(s, p, n);
}

int lookup_stacks_end(struct lookup_stacks *s)
{
	return end_sample(s);
}

int lookup_stacks_each(const struct lookup_stacks *s,
		       int (*fn)(void *arg, const char *stack, size_t len, uint64_t count),
		       void *arg)
{
	for (size_t i = 0; i < s->n_it; i++) {
		int rc = fn(arg, s->text + s->it[i].off, s->it[i].len, s->it[i].count);

		if (rc)
			return rc;
	}
	return 0;
}
