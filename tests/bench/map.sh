#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# map.sh - `jsym map` (symbols read from outside) against the JDK's own
# `jcmd Compiler.perfmap`, on twin JVMs that each ran javac in-process 30
# times (AgentJavacHost: about 5,000 compiled methods) and then idle.
# REPS times each, medians: jsym map of JVM A (its map written, every
# entry re-read before) and jcmd Compiler.perfmap of JVM B (attach, the
# JVM writes its map at a safepoint-free walk under CodeCache_lock).
# Prints both times, the entries and the ratio jsym / jcmd.
set -u
: "${JSYM_ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${JSYM_BUILD:=$JSYM_ROOT/glibc-build}"
source "$JSYM_ROOT/tests/lib/median.sh"
jsym=$JSYM_BUILD/jsym
jdk=/usr/lib/jvm/java-17-openjdk-amd64
reps=${REPS:-5}
[ -x "$jsym" ] || { echo "map: skipped, jsym not built (make)"; exit 0; }
[ -x "$jdk/bin/javac" ] || { echo "map: skipped, needs JDK 17"; exit 0; }
[ "$(id -u)" = 0 ] || { echo "map: skipped, needs root (reads another process's memory)"; exit 0; }
tmp=$(mktemp -d /tmp/jsym-bench-map.XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
		rm -f "/tmp/perf-$p.map"
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
"$jdk/bin/javac" --release 17 -d "$tmp/cls" "$JSYM_ROOT"/tests/java/AgentJavacHost.java || exit 1
for n in a b; do
	mkdir -p "$tmp/jout-$n"
	"$jdk/bin/java" -Xmx256m -cp "$tmp/cls" AgentJavacHost 30 300 "$tmp/jout-$n" \
		"$JSYM_ROOT"/tests/java/*.java >"$tmp/out-$n" 2>&1 &
	pids+=($!)
done
for n in a b; do
	for _ in $(seq 1 1800); do
		grep -q 'agent-javac: ready' "$tmp/out-$n" && break
		sleep 0.1
	done
done
sleep 2
a=${pids[0]} b=${pids[1]}
ms() { echo $((($(date +%s%N) - $1) / 1000000)); }
: >"$tmp/jsym" && : >"$tmp/jcmd"
for _ in $(seq 1 "$reps"); do
	t0=$(date +%s%N)
	"$jsym" map --json "$a" >"$tmp/json" || { echo "map: jsym map failed"; cat "$tmp/json"; exit 1; }
	ms "$t0" >>"$tmp/jsym"
	t0=$(date +%s%N)
	"$jdk/bin/jcmd" "$b" Compiler.perfmap >/dev/null || { echo "map: jcmd failed"; exit 1; }
	ms "$t0" >>"$tmp/jcmd"
done
js=$(median - <"$tmp/jsym")
jc=$(median - <"$tmp/jcmd")
java=$(sed -n 's/.*"java":\([0-9]*\).*/\1/p' "$tmp/json")
entries=$(sed -n 's/.*"entries":\([0-9]*\).*/\1/p' "$tmp/json")
reads=$(sed -n 's/.*"reads":\([0-9]*\).*/\1/p' "$tmp/json")
mb=$(sed -n 's/.*"bytes":\([0-9]*\).*/\1/p' "$tmp/json" | awk '{printf "%.1f", $1 / 1048576}')
jl=$(grep -c . "/tmp/perf-$b.map")
echo "twin JVMs after 30 in-process javac runs: jsym map $entries entries ($java Java methods), jcmd $jl lines; $reps runs, medians:"
echo "  jsym map (read from outside, written):  $js ms ($reads reads, $mb MiB)"
echo "  jcmd Compiler.perfmap (attach + write): $jc ms"
awk -v a="$js" -v b="$jc" 'BEGIN {printf "  jsym map / jcmd Compiler.perfmap = %.2f\n", a / b}'
