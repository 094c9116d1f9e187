#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/run-bench.sh - run every tests/bench/*.sh; each prints its own ratios.
# Benchmarks never pass or fail on speed: they report.  A benchmark that
# cannot run (no root, no JVM) prints why and the others go on.
set -u
cd "$(dirname "$0")/.."
export JSYM_ROOT=$PWD JSYM_BUILD=$PWD/glibc-build JSYM_MUSL_BUILD=$PWD/musl-build
status=0
for b in tests/bench/*.sh; do
	[ -e "$b" ] || continue
	echo "== $(basename "$b" .sh)"
	bash "$b" || { echo "bench $(basename "$b") failed (exit $?)"; status=1; }
done
exit $status
