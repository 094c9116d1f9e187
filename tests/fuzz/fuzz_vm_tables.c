/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_vm_tables.c - libFuzzer harness: a hostile JVM's serviceability
 * tables.  The input is the JVM's memory, mapped at FAKE_BASE: the first
 * VS_COUNT words are where libjvm.so's exported globals (table pointers,
 * strides, column offsets) live, everything else is what they point at.
 * vm_tables_read() and vm_layout_from_tables() must fail cleanly or give
 * tables whose every offset is in bounds; the /proc maps parser of
 * vm_maps.c gets the same bytes as text.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vm_jvm.h"
#include "vm_layout.h"
#include "vm_tables.h"

#define FAKE_BASE 0x100000ull

struct image {
	const uint8_t *p;
	size_t n;
};

static int fake_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	const struct image *im = ctx;

	if (addr < FAKE_BASE || addr - FAKE_BASE > im->n || n > im->n - (addr - FAKE_BASE))
		return -EFAULT;
	memcpy(buf, im->p + (addr - FAKE_BASE), n);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	struct image im = { copy, size };
	uint64_t sym[VS_COUNT];
	struct err_text e = { "" };
	struct vm_lib_span span;
	struct vm_tables t;
	struct vm_layout l;
	struct vm_mem m;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	for (int i = 0; i < VS_COUNT; i++)
		sym[i] = FAKE_BASE + 8 * (uint64_t)i;
	if (vm_mem_init(&m, fake_read, &im, size & 1) == 0) {
		if (vm_tables_read(&m, sym, &t, &e) == 0) {
			for (int i = 0; i < t.nfields; i++)
				if (!t.fields[i].type || !t.fields[i].name)
					abort();
			if (vm_layout_from_tables(&t, &l, &e) == 0 &&
			    (l.blob_span > 65536 + 8 || l.nm_span < l.blob_span))
				abort();
		}
		vm_tables_free(&t);
		vm_mem_free(&m);
	}
	vm_maps_lib((const char *)copy, size, "/usr/lib/jvm/x/lib/server/libjvm.so", &span);
	free(copy);
	return 0;
}
