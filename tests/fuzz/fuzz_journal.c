/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_journal.c - libFuzzer harness: hostile journal bytes through the
 * reader and the address index, delivered in two writes (the first two input
 * bytes pick the split) so the torn-record path is fuzzed too, sometimes with
 * a time limit (lookup_set_until) taken from the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lookup_lib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every hit must contain its address; anything else is a bug worth a crash. */
static void probe(struct lookup *lk, uint64_t addr)
{
	struct lookup_hit h;

	if (lookup_find(lk, addr, &h) == 1) {
		if (addr < h.sym.start || addr - h.sym.start >= h.sym.size || h.offset != addr - h.sym.start)
			abort();
		for (size_t i = 0; i < h.n_inline; i++)
			if (addr < h.inlined[i].start || addr - h.inlined[i].start >= h.inlined[i].size ||
			    strlen(h.inlined[i].name) > 0xffff)
				abort();
	}
}

static void probe_all(struct lookup *lk, const uint8_t *data, size_t size)
{
	for (size_t i = 0; i + 8 <= size && i < 512; i += 8) {
		uint64_t a = jf_get64(data + i);

		probe(lk, a);
		probe(lk, a - 1);
		probe(lk, a + 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-journal", MFD_CLOEXEC);
	struct lookup *lk;
	size_t split;

	if (fd < 0)
		return 0;
	split = size >= 2 ? ((size_t)data[0] << 8 | data[1]) % (size + 1) : size;
	if (pwrite(fd, data, split, 0) != (ssize_t)split || !(lk = lookup_new())) {
		close(fd);
		return 0;
	}
	lookup_follow_journal(lk, fd);
	/* odd first byte: stop at a time taken from the input, then lift the limit */
	if (size >= 8 && (data[0] & 1))
		lookup_set_until(lk, jf_get64(data + size - 8));
	lookup_refresh(lk, NULL);
	probe_all(lk, data, size);
	if (pwrite(fd, data + split, size - split, (off_t)split) == (ssize_t)(size - split)) {
		lookup_refresh(lk, NULL);
		probe_all(lk, data, size);
		lookup_set_until(lk, 0);
		lookup_refresh(lk, NULL);
		probe_all(lk, data, size);
	}
	lookup_free(lk);
	return 0;
}
