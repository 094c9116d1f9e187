/* SPDX-License-Identifier: Apache-2.0 */
/* hs_reply.c - HotSpot request encoders and reply parsers (see hs_reply.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "hs_reply.h"

/* Append n bytes plus a NUL at *pos; false when buf is too small. */
static bool put_str(char *buf, size_t cap, size_t *pos, const char *s, size_t n)
{
	if (cap - *pos < n + 1)
		return false;
	memcpy(buf + *pos, s, n);
	buf[*pos + n] = '\0';
	*pos += n + 1;
	return true;
}

int hs_v1_check(const char *name, const char *const *args, int nargs)
{
	size_t n = name ? strlen(name) : 0;

	if (n == 0 || n > HS_V1_NAME_MAX)
		return -ENAMETOOLONG;
	if (nargs < 0 || nargs > HS_V1_NARGS)
		return -E2BIG;
	for (int i = 0; i < nargs; i++)
		if (strlen(args[i]) > HS_V1_ARG_MAX)
			return -EMSGSIZE;
	return 0;
}

int hs_encode_v1(char *buf, size_t cap, const char *name,
		 const char *const *args, int nargs)
{
	size_t pos = 0;
	int err = hs_v1_check(name, args, nargs);

	if (err)
		return err;
	if (!put_str(buf, cap, &pos, "1", 1) ||
	    !put_str(buf, cap, &pos, name, strlen(name)))
		return -ENOBUFS;
	for (int i = 0; i < HS_V1_NARGS; i++) {
		const char *a = i < nargs ? args[i] : "";

		if (!put_str(buf, cap, &pos, a, strlen(a)))
			return -ENOBUFS;
	}
	return (int)pos;
}

int hs_encode_v2(char *buf, size_t cap, const char *name,
		 const char *const *args, int nargs)
{
	size_t body = 0, pos = 0;
	char size[16];
	int sn;

	if (!name || !*name)
		return -ENAMETOOLONG;
	if (nargs < 0)
		return -EINVAL;
	body = strlen(name) + 1;
	for (int i = 0; i < nargs; i++) {
		body += strlen(args[i]) + 1;
		if (body > HS_V2_BODY_MAX)
			return -EMSGSIZE;
	}
	if (body > HS_V2_BODY_MAX)
		return -EMSGSIZE;
	sn = snprintf(size, sizeof(size), "%zu", body);
	if (!put_str(buf, cap, &pos, "2", 1) ||
	    !put_str(buf, cap, &pos, size, (size_t)sn) ||
	    !put_str(buf, cap, &pos, name, strlen(name)))
		return -ENOBUFS;
	for (int i = 0; i < nargs; i++)
		if (!put_str(buf, cap, &pos, args[i], strlen(args[i])))
			return -ENOBUFS;
	return (int)pos;
}

int hs_parse_code(const char *line, size_t len, int *code)
{
	long long v = 0;
	size_t i = 0;
	bool neg = false;

	if (!line || !code)
		return -EINVAL;
	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (i < len && line[i] == '-') {
		neg = true;
		i++;
	}
	if (i == len)
		return -EPROTO;
	for (; i < len; i++) {
		if (line[i] < '0' || line[i] > '9')
			return -EPROTO;
		v = v * 10 + (line[i] - '0');
		if (v > (long long)INT_MAX + 1)
			return -EPROTO;
	}
	if (neg)
		v = -v;
	if (v > INT_MAX || v < INT_MIN)
		return -EPROTO;
	*code = (int)v;
	return 0;
}

/* Keep the first bytes of the body as a printable one-or-more-line text. */
static void keep_message(struct attach_reply *r, const char *body, size_t len)
{
	size_t n = len < sizeof(r->message) - 1 ? len : sizeof(r->message) - 1;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)body[i];

		r->message[i] = (c < 0x20 && c != '\n' && c != '\t') ? '?' : (char)c;
	}
	while (n > 0 && (r->message[n - 1] == '\n' || r->message[n - 1] == ' '))
		n--;
	r->message[n] = '\0';
}

/* `return code: N` or a bare `N` as the only content of the first line. */
static bool agent_result(const char *body, size_t len, int *n)
{
	const char *nl = memchr(body, '\n', len);
	size_t l = nl ? (size_t)(nl - body) : len;
	static const char rc[] = "return code: ";

	if (l >= sizeof(rc) - 1 && memcmp(body, rc, sizeof(rc) - 1) == 0)
		return hs_parse_code(body + sizeof(rc) - 1, l - (sizeof(rc) - 1),
				     n) == 0;
	/* 8u sends the bare number; ignore anything after its line only if
	 * nothing but blank space follows (a real error text has words) */
	if (hs_parse_code(body, l, n) != 0)
		return false;
	for (size_t i = l; i < len; i++)
		if (body[i] != '\n' && body[i] != ' ' && body[i] != '\r')
			return false;
	return true;
}

void hs_reply_judge(int code, const char *body, size_t len, bool is_load,
		    struct attach_reply *r)
{
	memset(r, 0, sizeof(*r));
	r->vm_code = code;
	if (code != 0) {
		r->failed = true;
		keep_message(r, body, len);
		if (code == ATTACH_HS_NO_PROTOCOL && r->message[0] == '\0')
			snprintf(r->message, sizeof(r->message),
				 "protocol version not supported");
		return;
	}
	if (!is_load)
		return;
	if (len > 0 && agent_result(body, len, &r->agent_code)) {
		r->agent_code_known = true;
		return;
	}
	/* JDK 21+: 0 followed by the reason the library did not load */
	r->failed = true;
	keep_message(r, body, len);
	if (r->message[0] == '\0')
		snprintf(r->message, sizeof(r->message),
			 "the JVM sent no agent result");
}

int hs_parse_reply(const char *buf, size_t len, bool is_load,
		   struct attach_reply *r)
{
	const char *nl;
	size_t l;
	int code;

	if (!buf || !r)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	if (len == 0)
		return -EPROTO;
	nl = memchr(buf, '\n', len);
	l = nl ? (size_t)(nl - buf) : len;
	if (hs_parse_code(buf, l, &code) != 0)
		return -EPROTO;
	if (nl)
		hs_reply_judge(code, nl + 1, len - l - 1, is_load, r);
	else
		hs_reply_judge(code, "", 0, is_load, r);
	return 0;
}

int hs_parse_getversion(const char *body, size_t len, bool *streaming)
{
	size_t i = 0;
	int v = 0;

	if (!body || !streaming)
		return -EINVAL;
	*streaming = false;
	while (i < len && body[i] >= '0' && body[i] <= '9') {
		v = v * 10 + (body[i] - '0');
		if (v > 1000)
			return -EPROTO;
		i++;
	}
	if (i == 0 || v < 1)
		return -EPROTO;
	/* options: blank-separated words on the same line */
	while (i < len && body[i] != '\n') {
		size_t w;

		while (i < len && (body[i] == ' ' || body[i] == ','))
			i++;
		w = i;
		while (i < len && body[i] != ' ' && body[i] != ',' &&
		       body[i] != '\n')
			i++;
		if (i - w == 9 && memcmp(body + w, "streaming", 9) == 0)
			*streaming = true;
	}
	return v;
}
