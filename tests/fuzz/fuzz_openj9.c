/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_openj9.c - libFuzzer harness for what the OpenJ9 client parses from
 * a hostile target: attachInfo / properties text, replies (load, data,
 * diagnostics), the ATTACH_CONNECTED greeting, message framing, and the
 * command translation of arbitrary argv.
 *
 * Byte 0 picks the target, the rest is the input.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "openj9.h"
#include "openj9_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_props(const char *s, size_t n)
{
	struct openj9_props p;
	size_t i;

	if (openj9_props_parse(&p, s, n) != 0)
		return;
	for (i = 0; i < p.n; i++) /* every string must be a valid C string */
		if (strlen(p.key[i]) + strlen(p.val[i]) > 6 * n + 2)
			abort();
	(void)openj9_props_get(&p, "processId");
	openj9_props_free(&p);
}

static void fuzz_reply(const char *s, size_t n, uint8_t flags)
{
	struct attach_reply r;
	char *text;
	size_t tl;

	if (openj9_map_reply(s, n, flags & 1, flags & 2, &r, &text, &tl) != 0)
		return;
	if (memchr(r.message, '\0', sizeof(r.message)) == NULL)
		abort();
	if (text && strlen(text) > tl)
		abort();
	free(text);
}

/* Feed the input as chunks whose sizes come from the data itself. */
static void fuzz_framing(const uint8_t *d, size_t n)
{
	size_t off = 0, total = 0;

	while (off < n) {
		size_t c = 1 + d[off] % 64;

		off++;
		if (c > n - off)
			c = n - off;
		total += c;
		if (openj9_frame_done((const char *)d + off, c, total, 256) != 0)
			return;
		off += c;
	}
}

static void fuzz_translate(const char *s, size_t n)
{
	const char *argv[16];
	char *copy = malloc(n + 1), out[512];
	struct err_text err;
	bool load, diag;
	int argc = 0;
	size_t i = 0;

	if (!copy)
		return;
	memcpy(copy, s, n);
	copy[n] = '\0';
	while (i <= n && argc < 16) { /* NUL-separated words */
		argv[argc++] = copy + i;
		i += strlen(copy + i) + 1;
	}
	if (openj9_translate(argc, argv, out, sizeof(out), &load, &diag, &err) == 0 &&
	    strlen(out) >= sizeof(out))
		abort();
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data + 1;
	size_t n = size ? size - 1 : 0;

	if (size == 0)
		return 0;
	switch (data[0] % 5) {
	case 0:
		fuzz_props(s, n);
		break;
	case 1:
		fuzz_reply(s, n, data[0] / 5);
		break;
	case 2:
		fuzz_framing(data + 1, n);
		break;
	case 3:
		(void)openj9_check_connected(s, n, "0123456789abcdef");
		break;
	default:
		fuzz_translate(s, n);
		break;
	}
	return 0;
}
