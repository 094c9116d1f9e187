/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bbuf.c - growable byte buffer with a limit, and a write-everything helper.
 */
#include "bbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wholeio.h"

/* The longest the flush thread waits for room in a full fd (a pipe or a
 * device; the agent's files are regular and never full) before it gives
 * the bytes up: it must never hang. */
#define WRITE_WAIT_MS 100

unsigned char *bbuf_reserve(struct bbuf *b, size_t n, int *err)
{
	size_t need = b->len + n;
	size_t cap;
	unsigned char *p;

	if (need < b->len) {
		*err = -ENOMEM;
		return NULL;
	}
	if (b->max && need > b->max) {
		*err = -ENOBUFS;
		return NULL;
	}
	if (need <= b->cap)
		return b->data + b->len;
	cap = b->cap ? b->cap : 4096;
	while (cap < need)
		cap *= 2;
	if (b->max && cap > b->max)
		cap = b->max;
	p = realloc(b->data, cap);
	if (!p) {
		*err = -ENOMEM;
		return NULL;
	}
	b->data = p;
	b->cap = cap;
	return b->data + b->len;
}

int bbuf_append(struct bbuf *b, const void *p, size_t n)
{
	int err = 0;
	unsigned char *dst = bbuf_reserve(b, n, &err);

	if (!dst)
		return err;
	if (n)
		memcpy(dst, p, n);
	b->len += n;
	return 0;
}

void bbuf_clear(struct bbuf *b)
{
	b->len = 0;
}

void bbuf_free(struct bbuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

int write_all(int fd, const void *data, size_t n)
{
	return whole_write(fd, data, n, WRITE_WAIT_MS, 0);
}
