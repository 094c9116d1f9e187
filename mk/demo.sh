#!/usr/bin/env bash
# mk/demo.sh - jsym's main job on a built-in demo.
#
# Starts the sample JIT-heavy JVM (tests/java/Workload.java), attaches the
# jsym agent to the running JVM with `jsym exec PID load`, shows the perf map
# it keeps, resolves a few sampled addresses with `jsym resolve`, and (when
# perf can sample here) shows a perf profile whose Java frames are named.
# Everything it starts it stops; everything it writes goes to a temp dir
# except the JVM's own /tmp/perf-<pid>.map and journal, removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=$root/glibc-build
java_home=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
[ -x "$java_home/bin/javac" ] || java_home=/usr/lib/jvm/java-17-openjdk-amd64

work=$(mktemp -d /tmp/jsym-demo.XXXXXX)
jvm=
cleanup() {
	if [ -n "$jvm" ] && kill -0 "$jvm" 2>/dev/null; then
		kill "$jvm" 2>/dev/null || true
		wait "$jvm" 2>/dev/null || true
	fi
	if [ -n "$jvm" ]; then
		rm -f "/tmp/perf-$jvm.map" "/tmp/jsym-$jvm.journal" "/tmp/jsym-$jvm.log"
	fi
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "compile and start the sample JVM (JDK: $java_home)"
"$java_home/bin/javac" --release 17 -d "$work/classes" tests/java/Workload.java
"$java_home/bin/java" -Xmx128m -XX:+PreserveFramePointer -cp "$work/classes" Workload 120 \
	>"$work/workload.log" 2>&1 &
jvm=$!
for _ in $(seq 100); do
	grep -q 'workload: started' "$work/workload.log" 2>/dev/null && break
	sleep 0.1
done
sleep 2 # let the JIT compile the hot methods before we attach
echo "JVM pid $jvm is running; its JIT code is anonymous to perf so far"

step "attach the agent to the running JVM: jsym exec $jvm load ..."
"$build/jsym" exec -v "$jvm" load "$build/libjsym-agent.so" true "dir=/tmp"

map=/tmp/perf-$jvm.map
for _ in $(seq 50); do
	[ -s "$map" ] && break
	sleep 0.1
done
sleep 1
step "the perf map the agent keeps ($map): $(wc -l <"$map") live ranges, first lines"
grep -E ' (Arith|Strs|Rx|Colls|Funcs|Bigs|Recur)\.' "$map" | head -n 8 || head -n 8 "$map"

step "resolve addresses with jsym resolve --pid $jvm (middle of three Workload methods)"
addrs=$(grep -E ' (Arith|Strs)\.' "$map" | head -n 3 | while read -r start size _; do
	printf '0x%x\n' $((0x$start + 0x$size / 2))
done)
[ -n "$addrs" ] || { echo "jsym demo: no Workload method compiled yet; run it again" >&2; exit 1; }
# shellcheck disable=SC2086
"$build/jsym" resolve --pid "$jvm" $addrs

if command -v perf >/dev/null 2>&1 && perf record -q -e cpu-clock -o "$work/probe.data" -- true >/dev/null 2>&1; then
	step "perf record -p $jvm for 3 s: the hottest symbols, Java frames named from the map"
	perf record -q -e cpu-clock -F 499 -p "$jvm" -o "$work/perf.data" -- sleep 3 \
		>"$work/perf.log" 2>&1 || true
	report=$(perf report -i "$work/perf.data" --stdio --sort sym 2>>"$work/perf.log" |
		grep -v '^#' | grep -v '^$' | head -n 12 || true)
	if [ -n "$report" ]; then
		echo "$report"
	else
		echo "perf produced no profile this time; what it said:"
		sed 's/^/  perf: /' "$work/perf.log"
	fi
else
	step "perf cannot sample on this machine; skipped the profile"
fi
echo
echo "demo done: the JVM is stopped and its files removed"
