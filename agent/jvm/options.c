/* SPDX-License-Identifier: Apache-2.0 */
/*
 * options.c - parse the agent option string.
 */
#include "options.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The options that are no output's; the outputs' follow, from the table. */
#define KNOWN "known: dir=PATH, unfold, lines, verbose, stop, nounwind, flush_ms=N"

const struct options_output options_journal = {
	.max_key = "journal_max",
	.max_at = offsetof(struct agent_opts, journal_max),
	.max_default = AGENT_JOURNAL_MAX_DEFAULT,
};
const struct options_output options_jitdump = {
	.on_key = "jitdump",
	.on_at = offsetof(struct agent_opts, jitdump),
	.max_key = "jitdump_max",
	.max_at = offsetof(struct agent_opts, jitdump_max),
	.max_default = AGENT_JITDUMP_MAX_DEFAULT,
};
const struct options_output *const options_outputs[] = { &options_journal, &options_jitdump };
const size_t options_n_outputs = sizeof(options_outputs) / sizeof(options_outputs[0]);

static bool *on_of(struct agent_opts *o, const struct options_output *r)
{
	return (bool *)((char *)o + r->on_at);
}

static unsigned long long *max_of(struct agent_opts *o, const struct options_output *r)
{
	return (unsigned long long *)((char *)o + r->max_at);
}

void options_defaults(struct agent_opts *o)
{
	memset(o, 0, sizeof(*o));
	strcpy(o->dir, "/tmp");
	o->flush_ms = 100;
	for (size_t i = 0; i < options_n_outputs; i++)
		if (options_outputs[i]->max_key)
			*max_of(o, options_outputs[i]) = options_outputs[i]->max_default;
}

/* SIZE: digits with an optional k, m or g (powers of 1024), 0 or
 * AGENT_JOURNAL_MAX_MIN..AGENT_JOURNAL_MAX_MAX.  0 or -1. */
static int parse_size(const char *val, size_t vlen, unsigned long long *out)
{
	unsigned long long v = 0, mult = 1;
	size_t i;

	for (i = 0; i < vlen && val[i] >= '0' && val[i] <= '9'; i++) {
		if (v > AGENT_JOURNAL_MAX_MAX)
			return -1;
		v = v * 10 + (unsigned long long)(val[i] - '0');
	}
	if (i == 0)
		return -1;
	if (i + 1 == vlen) {
		switch (val[i]) {
		case 'k': case 'K': mult = 1ull << 10; break;
		case 'm': case 'M': mult = 1ull << 20; break;
		case 'g': case 'G': mult = 1ull << 30; break;
		default: return -1;
		}
	} else if (i != vlen) {
		return -1;
	}
	if (v > AGENT_JOURNAL_MAX_MAX / mult)
		return -1;
	v *= mult;
	if (v != 0 && (v < AGENT_JOURNAL_MAX_MIN || v > AGENT_JOURNAL_MAX_MAX))
		return -1;
	*out = v;
	return 0;
}

static int fail(struct err_text *why, const char *what, const char *tok, size_t toklen)
{
	char known[256];
	size_t n = strlen(KNOWN);

	memcpy(known, KNOWN, n + 1);
	for (size_t i = 0; i < options_n_outputs; i++) {
		const struct options_output *r = options_outputs[i];

		if (r->on_key && n < sizeof(known))
			n += (size_t)snprintf(known + n, sizeof(known) - n, ", %s", r->on_key);
		if (r->max_key && n < sizeof(known))
			n += (size_t)snprintf(known + n, sizeof(known) - n, ", %s=SIZE", r->max_key);
	}
	return err_set(why, -EINVAL, "%s '%.*s' (%s)", what,
		       (int)(toklen > 200 ? 200 : toklen), tok, known);
}

/* tok[0..len) when its key (tok[0..klen)) is an output's flag or size cap
 * (options_outputs[]): 0 or -EINVAL; 1 when it is none of the table's. */
static int parse_output_key(const char *tok, size_t len, size_t klen, struct agent_opts *o,
			    struct err_text *why)
{
	const char *val = klen < len ? tok + klen + 1 : NULL;

	for (size_t i = 0; i < options_n_outputs; i++) {
		const struct options_output *r = options_outputs[i];

		if (r->on_key && strlen(r->on_key) == klen && !memcmp(tok, r->on_key, klen)) {
			if (val)
				return fail(why, "option takes no value:", tok, len);
			*on_of(o, r) = true;
			return 0;
		}
		if (r->max_key && strlen(r->max_key) == klen && !memcmp(tok, r->max_key, klen)) {
			char what[96];

			if (val && parse_size(val, len - klen - 1, max_of(o, r)) == 0)
				return 0;
			snprintf(what, sizeof(what), "%s needs 0 or a size 64k..1g (bytes, "
				 "k/m/g suffix):", r->max_key);
			return fail(why, what, tok, len);
		}
	}
	return 1;
}

static int parse_one(const char *tok, size_t len, struct agent_opts *o, struct err_text *why)
{
	const char *eq = memchr(tok, '=', len);
	size_t klen = eq ? (size_t)(eq - tok) : len;
	const char *val = eq ? eq + 1 : NULL;
	size_t vlen = eq ? len - klen - 1 : 0;
	int rc = parse_output_key(tok, len, klen, o, why);

	if (rc <= 0)
		return rc;
#define KEY(k) (klen == sizeof(k) - 1 && memcmp(tok, k, klen) == 0)
	if (KEY("unfold") || KEY("lines") || KEY("verbose") || KEY("stop") || KEY("nounwind")) {
		if (eq)
			return fail(why, "option takes no value:", tok, len);
		if (KEY("unfold"))
			o->unfold = true;
		else if (KEY("lines"))
			o->lines = o->unfold = true;
		else if (KEY("verbose"))
			o->verbose = true;
		else if (KEY("nounwind"))
			o->nounwind = true;
		else
			o->stop = true;
		return 0;
	}
	if (KEY("dir")) {
		if (!eq || vlen == 0 || val[0] != '/')
			return fail(why, "dir needs an absolute path:", tok, len);
		if (vlen >= sizeof(o->dir))
			return fail(why, "dir path too long:", tok, len);
		memcpy(o->dir, val, vlen);
		o->dir[vlen] = '\0';
		return 0;
	}
	if (KEY("flush_ms")) {
		char num[16];
		char *end;
		unsigned long v;

		if (!eq || vlen == 0 || vlen >= sizeof(num))
			return fail(why, "flush_ms needs a number 1..60000:", tok, len);
		memcpy(num, val, vlen);
		num[vlen] = '\0';
		errno = 0;
		v = strtoul(num, &end, 10);
		if (errno || *end || num[0] < '0' || num[0] > '9' || v < 1 || v > 60000)
			return fail(why, "flush_ms needs a number 1..60000:", tok, len);
		o->flush_ms = (unsigned)v;
		return 0;
	}
#undef KEY
	return fail(why, "unknown option", tok, len);
}

int options_parse(const char *s, struct agent_opts *o, struct err_text *why)
{
	options_defaults(o);
	if (why)
		why->msg[0] = '\0';
	if (!s)
		return 0;
	while (*s) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);

		if (len > 0) {
			int rc = parse_one(s, len, o, why);

			if (rc < 0)
				return rc;
		}
		s += len;
		if (*s == ',')
			s++;
	}
	return 0;
}
