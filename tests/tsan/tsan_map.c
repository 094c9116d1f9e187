/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tsan_map.c - jsym map's namer thread under ThreadSanitizer (make tsan):
 * snapshots of a fake code cache of three heaps and 4,500 blocks
 * (tests/lib/check_codecache.h), each named by the namer while the walk
 * reads the next batches' headers and checks the entries of the last
 * ones, then compared with the names the fake holds.  In every other
 * snapshot its reads of the methods are slowed down, so the walk's thread
 * waits for names, and meanwhile renders the entries settled and readies
 * the namer's cache.  Any race or lost hand-over is TSan's report, a
 * wrong name or a wrong map; exit 0 when none.
 */
#include <stdio.h>
#include <string.h>

#include "check_codecache.h"
#include "vm_scan.h"

#define ROUNDS 20

int main(void)
{
	struct vm_layout l;
	struct vm_jvm j;
	char want[64];
	int idles = 0;

	codecache_build(&l);
	if (codecache_jvm(&j, true)) {
		fprintf(stderr, "tsan_map: out of memory\n");
		return 1;
	}
	for (int r = 0; r < ROUNDS; r++) {
		struct vm_snapshot s;
		int calls;

		/* every other round, the namer slower than the walk: the
		 * walk's thread waits, and renders and readies the namer's
		 * cache meanwhile (set while no namer runs: each snapshot
		 * starts its own) */
		codecache_names_delay_us = r % 2 ? 1500 : 0;
		if (codecache_take_rendering(&j, &l, &s, &calls) ||
		    s.n != (size_t)CODECACHE_HEAPS * CODECACHE_BLOCKS || s.partial) {
			fprintf(stderr, "tsan_map: round %d: %zu entries\n", r, s.n);
			return 1;
		}
		idles += calls;
		if (codecache_names_delay_us && calls < 1) {
			fprintf(stderr, "tsan_map: round %d: the walk rendered %d times while it "
				"waited for a slowed namer\n", r, calls);
			return 1;
		}
		for (size_t k = 0; k < s.n; k++) {
			codecache_name((int)(k / CODECACHE_BLOCKS), (int)(k % CODECACHE_BLOCKS), want,
				       sizeof(want));
			if (strcmp(vm_entry_name(&s, &s.e[k]), want)) {
				fprintf(stderr, "tsan_map: round %d: entry %zu is %s, not %s\n", r, k,
					vm_entry_name(&s, &s.e[k]), want);
				return 1;
			}
		}
		vm_snapshot_free(&s);
	}
	vm_mem_free(&j.mem);
	printf("tsan_map: %d snapshots of %d entries, each named by the namer thread "
	       "(%d renderings while the walk waited)\n", ROUNDS, CODECACHE_HEAPS * CODECACHE_BLOCKS,
	       idles);
	return 0;
}
