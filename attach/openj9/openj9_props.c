/* SPDX-License-Identifier: Apache-2.0 */
/*
 * openj9_props.c - java.util.Properties.load() syntax, for attachInfo and
 * for the properties OpenJ9 sends back (system, agent and diagnostics).
 *
 * Input is hostile (a file in the target's /tmp, bytes from the target), so
 * the parser never reads past len, treats NUL as data, bounds the entry
 * count, and maps every byte (ISO-8859-1) or \uXXXX escape to UTF-8.  A NUL
 * code point becomes '?' so a C string can never end early (a processId of
 * "1\u00002" must not read as "1").  Malformed \u escapes keep their text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hexdigit.h"
#include "openj9.h"
#include "openj9_int.h"

struct pbuf {
	char *s;
	size_t len, cap;
};

static int pbuf_put(struct pbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->s, cap);
		if (!p)
			return -ENOMEM;
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

/* Append code point cp (< 0x10000) as UTF-8. */
static int pbuf_put_cp(struct pbuf *b, unsigned cp)
{
	char u[3];

	if (cp == 0)
		return pbuf_put(b, "?", 1);
	if (cp < 0x80) {
		u[0] = (char)cp;
		return pbuf_put(b, u, 1);
	}
	if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		return pbuf_put(b, u, 2);
	}
	u[0] = (char)(0xe0 | (cp >> 12));
	u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
	u[2] = (char)(0x80 | (cp & 0x3f));
	return pbuf_put(b, u, 3);
}

static bool is_blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\f';
}

static bool is_eol(unsigned char c)
{
	return c == '\n' || c == '\r';
}

/* Decode escapes of s[0..n) into a fresh string (*out). */
static int unescape(const unsigned char *s, size_t n, char **out)
{
	struct pbuf b = { 0 };
	size_t i = 0;
	int rc = pbuf_put(&b, "", 0);

	while (rc == 0 && i < n) {
		unsigned char c = s[i++];
		unsigned cp = c;

		if (c == '\\' && i < n) {
			c = s[i++];
			cp = c;
			if (c == 't')
				cp = '\t';
			else if (c == 'n')
				cp = '\n';
			else if (c == 'r')
				cp = '\r';
			else if (c == 'f')
				cp = '\f';
			else if (c == 'u') {
				int k, v = 0;

				for (k = 0; k < 4 && i + k < n && hex_digit(s[i + k]) >= 0; k++)
					v = v * 16 + hex_digit(s[i + k]);
				if (k == 4) {
					cp = (unsigned)v;
					i += 4;
				}
			}
		}
		rc = pbuf_put_cp(&b, cp);
	}
	if (rc) {
		free(b.s);
		return rc;
	}
	*out = b.s;
	return 0;
}

/*
 * Collect the next logical line starting at *pos: leading blanks skipped,
 * comment and blank lines skipped, continuation lines (odd number of
 * trailing backslashes) joined with the next line's leading blanks dropped.
 * Returns 1 with the line in *b, 0 at the end, -ENOMEM.
 */
static int next_line(const unsigned char *buf, size_t len, size_t *pos, struct pbuf *b)
{
	size_t i = *pos;

	b->len = 0;
	for (;;) {
		while (i < len && (is_blank(buf[i]) || is_eol(buf[i])))
			i++;
		if (i >= len) {
			*pos = i;
			return 0;
		}
		if (buf[i] != '#' && buf[i] != '!')
			break;
		while (i < len && !is_eol(buf[i]))
			i++;
	}
	for (;;) {
		size_t start = i, slashes = 0, end;
		int rc;

		while (i < len && !is_eol(buf[i]))
			i++;
		end = i;
		if (i < len && buf[i] == '\r') {
			i++;
			if (i < len && buf[i] == '\n')
				i++;
		} else if (i < len) {
			i++;
		}
		while (slashes < end - start && buf[end - 1 - slashes] == '\\')
			slashes++;
		if (slashes % 2 == 0) {
			rc = pbuf_put(b, (const char *)buf + start, end - start);
			if (rc)
				return rc;
			break;
		}
		rc = pbuf_put(b, (const char *)buf + start, end - start - 1);
		if (rc)
			return rc;
		if (i >= len)
			break;
		while (i < len && is_blank(buf[i]))
			i++;
	}
	*pos = i;
	return 1;
}

static int props_set(struct openj9_props *p, char *key, char *val)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		if (strcmp(p->key[i], key) == 0) {
			free(p->val[i]);
			free(key);
			p->val[i] = val;
			return 0;
		}
	}
	if (p->n >= OPENJ9_PROPS_MAX) { /* bounded: drop the rest */
		free(key);
		free(val);
		return 0;
	}
	p->key[p->n] = key;
	p->val[p->n] = val;
	p->n++;
	return 0;
}

/* Split one logical line into key and value, both unescaped. */
static int parse_entry(struct openj9_props *p, const unsigned char *l, size_t n)
{
	size_t k = 0, v;
	bool escaped = false;
	char *key = NULL, *val = NULL;

	while (k < n) {
		unsigned char c = l[k];

		if (!escaped && (c == '=' || c == ':' || is_blank(c)))
			break;
		escaped = !escaped && c == '\\';
		k++;
	}
	v = k;
	while (v < n && is_blank(l[v]))
		v++;
	if (v < n && (l[v] == '=' || l[v] == ':')) {
		v++;
	}
	while (v < n && is_blank(l[v]))
		v++;
	if (unescape(l, k, &key) || unescape(l + v, n - v, &val)) {
		free(key);
		free(val);
		return -ENOMEM;
	}
	return props_set(p, key, val);
}

int openj9_props_parse(struct openj9_props *p, const char *buf, size_t len)
{
	const unsigned char *u = (const unsigned char *)buf;
	struct pbuf line = { 0 };
	size_t pos = 0;
	int rc;

	memset(p, 0, sizeof(*p));
	while ((rc = next_line(u, len, &pos, &line)) == 1) {
		rc = parse_entry(p, (const unsigned char *)line.s, line.len);
		if (rc)
			break;
	}
	free(line.s);
	if (rc < 0) {
		openj9_props_free(p);
		return rc;
	}
	return 0;
}

const char *openj9_props_get(const struct openj9_props *p, const char *key)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (strcmp(p->key[i], key) == 0)
			return p->val[i];
	return NULL;
}

void openj9_props_free(struct openj9_props *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->key[i]);
		free(p->val[i]);
	}
	p->n = 0;
}
