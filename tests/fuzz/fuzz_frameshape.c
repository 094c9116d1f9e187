/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_frameshape.c - libFuzzer harness: the unwinding rows of any code.
 *
 * The agent reads the instructions of every compiled method and stub to
 * find its prologue and epilogues (agent/jvm/frameshape.c) and encodes the
 * rows as .eh_frame (agent/format/ehframe.c).  Whatever the bytes, the
 * frame size and the frame-complete offset: the scan must stay inside the
 * code, give rows in increasing order inside it, and those rows must
 * encode within EHFRAME_MAX_BYTES, for both architectures, whole or
 * folded.
 *
 * Input: u8 arch and kind, u16 frame words, i16 frame-complete offset,
 * then the code (copied to a buffer of its exact size, so ASan sees a read
 * past it).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ehframe.h"
#include "frameshape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ehframe_row rows[EHFRAME_MAX_ROWS];
	struct frameshape_found found;
	struct frameshape_in in;
	struct ehframe_sizes sz;
	unsigned char out[EHFRAME_MAX_BYTES];
	unsigned char *code;
	int16_t fc;
	int n, len;

	if (size < 6 || size - 5 > (1u << 16))
		return 0;
	memcpy(&fc, data + 3, 2);
	in = (struct frameshape_in){
		.arch = (data[0] & 1) ? EHFRAME_AARCH64 : EHFRAME_X86_64,
		.kind = (enum frameshape_kind)((data[0] >> 1) % 3),
		.frame_words = (uint32_t)data[1] | (uint32_t)data[2] << 8,
		.frame_complete = fc,
		.size = size - 5,
	};
	code = malloc(in.size);
	if (!code)
		return 0;
	memcpy(code, data + 5, in.size);
	in.code = code;
	n = frameshape_rows(&in, rows, EHFRAME_MAX_ROWS, &found);
	if (n > 0) {
		for (int i = 0; i < n; i++) {
			if (rows[i].off >= in.size || (i && rows[i].off <= rows[i - 1].off))
				abort();
		}
		if (in.arch == EHFRAME_AARCH64)
			for (int i = 0; i < n; i++)
				if (rows[i].off % 4)
					goto done;     /* a frame of odd size: refused below */
		len = ehframe_build(in.arch, in.size, in.size, rows, (size_t)n, out, sizeof(out), &sz);
		if (len < 0 && in.frame_words <= (1u << 16))
			abort();
		len = ehframe_build(in.arch, in.size, 1 + in.size / 2, rows, (size_t)n, out,
				    sizeof(out), &sz);
		if (len > 0 && (size_t)len != sz.eh_frame_size + sz.hdr_size)
			abort();
	}
done:
	free(code);
	return 0;
}
