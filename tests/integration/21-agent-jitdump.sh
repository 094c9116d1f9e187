#!/usr/bin/env bash
# 21-agent-jitdump.sh - the agent's `jitdump` option with Debian's perf:
# `perf record -k mono -p PID`, `perf inject --jit`, `perf report` names the
# Java methods from the JIT code the agent dumped, and `perf annotate`
# disassembles one of them.  On the host with every JDK (agent loaded late,
# so the replayed methods get their records too), then in a Debian container
# (JDK 17 as PID 1, uid 1000, its own /tmp): the dump lives in the
# container's /tmp and the mmap event names that path.
set -u
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "perf on another user's process, containers"
source "$JSYM_ROOT/tests/integration/agent_lib.bash"
ag_init
command -v perf >/dev/null || t_skip "needs perf (linux-perf)"
JSYM=$JSYM_BUILD/jsym
classes=$(ag_classes)

# profile TAG PID: record 3 s, inject, report; sets REPORT (top symbols)
profile() {
	local d=$AG_TMP/$1
	mkdir -p "$d"
	perf record -q -k mono -o "$d/perf.data" -p "$2" -- sleep 3 >"$d/record.err" 2>&1
	t_check "$1: perf record" test -s "$d/perf.data"
	perf inject --jit -i "$d/perf.data" -o "$d/perf.jit.data" >"$d/inject.err" 2>&1
	t_check "$1: perf inject --jit" test -s "$d/perf.jit.data"
	perf report -i "$d/perf.jit.data" --stdio --sort dso,sym 2>/dev/null |
		grep -v '^#' | grep -v '^$' >"$d/report"
	sed -n 1,8p "$d/report" | sed 's/^/    /'
	REPORT=$d/report
}

# share REPORT ERE: percent of samples whose symbol matches ERE
share() {
	awk -v re="$2" '$0 ~ re {gsub("%","",$1); s += $1} END {printf "%d\n", s}' "$1"
}

while read -r home major <&3; do
	t_case "host-jdk$major"
	ag_start busy$major "$home" -- -cp "$classes" AgentBusy 30
	pid=$AG_PID
	ag_wait_out busy$major 'agent-busy: started' 30 || continue
	mkdir -p "$AG_TMP/h$major"
	t_run timeout 30 "$JSYM" exec "$pid" load "$AG_LIB" true "dir=$AG_TMP/h$major,jitdump"
	dump=$AG_TMP/h$major/jsym-jit-$pid/jit-$pid.dump
	t_check "dump written" test -s "$dump"
	t_check "the dump is mapped r-x (how perf sees it)" \
		grep -q "r-xp .*jsym-jit-$pid/jit-$pid.dump" "/proc/$pid/maps"
	profile host$major "$pid"
	t_check "jitted-$pid-*.so next to the dump" \
		bash -c "ls '$AG_TMP/h$major/jsym-jit-$pid' | grep -q '^jitted-$pid-[0-9]*\.so$'"
	s=$(share "$REPORT" 'jitted-.*AgentBusy\.')
	t_check "AgentBusy methods named through the jitted DSOs: $s% of samples" [ "$s" -ge 20 ]
	sym=$(awk '/jitted-.*AgentBusy\./ {sub(/^.*\[\.\] /, ""); print; exit}' "$REPORT")
	perf annotate -i "$AG_TMP/host$major/perf.jit.data" --stdio "$sym" 2>/dev/null \
		>"$AG_TMP/host$major/annotate"
	t_check "perf annotate disassembles '$sym'" \
		grep -Eq '(mov|add|cmp|jmp|call|lea|push)' "$AG_TMP/host$major/annotate"
	t_run timeout 30 "$JSYM" exec "$pid" load "$AG_LIB" true stop
	t_check "stop unmaps the dump" eval "! grep -q jit-$pid.dump /proc/$pid/maps"
	kill -KILL "$pid"
done 3< <(t_jdks)

t_case container
rootfs=$(kit_rootfs debian)
ct=$(kit_start jitdeb "$rootfs" --uid 1000 --gid 1000 --cwd /tmp \
	--bind "$classes:/opt/jsym-java:ro" --bind "$JSYM_BUILD:/opt/jsym:ro" \
	--log "$AG_TMP/ct.out" -- \
	/usr/lib/jvm/java-17-openjdk-amd64/bin/java -Xmx64m -XX:+UseSerialGC \
	-agentpath:/opt/jsym/libjsym-agent.so=jitdump -cp /opt/jsym-java AgentBusy 60) ||
	t_abort "kit_start jitdeb"
kit_wait_jvm "$ct" 60 || t_abort "container JVM did not start"
for i in $(seq 1 150); do
	grep -q 'agent-busy: started' "$AG_TMP/ct.out" && break
	sleep 0.2
done
t_check "dump in the container's /tmp/jsym-jit-1/" test -s "/proc/$ct/root/tmp/jsym-jit-1/jit-1.dump"
profile container "$ct"
sed 's/^/    /' "$AG_TMP/container/inject.err" | head -5
s=$(share "$REPORT" 'jitted-.*AgentBusy\.')
t_log "container: $s% of samples in AgentBusy methods named through jitted DSOs"
echo "$s" >"$AG_TMP/container.share"
t_finish
