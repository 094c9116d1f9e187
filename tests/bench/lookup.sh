#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/bench/lookup.sh - address lookups/s of jsym's index, internal
# (lookup_find) and public (jsym_lookup_resolve), vs the seed agent's linear
# scan and the binary search that was the index before the radix (same 100k
# symbols, same queries, same run), and the time to load a 100k-entry
# journal.  Reports figures; never asserts on speed.
set -u
build=${JSYM_BUILD:-$(dirname "$0")/../../glibc-build}
bin=$build/tests/bench_lookup
if [ ! -x "$bin" ]; then
	echo "skip: $bin not built (run make)"
	exit 0
fi
"$bin" 100000 10000
