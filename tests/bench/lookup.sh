#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/bench/lookup.sh - address lookups/s of jsym's index: the public
# jsym_lookup_resolve, lookup_find and the radix search, each as the median
# of interleaved rounds and as a ratio to the binary search that was the
# index before the radix and to a linear scan (same 100k symbols, same
# queries, same run); and the time to load a 100k-entry journal.  Reports
# figures; never asserts on speed.
set -u
build=${JSYM_BUILD:-$(dirname "$0")/../../glibc-build}
bin=$build/tests/bench_lookup
if [ ! -x "$bin" ]; then
	echo "skip: $bin not built (run make)"
	exit 0
fi
"$bin" 100000 10000
