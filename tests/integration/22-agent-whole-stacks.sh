#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 22-agent-whole-stacks.sh - whole Java stacks from JVMs started with the
# JDK's default flags, on every JDK of the matrix (tests/kit/jdks.list: the
# kit's `jdks` root; the host's Temurin 25 too, bind-mounted, where present).
#
# For each JDK two containers run tests/java/DeepStacks.java (uid 1000, PID
# 1, about 70 frames deep: interpreted, C1, C2 and inlined frames):
#   default   the JDK's default flags; `jsym attach -o jitdump` from the
#             host, then `perf record -k mono --call-graph dwarf,16384`,
#             `perf inject --jit` (the dump and its unwinding data in the
#             container's /tmp), `perf script`
#   flag      the same workload with -XX:+PreserveFramePointer, `jsym
#             attach`, `perf record -g`: the baseline, recorded at the same
#             time
# stacks_check.py judges the default run: at least 95% of the Java-topped
# samples reach call_stub (the thread's first Java call), within 3 points
# of the flag's share, a median depth of at least 60 frames, and every
# frame of them named.  The stop line of the agent's log counts the code
# loads written with unwinding data, and jitdump_check.py reads the dump
# back: every record well formed for its code, none mapped over another
# load's code.  Every result is also printed as
# `matrix: JDK=<n> feature=wholestack result=<r>` (docs/testing.md).
# The closing table per JDK (share and depth, both ways) is in the log.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, perf on another user's process"
command -v perf >/dev/null || t_skip "needs perf (linux-perf)"
J=$JSYM_BUILD/jsym
CHECK=$JSYM_ROOT/tests/integration/stacks_check.py
[ -x "$J" ] || t_skip "jsym not built (make)"
rootfs=$(kit_rootfs jdks)
classes=$(kit_java_build 8)
TABLE=$KIT_DIR/table

# record CT OUT CALLGRAPH...: 5 s of samples of the container's JVM
record() {
	local ct=$1 out=$2
	shift 2
	timeout 60 perf record -q -k mono -F 499 "$@" -p "$ct" -o "$out" -- sleep 5 \
		>"$out.log" 2>&1
}

# one_jdk LABEL MAJOR HOME [KIT_START OPTIONS...]
one_jdk() {
	local label=$1 major=$2 home=$3 o ct fp rc verdict stop
	shift 3
	o=$KIT_DIR/$label
	mkdir -p "$o"
	t_case "jdk$label"
	ct=$(kit_start "d$label" "$rootfs" --uid 1000 --gid 1000 --bind "$classes:/opt/jsym-java:ro" \
		"$@" -- "$home/bin/java" -Xmx64m -cp /opt/jsym-java DeepStacks 0) ||
		t_abort "kit_start d$label"
	fp=$(kit_start "f$label" "$rootfs" --uid 1000 --gid 1000 --bind "$classes:/opt/jsym-java:ro" \
		"$@" -- "$home/bin/java" -Xmx64m -XX:+PreserveFramePointer -cp /opt/jsym-java \
		DeepStacks 0) || t_abort "kit_start f$label"
	kit_wait_jvm "$ct" 60 && kit_wait_jvm "$fp" 60 ||
		t_abort "$label: a JVM did not start: $(tail -n 3 "$KIT_DIR/d$label.log" "$KIT_DIR/f$label.log")"
	t_log "JDK $label: $(head -n 1 "$KIT_DIR/d$label.log")"
	sleep 5         # C1 compiles the levels, C2 the leaf
	t_check "jsym attach -o jitdump (default flags)" timeout 60 "$J" attach -o jitdump "$ct"
	t_check "jsym attach (the flag)" timeout 60 "$J" attach "$fp"
	sleep 1
	record "$ct" "$o/dwarf.data" --call-graph dwarf,16384 &
	record "$fp" "$o/fp.data" -g
	wait $! || true
	t_check "perf record --call-graph dwarf" test -s "$o/dwarf.data"
	t_check "perf record -g" test -s "$o/fp.data"
	perf inject --jit -i "$o/dwarf.data" -o "$o/dwarf.jit.data" >"$o/inject.log" 2>&1
	t_check "perf inject --jit: jitted DSOs in the container's /tmp/jsym-jit-1/" \
		bash -c "ls /proc/$ct/root/tmp/jsym-jit-1 | grep -q '^jitted-.*\.so$'"
	perf script --no-inline -i "$o/dwarf.jit.data" >"$o/dwarf.txt" 2>"$o/script.err"
	perf script --no-inline -i "$o/fp.data" >"$o/fp.txt" 2>>"$o/script.err"
	python3 "$CHECK" judge "$o/dwarf.txt" "$o/fp.txt" 95 3 60 >"$o/judge" 2>&1
	rc=$?
	sed 's/^/    /' "$o/judge"
	if [ $rc != 0 ]; then
		t_log "perf inject: $(head -n 3 "$o/inject.log" | tr '\n' ' ')"
		t_log "perf script: $(head -n 5 "$o/script.err" | tr '\n' ' ')"
		t_log "the stubs named call: $(grep -i 'call' "/proc/$ct/root/tmp/perf-1.map" | cut -d' ' -f3- | sort -u | head -n 5 | tr '\n' ';')"
		t_log "the bottom of the dwarf run's first sample:"
		awk 'BEGIN { RS = "" } NR == 2 { print; exit }' "$o/dwarf.txt" | tail -n 12 | cut -c1-160 |
			sed 's/^/    /'
		t_log "the dwarf run's top frames:"
		perf report -i "$o/dwarf.jit.data" --stdio --no-children --sort dso,sym 2>/dev/null |
			grep -v '^#' | grep -v '^$' | head -n 8 | sed 's/^/    /'
	fi
	verdict=fail
	[ $rc = 0 ] && verdict=pass
	t_matrix "$label" wholestack "$verdict"
	t_check "whole stacks without the flag: $(grep -c FAIL "$o/judge") problems" [ $rc = 0 ]
	echo "$label $(sed -n 's/^.*samples, [0-9]* reach call_stub (\([0-9.]*%\)), median depth \([0-9.]*\).*/\1 \2/p' \
		"$o/judge" | tr '\n' ' ')" >>"$TABLE"
	t_check "jsym attach --stop" timeout 60 "$J" attach --stop "$ct"
	stop=$(grep -ho 'jitdump records.*' "/proc/$ct/root/tmp/jsym-1.log" 2>/dev/null | tail -n 1)
	t_log "agent: ${stop:-no stop line}"
	t_check "the agent wrote unwinding data" \
		bash -c "grep -Eq '[1-9][0-9]* with unwinding data' <<<'$stop'"
	# no record's tables lie over another load's code (perf maps them
	# after the code, and the later map wins)
	python3 "$JSYM_ROOT/tests/integration/jitdump_check.py" \
		"/proc/$ct/root/tmp/jsym-jit-1/jit-1.dump" >"$o/dumpcheck" 2>&1
	rc=$?
	t_check "$(head -n 3 "$o/dumpcheck" | tr '\n' ' ')" [ $rc = 0 ]
	timeout 60 "$J" detach "$ct" >/dev/null 2>&1
	timeout 60 "$J" detach "$fp" >/dev/null 2>&1
	kit_stop "d$label"
	kit_stop "f$label"
}

: >"$TABLE"
t_jdk_matrix "$rootfs" wholestack one_jdk
t_log "JDK | reach call_stub, median depth: default flags (dwarf) | -XX:+PreserveFramePointer (-g)"
while read -r l; do t_log "  $l"; done <"$TABLE"
t_finish
