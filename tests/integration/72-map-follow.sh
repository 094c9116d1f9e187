#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 72-map-follow.sh - `jsym map --follow`: a JVM that takes no agent keeps a
# perf map equal to its live code and a journal in the agent's format.
#
# AgentUnload (SerialGC) compiles AgentUnloadTarget in 20 class loaders,
# then drops them and unloads the classes while jsym follows it from
# outside.  For every host JDK (17, Temurin 25) and a container JVM (the
# kit's Debian JDK 17, PID 1, uid 1000) followed from the host:
#   - the map names AgentUnloadTarget while it is hot, and converges to no
#     entry of it once the classes are gone (polled, up to 60 s; the time it
#     took is printed, never asserted);
#   - every LOAD of AgentUnloadTarget in the journal has its UNLOAD, the
#     journal is well-formed (agent_check.py, as for the agent's journals);
#   - `jsym resolve --pid` answers from the follower's journal: the method
#     while hot, nothing after the unload, and the method again `--at` a
#     time between its LOAD and its UNLOAD;
#   - the follower ends cleanly: on SIGINT/SIGTERM (exit 0, EPOCH 3 after an
#     UNLOAD for every live entry) or when the JVM exits ("the JVM exited");
#   - in the container, both files are the JVM's (1000:1000, 0644).
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/integration/agent_lib.bash"
t_need_root "namespaces, chown"
J=$JSYM_BUILD/jsym
[ -x "$J" ] || t_skip "jsym not built (make)"
ag_init
[ -n "$(t_jdks)" ] || t_skip "needs JDK 17 (apt-get install openjdk-17-jdk-headless)"
cls=$(ag_classes)
FOLLOWERS=()
stop_followers() {
	local p
	for p in "${FOLLOWERS[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	wait 2>/dev/null
	return 0
}
kit_on_exit stop_followers

count_target() {
	grep -c 'AgentUnloadTarget\.' "$1" 2>/dev/null || true
}

# at_time JOURNAL ADDR: a CLOCK_MONOTONIC time (s) between the LOAD of the
# AgentUnloadTarget code holding ADDR and its UNLOAD.
at_time() {
	python3 - "$1" "$2" <<'PY'
import sys
sys.path.insert(0, sys.argv[0] and __import__('os').environ['JSYM_ROOT'] + '/tests/integration')
import agent_check
_, recs = agent_check.read_journal(sys.argv[1])
addr = int(sys.argv[2], 16)
loads = {r['id']: r for r in recs if r['type'] == 1 and 'AgentUnloadTarget' in r['cls']
         and r['start'] <= addr < r['start'] + r['size']}
for r in recs:
    if r['type'] == 2 and r['id'] in loads:
        print('%.9f' % ((loads[r['id']]['ts'] + r['ts']) / 2e9))
        break
PY
}

# follow_case NAME PID ROOT NSPID STOP: follow PID while AgentUnload runs;
# STOP is INT, TERM or exit (wait for the JVM to end).
follow_case() {
	local name=$1 pid=$2 root=$3 nspid=$4 stop=$5
	local map=$root/tmp/perf-$nspid.map jr=$root/tmp/jsym-$nspid.journal
	local out=$AG_TMP/$name.follow.out err=$AG_TMP/$name.follow.err fp i addr at rc

	"$J" map --follow --interval 200 -v "$pid" >"$out" 2>"$err" &
	fp=$!
	FOLLOWERS+=("$fp")
	for ((i = 0; i < 300; i++)); do
		[ "$(count_target "$map")" -gt 0 ] && [ -s "$jr" ] && break
		sleep 0.1
	done
	t_check "$name: following (stdout: $(head -c 300 "$out"))" grep -q 'following: ' "$out"
	t_check "$name: the map names the hot AgentUnloadTarget" [ "$(count_target "$map")" -gt 0 ]
	addr=$(awk '/AgentUnloadTarget\.spin/ {print $1; exit}' "$map")
	t_check "$name: spin is compiled" [ -n "$addr" ]
	addr=${addr:-0}
	t_run "$J" resolve --pid "$pid" -v "$addr"
	t_expect_rc 0
	t_expect_out 'AgentUnloadTarget\.spin\(int\).*\[class AgentUnloadTarget, method spin, sig \(I\)J'
	t_expect_err 'jsym-map'

	ag_wait_out "$name" "agent-unload: dropped" 120
	for ((i = 0; i < 600; i++)); do
		[ "$(count_target "$map")" = 0 ] && break
		sleep 0.1
	done
	echo "    the map dropped AgentUnloadTarget $((i * 100)) ms after the loaders were dropped"
	t_check "$name: map converged: no unloaded code, every LOAD ended by an UNLOAD" \
		ag_py unloaded "$map" "$jr" AgentUnloadTarget
	t_check "$name: map format, no duplicates" ag_py map "$map"
	t_check "$name: journal well-formed" ag_py journal "$jr"
	t_run "$J" resolve --pid "$pid" "$addr"
	t_expect_rc 0
	t_check "$name: no AgentUnloadTarget at $addr after the unload" \
		bash -c "! grep -q AgentUnloadTarget <<<\"\$1\"" _ "$T_OUT"
	at=$(at_time "$jr" "$addr")
	t_check "$name: the journal has the LOAD and UNLOAD of $addr" [ -n "$at" ]
	t_run "$J" resolve --pid "$pid" --at "${at:-0}" "$addr"
	t_expect_rc 0
	t_expect_out 'AgentUnloadTarget\.spin\(int\)'

	if [ "$stop" = exit ]; then
		for ((i = 0; i < 600; i++)); do
			kill -0 "$fp" 2>/dev/null || break
			sleep 0.1
		done
	else
		kill -"$stop" "$fp"
	fi
	wait "$fp"
	rc=$?
	t_eq "$rc" 0 "$name: the follower exits 0 ($stop)"
	if [ "$stop" = exit ]; then
		t_check "$name: says the JVM exited" grep -q 'the JVM exited' "$out"
	else
		t_check "$name: says it was stopped" grep -q 'stopped by' "$out"
		t_check "$name: the final journal ends every entry (0 live)" \
			bash -c "python3 '$JSYM_ROOT/tests/integration/agent_check.py' journal '$jr' | grep -q ' 0 live'"
	fi
	cat "$out"
	tail -n 3 "$err"
}

stops=(INT exit)
k=0
while read -r home v <&3; do
	t_case "jdk$v"
	ag_start "f$v" "$home" -XX:+UseSerialGC -cp "$cls" -- AgentUnload 20 12
	p=$AG_PID
	ag_wait_out "f$v" "agent-unload: hot" 120 || continue
	follow_case "f$v" "$p" "" "$p" "${stops[k % 2]}"
	k=$((k + 1))
done 3< <(t_jdks)

t_case container
classes=$(kit_java_build)
rootfs=$(kit_rootfs debian)
ct=$(kit_start fct "$rootfs" --uid 1000 --gid 1000 --bind "$classes:/opt/jsym-java:ro" \
	--log "$AG_TMP/fct.out" \
	-- "$KIT_CT_JAVA" -Xmx128m -XX:+UseSerialGC -cp /opt/jsym-java AgentUnload 20 12) ||
	t_abort "kit_start fct"
ag_wait_out fct "agent-unload: hot" 180 || t_abort "container JVM: $(tail -n 5 "$AG_TMP/fct.out")"
follow_case fct "$ct" "/proc/$ct/root" 1 TERM
t_eq "$(stat -c %u:%g:%a "/proc/$ct/root/tmp/perf-1.map")" 1000:1000:644 "the map is the JVM's, 0644"
t_eq "$(stat -c %u:%g:%a "/proc/$ct/root/tmp/jsym-1.journal")" 1000:1000:644 \
	"the journal is the JVM's, 0644"
t_check "nothing written to the host's /tmp" bash -c "! ls -a /tmp | grep -qE '^\.?(perf-1\.map|jsym-1\.journal)'"
t_finish
