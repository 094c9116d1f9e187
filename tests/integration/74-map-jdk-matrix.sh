#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 74-map-jdk-matrix.sh - the agent's map and `jsym map` on every JDK of the
# matrix (tests/kit/jdks.list: Debian's own JDK 8 to 28 in the kit's `jdks`
# root; the host's Temurin 25 too, bind-mounted, where present), each JVM in
# a container as PID 1, uid 1000, and each checked against a reference that
# does not come from jsym:
#
#   follow    `jsym map --follow` (no agent yet) writes the map and its
#             journal into the container and ends cleanly on SIGINT
#   attach    `jsym attach` from the host loads the agent
#   codelist  JDK 9+: every live method of the JDK's own `jcmd
#             Compiler.codelist` is in the agent's map with the same start
#             and size (code_begin..code_end: instructions and stubs) ...
#   map       ... and in `jsym map`'s, taken at the same moment
#   perfmap   JDK 17+: the JDK's `jcmd Compiler.perfmap` against the agent's
#             map: same start, size and name (MethodHandle intrinsics: the
#             agent's one name for all, docs/perf-map.md)
#   logcomp   JDK 8 (no codelist): -XX:+LogCompilation's nmethods; each of
#             the agent's Java methods it logged starts at the instructions
#             and ends after the stubs, at or before the data
#   names     the agent's Java methods are in `jsym map`'s with the same
#             start, size and name (one formatter, agent/format/javaname.c)
#   perf      perf samples the JVM and names Java frames from the map in the
#             container's /tmp
#   detach    `jsym attach --stop` stops the agent, `jsym detach` removes
#             the copies
#
# Every result is also printed as `matrix: JDK=<n> feature=<f> result=<r>`:
# docs/testing.md's coverage table is filled from those lines of a CI log.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, chown"
J=$JSYM_BUILD/jsym
CHECK=$JSYM_ROOT/tests/integration/matrix_check.py
[ -x "$J" ] || t_skip "jsym not built (make)"
rootfs=$(kit_rootfs jdks)
classes=$(kit_java_build 8)
JAVA_RE=$T_JAVA_RE

# m_result JDK FEATURE pass|fail|skip DESC: one matrix line and the check.
m_result() {
	t_matrix "$1" "$2" "$3"
	case $3 in
	pass) t_pass "$1 $2: $4" ;;
	fail) t_fail "$1 $2: $4" ;;
	*) t_log "$1 $2 skipped: $4" ;;
	esac
}

# m_check JDK FEATURE DESC CMD...: CMD decides pass or fail.
m_check() {
	local jdk=$1 feature=$2 desc=$3
	shift 3
	if "$@"; then m_result "$jdk" "$feature" pass "$desc"; else m_result "$jdk" "$feature" fail "$desc"; fi
}

# in_ct CT HOME CMD...: a JDK tool of the container, as the JVM's uid.
in_ct() {
	local ct=$1
	shift
	kit_exec "$ct" --uid 1000 --gid 1000 -- "$@"
}

# one_jdk LABEL MAJOR HOME [KIT_START OPTIONS...]
one_jdk() {
	local label=$1 major=$2 home=$3 ct root o extra=() rc fpid
	shift 3
	o=$KIT_DIR/$label
	mkdir -p "$o"
	[ "$major" = 8 ] && extra=(-XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation -XX:LogFile=/tmp/comp.log)
	ct=$(kit_start "m$label" "$rootfs" --uid 1000 --gid 1000 --bind "$classes:/opt/jsym-java:ro" "$@" \
		-- "$home/bin/java" -Xmx128m "${extra[@]}" \
		-cp /opt/jsym-java Workload 0) || t_abort "kit_start $label"
	kit_wait_jvm "$ct" 60 || t_abort "$label: the JVM did not start: $(tail -n 5 "$KIT_DIR/m$label.log")"
	root=/proc/$ct/root
	t_case "jdk$label"
	t_log "JDK $label: $("$home/bin/java" -version 2>&1 | head -n 1 || true) ($(head -n 1 "$KIT_DIR/m$label.log"))"
	sleep 4

	"$J" map --follow --interval 500 "$ct" >"$o/follow.out" 2>&1 &
	fpid=$!
	sleep 2
	kill -INT "$fpid"
	wait "$fpid"
	rc=$?
	m_check "$label" follow "jsym map --follow exits 0 on SIGINT, map and journal in the container ($(head -c 200 "$o/follow.out"))" \
		test "$rc" = 0 -a -s "$root/tmp/perf-1.map" -a -s "$root/tmp/jsym-1.journal"
	rm -f "$root/tmp/perf-1.map" "$root/tmp/jsym-1.journal"

	"$J" attach "$ct" >"$o/attach.out" 2>&1
	rc=$?
	m_check "$label" attach "jsym attach exits 0 ($(head -c 300 "$o/attach.out"))" \
		test "$rc" = 0 -a -s "$root/tmp/perf-1.map"
	[ "$rc" = 0 ] || { kit_stop "m$label"; return; }
	sleep 2

	# The references first, then jsym map, then the agent's map once it
	# has flushed what was compiled meanwhile.
	if [ "$major" -ge 9 ]; then
		in_ct "$ct" "$home/bin/jcmd" 1 Compiler.codelist >"$o/codelist" 2>&1 ||
			t_fail "$label: jcmd Compiler.codelist: $(head -n 3 "$o/codelist")"
	fi
	cp "$root/tmp/perf-1.map" "$o/agent.0"
	"$J" map --stdout "$ct" >"$o/jsym.map" 2>"$o/map.err"
	rc=$?
	sleep 2
	cp "$root/tmp/perf-1.map" "$o/agent.map"

	if [ "$major" -ge 9 ]; then
		m_result "$label" logcomp skip "JDK $major has Compiler.codelist, the reference used instead"
		m_check "$label" codelist "$(python3 "$CHECK" codelist "$o/codelist" "$o/agent.map" 99 2>&1 | head -n 4)" \
			python3 "$CHECK" codelist "$o/codelist" "$o/agent.map" 99
		m_check "$label" map "jsym map exits 0; $(python3 "$CHECK" codelist "$o/codelist" "$o/jsym.map" 99 2>&1 | head -n 4)" \
			bash -c "[ $rc = 0 ] && python3 '$CHECK' codelist '$o/codelist' '$o/jsym.map' 99 >/dev/null 2>&1"
	else
		cp "$root/tmp/comp.log" "$o/comp.log"
		m_result "$label" codelist skip "JDK $major has no Compiler.codelist"
		m_check "$label" logcomp "$(python3 "$CHECK" logcomp "$o/comp.log" "$o/agent.map" 99 2>&1 | head -n 4)" \
			python3 "$CHECK" logcomp "$o/comp.log" "$o/agent.map" 99
		m_check "$label" map "jsym map exits 0; $(python3 "$CHECK" logcomp "$o/comp.log" "$o/jsym.map" 99 2>&1 | head -n 4)" \
			bash -c "[ $rc = 0 ] && python3 '$CHECK' logcomp '$o/comp.log' '$o/jsym.map' 99 >/dev/null 2>&1"
	fi
	# (agent.0, taken just before jsym map: a method unloaded between
	# jsym's read and agent.map is in it)
	m_check "$label" names "$(python3 "$CHECK" same "$o/jsym.map" "$o/agent.map" 99 "$o/agent.0" 2>&1 | head -n 4)" \
		python3 "$CHECK" same "$o/jsym.map" "$o/agent.map" 99 "$o/agent.0"

	if t_perf_record "$ct" 2 "$o/perf.data"; then
		t_perf_jit "$o/perf.data" "$ct" >"$o/perf.jit"
		m_check "$label" perf "perf names $(grep -cE "$JAVA_RE" "$o/perf.jit") of $(wc -l <"$o/perf.jit") JIT frames as Java methods" \
			grep -qE "$JAVA_RE" "$o/perf.jit"
	else
		m_result "$label" perf skip "perf cannot sample here: $(t_perf_why "$o/perf.data")"
	fi

	# Last: the JDK's own perf map replaces the agent's file in place, so
	# the agent is stopped first (its appends would mix into the JDK's).
	cp "$root/tmp/perf-1.map" "$o/agent.2"
	"$J" attach --stop "$ct" >"$o/stop.out" 2>&1 && "$J" detach "$ct" >"$o/detach.out" 2>&1
	rc=$?
	m_check "$label" detach "jsym attach --stop, then jsym detach, exit 0 ($(cat "$o/stop.out" "$o/detach.out" 2>/dev/null | head -c 300))" \
		test "$rc" = 0 -a -n "$(grep -l 'agent stopped' "$o/stop.out")"
	if [ "$major" -ge 17 ]; then
		if in_ct "$ct" "$home/bin/jcmd" 1 Compiler.perfmap >"$o/perfmap.out" 2>&1; then
			cp "$root/tmp/perf-1.map" "$o/jdk.map"
			m_check "$label" perfmap "$(python3 "$CHECK" same "$o/jdk.map" "$o/agent.2" 99 2>&1 | head -n 4)" \
				python3 "$CHECK" same "$o/jdk.map" "$o/agent.2" 99
		else
			m_result "$label" perfmap fail "jcmd Compiler.perfmap: $(head -n 2 "$o/perfmap.out")"
		fi
	else
		m_result "$label" perfmap skip "JDK $major has no Compiler.perfmap"
	fi
	kit_stop "m$label"
}

# JSYM_JDKS="8 28" runs those JDKs only (while working on one)
t_jdk_matrix "$rootfs" all one_jdk
t_finish
