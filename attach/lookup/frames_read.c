/* SPDX-License-Identifier: Apache-2.0 */
/*
 * frames_read.c - the tables of a JF_FRAMES record (journal_read.h,
 * journal_format.h).  The record comes from a JVM we do not trust: every
 * count and index is checked against the record before anything uses it.
 */
#include <errno.h>

#include "journal_read.h"

int jr_frames_method(const struct jr_frames *f, size_t *pos, struct jr_str out[5])
{
	const unsigned char *p = f->methods + *pos;
	size_t left = f->methods_len - *pos, need = JF_FRAMES_METHOD_FIXED;

	if (left < JF_FRAMES_METHOD_FIXED)
		return -EBADMSG;
	for (int k = 0; k < 5; k++)
		need += jf_get16(p + 2 * k);
	if (need > left)
		return -EBADMSG;
	p += JF_FRAMES_METHOD_FIXED;
	for (int k = 0; k < 5; k++) {
		out[k].p = (const char *)p;
		out[k].len = jf_get16(f->methods + *pos + 2 * k);
		p += out[k].len;
	}
	*pos += need;
	return 0;
}

int jr_frames_parse(const unsigned char *b, size_t len, struct jr_frames *f)
{
	uint64_t tables, sum = 0;
	struct jr_str s[5];
	size_t pos = 0;

	if (len < JF_FRAMES_FIXED)
		return -EBADMSG;
	f->id = jf_get64(b);
	f->code_start = jf_get64(b + 8);
	f->n_ranges = jf_get32(b + 16);
	f->n_frames = jf_get32(b + 20);
	f->n_methods = jf_get32(b + 24);
	f->flags = jf_get32(b + 28);
	tables = (uint64_t)f->n_ranges * JF_FRAMES_RANGE + (uint64_t)f->n_frames * JF_FRAMES_FRAME;
	if (tables > len - JF_FRAMES_FIXED || f->n_methods == 0 || f->n_methods > 0xffff)
		return -EBADMSG;
	f->ranges = b + JF_FRAMES_FIXED;
	f->frames = f->ranges + (size_t)f->n_ranges * JF_FRAMES_RANGE;
	f->methods = f->frames + (size_t)f->n_frames * JF_FRAMES_FRAME;
	f->methods_len = len - JF_FRAMES_FIXED - (size_t)tables;
	for (uint32_t i = 0; i < f->n_ranges; i++) {
		uint16_t depth = jf_get16(f->ranges + (size_t)i * JF_FRAMES_RANGE + 8);

		if (depth == 0)
			return -EBADMSG;
		sum += depth;
	}
	if (sum != f->n_frames)
		return -EBADMSG;
	for (uint32_t i = 0; i < f->n_frames; i++)
		if (jf_get16(f->frames + (size_t)i * JF_FRAMES_FRAME) >= f->n_methods)
			return -EBADMSG;
	for (uint32_t i = 0; i < f->n_methods; i++)
		if (jr_frames_method(f, &pos, s) < 0)
			return -EBADMSG;
	return 0;
}
