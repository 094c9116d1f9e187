#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 70-map-host.sh - `jsym map PID` on host JVMs, without attaching anything.
#
# For every host HotSpot JDK (17, Temurin 25): jcmd Compiler.perfmap, jsym
# map --stdout and jcmd again, back to back: >= 99% of the JDK's compiled
# Java methods are in jsym's map with the same start, size and name (a
# method gone from the second jcmd snapshot was unloaded in between, not
# missed).  Once the JVM's JIT compiler has gone quiet (t_jvm_wait_quiet:
# a map taken while it compiles may rightly be partial), jsym map writes
# /tmp/perf-<pid>.map, whole (not partial), sorted, no overlaps, and the JVM
# maps no agent and has no attach socket because of it.  A JVM started
# with -XX:+DisableAttachMechanism (no jcmd, no agent possible): two
# snapshots agree on every method still at the same place, perf names its
# JIT samples from the map jsym wrote, and `jsym attach` points to `jsym
# map`.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "reading another user's JVM memory, perf"
J=$JSYM_BUILD/jsym
CHECK=$JSYM_ROOT/tests/integration/map_check.py
[ -x "$J" ] || t_skip "jsym not built (make)"
[ -n "$(t_jdks)" ] || t_skip "no HotSpot JDK under /usr/lib/jvm"
classes=$(kit_java_build)
PIDS=()
stop_all() {
	local p
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	t_jvm_forget "${PIDS[@]}"
	return 0
}
kit_on_exit stop_all

# jvm HOME NAME [JAVA OPTIONS...]: a host JVM running the workload; its pid
# in JPID once it has compiled for a while.
jvm() {
	local home=$1 name=$2
	shift 2
	"$home/bin/java" -Xmx128m "$@" -cp "$classes" Workload 300 \
		</dev/null >"$KIT_DIR/$name.log" 2>&1 &
	JPID=$!
	PIDS+=("$JPID")
	for _ in $(seq 100); do grep -q 'workload: started' "$KIT_DIR/$name.log" && break; sleep 0.1; done
	grep -q 'workload: started' "$KIT_DIR/$name.log" || t_abort "$name did not start: $(tail -3 "$KIT_DIR/$name.log")"
	sleep 4
}

# jdk_map HOME MAJOR PID OUT: Compiler.perfmap of PID into OUT (JDK 17
# writes /tmp/perf-<pid>.map, later JDKs take a file name).
jdk_map() {
	if [ "$2" -le 17 ]; then
		"$1/bin/jcmd" "$3" Compiler.perfmap >/dev/null && mv "/tmp/perf-$3.map" "$4"
	else
		"$1/bin/jcmd" "$3" Compiler.perfmap "$4" >/dev/null
	fi
}

while read -r home major <&3; do
	t_case "jdk$major-coverage"
	jvm "$home" "w$major"
	p=$JPID
	jdk_map "$home" "$major" "$p" "$KIT_DIR/jdk$major.a" || t_fail "jcmd Compiler.perfmap"
	t_run "$J" map --stdout "$p"
	t_expect_rc 0
	printf '%s\n' "$T_OUT" >"$KIT_DIR/jsym$major.map"
	jdk_map "$home" "$major" "$p" "$KIT_DIR/jdk$major.b" || t_fail "jcmd Compiler.perfmap"
	t_check "$(python3 "$CHECK" coverage "$KIT_DIR/jdk$major.a" "$KIT_DIR/jsym$major.map" 99 \
		"$KIT_DIR/jdk$major.b" 2>&1 | head -n 4)" \
		python3 "$CHECK" coverage "$KIT_DIR/jdk$major.a" "$KIT_DIR/jsym$major.map" 99 "$KIT_DIR/jdk$major.b"
	t_case "jdk$major-write"
	rm -f "/tmp/perf-$p.map"
	t_jvm_wait_quiet "$p" "$home"
	t_run "$J" map --json "$p"
	t_expect_rc 0
	t_expect_out '"source":"vmstructs","ok":true' "\"path\":\"/tmp/perf-$p.map\"" '"partial":false'
	t_check "$(python3 "$CHECK" format "/tmp/perf-$p.map" 2>&1)" python3 "$CHECK" format "/tmp/perf-$p.map"
	t_eq "$(stat -c %a "/tmp/perf-$p.map")" 644 "the map is 0644"
	t_check "no agent mapped in the JVM" bash -c "! grep -q libjsym-agent /proc/$p/maps"
	t_check "no .tmp left in /tmp" bash -c "! ls -a /tmp | grep -q '^\.perf-$p\.map\.jsym'"
done 3< <(t_jdks)

t_case disable-attach
read -r home major < <(t_jdks | tail -n 1)
rm -f /tmp/.java_pid*-none
jvm "$home" noattach -XX:+DisableAttachMechanism
p=$JPID
t_run "$J" map --stdout "$p"
t_expect_rc 0
printf '%s\n' "$T_OUT" >"$KIT_DIR/na.1"
sleep 1
t_run "$J" map --stdout "$p"
printf '%s\n' "$T_OUT" >"$KIT_DIR/na.2"
t_check "$(python3 "$CHECK" stable "$KIT_DIR/na.1" "$KIT_DIR/na.2" 99 2>&1)" \
	python3 "$CHECK" stable "$KIT_DIR/na.1" "$KIT_DIR/na.2" 99
t_run "$J" map "$p"
t_expect_rc 0
t_expect_out "Java methods and [0-9]+ stubs in /tmp/perf-$p\.map"
t_check "no attach socket: nothing attached" test ! -e "/tmp/.java_pid$p"
t_run "$J" attach "$p"
t_expect_rc 2
t_expect_err 'jsym map'

t_case perf-names-jit
if t_perf_record "$p" 3 "$KIT_DIR/perf.data"; then
	"$J" map "$p" >/dev/null
	t_perf_jit "$KIT_DIR/perf.data" "$p" >"$KIT_DIR/jit"
	all=$(wc -l <"$KIT_DIR/jit")
	named=$(grep -cE "$T_JAVA_RE" "$KIT_DIR/jit" || true)
	t_check "perf names JIT frames from jsym's map ($named of $all frames in the map)" \
		test "$named" -gt 0
else
	t_log "perf cannot sample here: $(t_perf_why "$KIT_DIR/perf.data")"
fi
t_finish
