#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 20-agent-unload.sh - compiled code of unloaded classes leaves the perf map
# (within the documented delay, docs/perf-map.md) and gets UNLOAD records.
#
# AgentUnload defines AgentUnloadTarget in 20 private class loaders, runs
# each copy until compiled, then drops the loaders and calls System.gc()
# (SerialGC unloads classes at every full GC).  JDK 17 and 25 when present;
# the agent is loaded at startup on one and attached late on the other.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/integration/agent_lib.bash"
ag_init
[ -n "$(t_jdks)" ] || t_skip "needs JDK 17 (apt-get install openjdk-17-jdk-headless)"
cls=$(ag_classes)
# The documented bound is SINK_REWRITE_MIN_MS (500) + flush_ms (100) +
# writing (docs/perf-map.md).  A loaded machine delays the agent's thread, so
# the test waits up to 20 s for the map to converge and prints how long it
# took; it never asserts the time (speed is the benchmarks' business).
settle_limit=200        # x 0.1 s

count_target() {
	grep -c 'AgentUnloadTarget\.' "$1" || true
}

late=0
while read -r home v <&3; do
	d=$AG_TMP/u$v
	mkdir -p "$d"
	if [ $late = 0 ]; then
		echo "=== JDK $v, agent at startup"
		ag_start u$v "$home" -XX:+UseSerialGC "-agentpath:$AG_LIB=dir=$d" -cp "$cls" \
			-- AgentUnload 20 4
		p=$AG_PID
		ag_wait_out u$v "agent-unload: hot" 120 || continue
	else
		echo "=== JDK $v, agent attached late"
		ag_start u$v "$home" -XX:+UseSerialGC -cp "$cls" -- AgentUnload 20 4
		p=$AG_PID
		ag_wait_out u$v "agent-unload: hot" 120 || continue
		ag_load "$home" "$p" "dir=$d"
		t_check "U$v: late attach returned 0" [ "$AG_LOAD_RC" = 0 ]
	fi
	late=$((1 - late))
	sleep 0.5
	n=$(count_target "$d/perf-$p.map")
	echo "    map lines of AgentUnloadTarget while hot: $n"
	t_check "U$v: compiled AgentUnloadTarget code is in the map" [ "$n" -gt 0 ]
	ag_wait_out u$v "agent-unload: dropped" 60 || continue
	for ((i = 0; i < settle_limit; i++)); do
		[ "$(count_target "$d/perf-$p.map")" = 0 ] && break
		sleep 0.1
	done
	echo "    the map dropped AgentUnloadTarget $((i * 100)) ms after the loaders were dropped"
	t_check "U$v: map converged: no unloaded code, every LOAD ended by an UNLOAD" \
		ag_py unloaded "$d/perf-$p.map" "$d/jsym-$p.journal" AgentUnloadTarget
	t_check "U$v: map format, no duplicates" ag_py map "$d/perf-$p.map"
	t_check "U$v: live code stays (> 50 Java methods left)" \
		[ "$(grep -c '\.[^ .]*(' "$d/perf-$p.map")" -gt 50 ]
	grep -h 'rewrite\|stopped' "$d/jsym-$p.log" || true
done 3< <(t_jdks)
t_finish
