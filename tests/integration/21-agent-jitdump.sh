#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 21-agent-jitdump.sh - the agent's `jitdump` option with Debian's perf:
# `perf record -k mono -p PID`, `perf inject --jit`, `perf report` names the
# Java methods from the JIT code the agent dumped, and `perf annotate`
# disassembles one of them.  On the host with every JDK (agent loaded late,
# so the replayed methods get their records too), then in a Debian container
# (JDK 17 as PID 1, uid 1000, its own /tmp): the dump lives in the
# container's /tmp and the mmap event names that path.  With `lines` (every
# JDK): `perf report --sort srcline` of the injected data names AgentBusy.java
# at lines of javap -l's tables, heavyCompute's hot loop among them; then
# `jitdump_max=64k` keeps a new dump under 64 KiB and says so in the log.
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

# lines_of CLASSES-DIR CLASS [METHOD]: the line numbers of javap -l's tables
# (of METHOD only, when given), one a line
lines_of() {
	"$javap" -l -cp "$1" "$2" 2>/dev/null | awk -v m="${3:-}" '
		/^  [^ ].*\(.*\);$/ { on = (m == "" || index($0, " " m "(") > 0) }
		on && $1 == "line" { sub(":", "", $2); print $2 }' | sort -un
}

# share REPORT ERE: percent of samples whose symbol matches ERE
share() {
	awk -v re="$2" '$0 ~ re {gsub("%","",$1); s += $1} END {printf "%d\n", s}' "$1"
}

while read -r home major <&3; do
	t_case "host-jdk$major"
	ag_start busy$major "$home" -- -cp "$classes" AgentBusy 300
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

javap=$(t_jdks | head -n 1 | cut -d' ' -f1)/bin/javap
{ lines_of "$classes" AgentBusy; lines_of "$classes" 'AgentBusy$Point'; } | sort -un \
	>"$AG_TMP/busy.lines"
lines_of "$classes" AgentBusy heavyCompute >"$AG_TMP/heavy.lines"
while read -r home major <&3; do
	t_case "host-jdk$major-lines"
	ag_start lines$major "$home" -- -cp "$classes" AgentBusy 300
	pid=$AG_PID
	ag_wait_out lines$major 'agent-busy: started' 30 || continue
	d=$AG_TMP/l$major
	mkdir -p "$d"
	t_run timeout 30 "$JSYM" exec "$pid" load "$AG_LIB" true "dir=$d,jitdump,lines"
	profile lines$major "$pid"
	perf report -i "$AG_TMP/lines$major/perf.jit.data" --stdio --sort srcline 2>/dev/null |
		grep -v '^#' | grep -v '^$' >"$d/srcline"
	sed -n 1,10p "$d/srcline" | sed 's/^/    /'
	s=$(share "$d/srcline" 'AgentBusy\.java:[0-9]+')
	t_check "srcline names AgentBusy.java: $s% of samples" [ "$s" -ge 10 ]
	# every AgentBusy.java:N is a line of AgentBusy's tables (javap -l)
	bad=$(grep -o 'AgentBusy\.java:[0-9]*' "$d/srcline" | cut -d: -f2 | sort -un |
		comm -23 - "$AG_TMP/busy.lines" | tr '\n' ' ')
	t_check "every AgentBusy.java line is one of javap -l's (not: ${bad:-none})" [ -z "$bad" ]
	heavy=$(grep -o 'AgentBusy\.java:[0-9]*' "$d/srcline" | cut -d: -f2 | sort -un |
		comm -12 - "$AG_TMP/heavy.lines" | tr '\n' ' ')
	all=$(tr '\n' ' ' <"$AG_TMP/heavy.lines")
	t_check "heavyCompute's hot loop has samples at its lines (${heavy:-none}of ${all% })" \
		[ -n "$heavy" ]
	t_check "the log says the dump has lines" grep -q 'jitdump: with source lines' \
		"$d/jsym-$pid.log"
	# the cap: another dir restarts the agent, whose replay passes 64k
	c=$AG_TMP/c$major
	mkdir -p "$c"
	t_run timeout 30 "$JSYM" exec "$pid" load "$AG_LIB" true "dir=$c,jitdump,lines,jitdump_max=64k"
	sleep 1
	size=$(stat -c %s "$c/jsym-jit-$pid/jit-$pid.dump")
	t_check "jitdump_max=64k: the dump holds $size bytes" [ "$size" -le 65536 ]
	t_check "jitdump_max=64k: the dump is not empty" [ "$size" -gt 32768 ]
	t_check "the log says the cap was reached" grep -q 'jitdump reached jitdump_max=65536' \
		"$c/jsym-$pid.log"
	t_run timeout 30 "$JSYM" exec "$pid" load "$AG_LIB" true stop
	t_check "the stop line counts the methods left out" \
		grep -Eq 'jitdump records \([0-9]+ with lines, 0 dropped, [1-9][0-9]* over jitdump_max\)' \
		"$c/jsym-$pid.log"
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
