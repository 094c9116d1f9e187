/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_perfmap.c - libFuzzer harness: hostile perf-map bytes through the line
 * parser, the incremental reader (two writes, split chosen by the input) and
 * the address index.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lookup_lib.h"
#include "perfmap_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-perfmap", MFD_CLOEXEC);
	struct pm_line l;
	struct lookup_hit h;
	struct lookup *lk;
	size_t split = size ? data[0] * size / 256 : 0;

	if (pm_parse_line((const char *)data, size, &l) == 0 &&
	    (l.size == 0 || l.start + l.size < l.start || l.name_len == 0 ||
	     l.name < (const char *)data || l.name + l.name_len > (const char *)data + size))
		abort();
	if (fd < 0)
		return 0;
	if (pwrite(fd, data, split, 0) != (ssize_t)split || !(lk = lookup_new())) {
		close(fd);
		return 0;
	}
	lookup_follow_map(lk, fd);
	lookup_refresh(lk, NULL);
	if (pwrite(fd, data + split, size - split, (off_t)split) == (ssize_t)(size - split))
		lookup_refresh(lk, NULL);
	for (size_t i = 0; i + 8 <= size && i < 256; i += 4) {
		uint64_t a = 0;

		memcpy(&a, data + i, 8);
		if (lookup_find(lk, a, &h) == 1 &&
		    (a < h.sym.start || a - h.sym.start >= h.sym.size || !h.sym.name[0]))
			abort();
	}
	lookup_free(lk);
	return 0;
}
