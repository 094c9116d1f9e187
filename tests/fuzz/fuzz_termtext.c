/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_termtext.c - libFuzzer harness: hostile bytes through term_escape
 * (attach/base/termtext.c).  The output must hold no byte a terminal would
 * act on (C0, DEL, C1, invalid UTF-8), fit its buffer, and not change when
 * escaped again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size ? size : 1);
	size_t cap = size ? (size_t)data[0] + 1 : 1, n;
	char *out = malloc(cap), *again = malloc(cap);

	if (!in || !out || !again)
		abort();
	memcpy(in, data, size);
	term_escape(out, cap, in, size, 0);
	n = strlen(out);
	if (n >= cap)
		abort();
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)out[i];

		if (c < 0x20 || c == 0x7f)
			abort();
		if (c == 0xc2 && i + 1 < n && (unsigned char)out[i + 1] < 0xa0)
			abort();
	}
	term_escape(again, cap, out, n, 0);
	if (strcmp(again, out) != 0)
		abort();
	free(in);
	free(out);
	free(again);
	return 0;
}
