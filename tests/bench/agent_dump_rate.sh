#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_dump_rate.sh - how fast a late attach writes what is already compiled.
#
# A JVM runs javac in-process 30 times (AgentJavacHost: ~5000 compiled
# methods), then idles.  Then REPS times:
# `jcmd JVMTI.agent_load` (initial dump via GenerateEvents), wait for it,
# `stop`.  The agent's log gives the entries replayed, the GenerateEvents
# time and the time until they were on disk.  Prints entries/s for both, as
# medians, and jcmd's own round trip as the baseline it is measured against.
set -u
: "${JSYM_ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${JSYM_BUILD:=$JSYM_ROOT/glibc-build}"
source "$JSYM_ROOT/tests/lib/median.sh"
lib=$JSYM_BUILD/libjsym-agent.so
jdk=/usr/lib/jvm/java-17-openjdk-amd64
reps=${REPS:-3}
[ -f "$lib" ] || { echo "agent_dump_rate: skipped, agent not built (make)"; exit 0; }
[ -x "$jdk/bin/javac" ] || { echo "agent_dump_rate: skipped, needs JDK 17"; exit 0; }
tmp=$(mktemp -d /tmp/jsym-bench-dump.XXXXXX)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
"$jdk/bin/javac" --release 17 -d "$tmp/cls" "$JSYM_ROOT"/tests/java/AgentJavacHost.java || exit 1
mkdir -p "$tmp/jout"
"$jdk/bin/java" -Xmx256m -cp "$tmp/cls" AgentJavacHost 30 300 "$tmp/jout" \
	"$JSYM_ROOT"/tests/java/*.java >"$tmp/out" 2>&1 &
pid=$!
for i in $(seq 1 1200); do
	grep -q 'agent-javac: ready' "$tmp/out" && break
	sleep 0.1
done
sleep 2
base=()
for i in $(seq 1 "$reps"); do
	clock_us t0
	"$jdk/bin/jcmd" "$pid" VM.version >/dev/null
	clock_us t1
	base+=($(((t1 - t0) / 1000)))
	"$jdk/bin/jcmd" "$pid" JVMTI.agent_load "$lib" "\"dir=$tmp\"" >/dev/null
	"$jdk/bin/jcmd" "$pid" JVMTI.agent_load "$lib" "\"dir=$tmp,stop\"" >/dev/null
done
log=$tmp/jsym-$pid.log
grep 'replay (epoch 1)' "$log" | sed 's/^.*: replay/  replay/'
jm=$(median "${base[@]}")
grep 'replay (epoch 1)' "$log" |
	sed -n 's/.*: \([0-9]*\) methods, \([0-9]*\) stubs new.*GenerateEvents \([0-9.]*\) ms, on disk after \([0-9.]*\) ms.*/\1 \2 \3 \4/p' \
	>"$tmp/runs"
m=$(awk 'END {print $1}' "$tmp/runs")
e=$(awk 'END {print $1 + $2}' "$tmp/runs")
g=$(awk '{printf "%.0f\n", ($1 + $2) / ($3 / 1000)}' "$tmp/runs" | median -)
d=$(awk '{printf "%.0f\n", ($1 + $2) / ($4 / 1000)}' "$tmp/runs" | median -)
dm=$(awk '{print $4}' "$tmp/runs" | median -)
echo "late attach into a JVM with $m compiled methods ($e entries with stubs), $(wc -l <"$tmp/runs") runs, medians:"
echo "  GenerateEvents -> in-memory buffers: $g entries/s"
echo "  attach -> map + journal on disk:    $d entries/s ($dm ms)"
awk -v dm="$dm" -v jm="$jm" 'BEGIN {printf "  baseline: one jcmd round trip (VM.version) %d ms; dump-to-disk / jcmd = %.2f\n", jm, dm / jm}'
