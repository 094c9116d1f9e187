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
#
# Then the same JVM, UNWIND_REPS (default 5) times each, alternating (the
# order flips every round): `jitdump,jitdump_max=0` (with unwinding data) and
# `jitdump,nounwind,jitdump_max=0`, each loaded by `jsym exec PID load` into
# a dir of its own (a whole new dump every time), then `stop`.  Prints the
# medians of the load command's round trip, the agent's GenerateEvents and
# on-disk times and the dump's size, and with / without for each (the goal
# for the time is <= 1.1x).
set -u
: "${JSYM_ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${JSYM_BUILD:=$JSYM_ROOT/glibc-build}"
source "$JSYM_ROOT/tests/lib/median.sh"
lib=$JSYM_BUILD/libjsym-agent.so
jsym=$JSYM_BUILD/jsym
jdk=/usr/lib/jvm/java-17-openjdk-amd64
reps=${REPS:-3}
unwind_reps=${UNWIND_REPS:-5}
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

# unwind_run KIND ROUND: one late attach with (KIND=with) or without
# (without) unwinding data into a fresh dir; appends "load-ms generate-ms
# on-disk-ms dump-bytes entries" to $tmp/KIND
unwind_run() {
	local kind=$1 d=$tmp/unwind-$2-$1 opts t0 t1 bytes
	opts="dir=$d,jitdump,jitdump_max=0"
	[ "$kind" = without ] && opts+=",nounwind"
	mkdir -p "$d"
	clock_us t0
	"$jsym" exec "$pid" load "$lib" true "$opts" >"$tmp/load.out" 2>&1 ||
		echo "  $kind: load failed: $(tail -n 2 "$tmp/load.out")"
	clock_us t1
	"$jsym" exec "$pid" load "$lib" true "dir=$d,stop" >/dev/null 2>&1
	bytes=$(stat -c %s "$d/jsym-jit-$pid/jit-$pid.dump" 2>/dev/null || echo 0)
	grep 'replay (epoch 1)' "$d/jsym-$pid.log" 2>/dev/null |
		sed -n 's/.*: \([0-9]*\) methods, \([0-9]*\) stubs new.*GenerateEvents \([0-9.]*\) ms, on disk after \([0-9.]*\) ms.*/\1 \2 \3 \4/p' |
		awk -v l="$(((t1 - t0) / 1000))" -v b="$bytes" '{print l, $3, $4, b, $1 + $2}' >>"$tmp/$kind"
	rm -rf "$d"
}

if [ ! -x "$jsym" ]; then
	echo "late attach with and without unwinding data: skipped, jsym not built (make)"
	exit 0
fi
for i in $(seq 1 "$unwind_reps"); do
	if [ $((i % 2)) = 1 ]; then
		unwind_run with "$i"
		unwind_run without "$i"
	else
		unwind_run without "$i"
		unwind_run with "$i"
	fi
done
echo "late attach with unwinding data (jitdump) and without (jitdump,nounwind)," \
	"$(wc -l <"$tmp/with" 2>/dev/null || echo 0)/$(wc -l <"$tmp/without" 2>/dev/null || echo 0) runs, alternating, medians:"
for k in with without; do
	[ -s "$tmp/$k" ] || { echo "  $k: no figures (the agent's log had no replay line)"; continue; }
	awk -v k="$k" -v l="$(awk '{print $1}' "$tmp/$k" | median -)" -v g="$(awk '{print $2}' "$tmp/$k" | median -)" \
		-v d="$(awk '{print $3}' "$tmp/$k" | median -)" -v b="$(awk '{print $4}' "$tmp/$k" | median -)" \
		-v e="$(awk 'END {print $5}' "$tmp/$k")" \
		'BEGIN {printf "  %-7s load command %5d ms, GenerateEvents %7.1f ms, on disk after %7.1f ms, jitdump %d bytes (%d entries)\n", k, l, g, d, b, e}'
done
if [ -s "$tmp/with" ] && [ -s "$tmp/without" ]; then
	for c in 1 2 3 4; do
		printf '%s %s\n' "$(awk -v c=$c '{print $c}' "$tmp/with" | median -)" \
			"$(awk -v c=$c '{print $c}' "$tmp/without" | median -)"
	done | awk '{r[NR] = $2 > 0 ? $1 / $2 : 0}
		END {printf "  with / without: load command %.2fx, GenerateEvents %.2fx, on disk %.2fx (goal <= 1.1), jitdump size %.2fx\n", r[1], r[2], r[3], r[4]}'
fi
