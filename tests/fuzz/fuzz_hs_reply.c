/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_hs_reply.c - libFuzzer harness: hostile JVM replies through the
 * HotSpot reply parsers, and arbitrary NUL-separated words through the v1/v2
 * request encoders (whose output is checked against the size rule).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_reply(const char *buf, size_t size)
{
	struct attach_reply r;

	for (int load = 0; load < 2; load++) {
		if (hs_parse_reply(buf, size, load, &r) != 0)
			continue;
		if (!memchr(r.message, '\0', sizeof(r.message)))
			abort();
		if (r.agent_code_known && (!load || r.failed))
			abort();
	}
}

/* Split the input at NULs into a name and arguments, encode both ways. */
static void check_encoders(const char *buf, size_t size)
{
	static char out[HS_V2_BODY_MAX + 64];
	const char *args[64];
	char *copy = malloc(size + 1);
	char *p, *end;
	int nargs = 0, n;

	if (!copy)
		return;
	memcpy(copy, buf, size);
	copy[size] = '\0';
	p = copy;
	end = copy + size;
	while (p < end && nargs < 64) {
		args[nargs++] = p;
		p += strlen(p) + 1;
	}
	if (nargs > 0) {
		n = hs_encode_v1(out, sizeof(out), args[0], args + 1, nargs - 1);
		if (n > 0 && (out[0] != '1' || out[1] != '\0' || out[n - 1] != '\0'))
			abort();
		n = hs_encode_v2(out, sizeof(out), args[0], args + 1, nargs - 1);
		if (n > 0) {
			size_t hdr = 2 + strlen(out + 2) + 1;
			unsigned long body = strtoul(out + 2, NULL, 10);

			if (body != (unsigned long)n - hdr || body > HS_V2_BODY_MAX)
				abort();
		}
	}
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	bool streaming;
	int code;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	check_reply(buf, size);
	(void)hs_parse_getversion(buf, size, &streaming);
	(void)hs_parse_code(buf, size, &code);
	check_encoders(buf, size);
	free(buf);
	return 0;
}
