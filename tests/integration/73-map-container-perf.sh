#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 73-map-container-perf.sh - the issue's "done when": `jsym map` writes a map
# that perf uses to name the Java frames of a container JVM started with
# -XX:+DisableAttachMechanism, on JDK 17 and 25.
#
# For each HotSpot JDK - the Debian root's own JRE 17 and every host JDK
# newer than 17 (Temurin 25), bind-mounted read-only at its own path - a
# container JVM runs the workload as PID 1, uid 1000, with the JDK's default
# flags but -XX:+DisableAttachMechanism (no -XX:+PreserveFramePointer: perf
# only has to name the sampled top frames).  From the host, `jsym map
# <hostpid>` writes /tmp/perf-1.map in the container (1000:1000,
# 0644, sorted, Java methods named); a later `jsym map` after more JIT work
# writes a different map; perf (dso /tmp/perf-<hostpid>.map, which it reads
# from the container's /tmp/perf-1.map) names Java frames from it, and the
# naming rate is printed; the static musl jsym in a sidecar with Docker's
# default capabilities writes it too.  Afterwards the JVM has no attach
# socket and maps no agent.  The perf part is skipped, with the reason, only
# where perf cannot sample.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, reading another user's JVM memory, perf"
J=$JSYM_BUILD/jsym
JM=$JSYM_MUSL_BUILD/jsym
CHECK=$JSYM_ROOT/tests/integration/map_check.py
[ -x "$J" ] && [ -x "$JM" ] || t_skip "jsym not built (make)"
classes=$(kit_java_build)
rootfs=$(kit_rootfs debian)
# A Java method in a map line or in perf script's symbol column.
JAVA_RE=$T_JAVA_RE

# java_entries MAP: lines naming a Java method.
java_entries() { grep -cE "$JAVA_RE" "$1" || true; }

# The workload must run on the oldest JDK here: javac --release 17 writes
# class files of major version 61.
t_case class-version
t_eq "$(od -An -tu1 -j6 -N2 "$classes/Workload.class" | awk '{print $1 * 256 + $2}')" 61 \
	"Workload.class is Java 17's class file version (61)"

# one_jdk LABEL JAVA [KIT_START OPTIONS...]: the whole sequence for the JVM
# `JAVA` in a fresh container.
one_jdk() {
	local label=$1 java=$2 ct root all named unknown rate a b fresh rc
	shift 2
	ct=$(kit_start "$label" "$rootfs" --uid 1000 --gid 1000 \
		--bind "$classes:/opt/jsym-java:ro" "$@" \
		-- "$java" -Xmx128m -XX:+DisableAttachMechanism \
		-cp /opt/jsym-java Workload 0) || t_abort "kit_start $label"
	kit_wait_jvm "$ct" 60 || t_abort "$label: the JVM did not start: $(cat "$KIT_DIR/$label.log")"
	for _ in $(seq 100); do grep -q 'workload: started' "$KIT_DIR/$label.log" && break; sleep 0.1; done
	grep -q 'workload: started' "$KIT_DIR/$label.log" ||
		t_abort "$label: no workload: $(tail -n 3 "$KIT_DIR/$label.log")"
	sleep 4
	root=/proc/$ct/root

	t_case "$label-jvm"
	t_eq "$(awk '/^NSpid:/ {print $NF}' "/proc/$ct/status")" 1 "the JVM is PID 1"
	t_eq "$(awk '/^Uid:/ {print $2}' "/proc/$ct/status")" 1000 "the JVM runs as uid 1000"
	t_check "started with -XX:+DisableAttachMechanism" \
		grep -qz -- '^-XX:+DisableAttachMechanism$' "/proc/$ct/cmdline"
	t_check "libjvm.so of $java" grep -q "${java%/bin/java}/lib/server/libjvm\.so" "/proc/$ct/maps"

	t_case "$label-map"
	t_run "$J" map "$ct"
	t_expect_rc 0
	t_expect_out 'Java methods and [0-9]+ stubs in /tmp/perf-1\.map inside the JVM.s container'
	t_eq "$(stat -c %u:%g:%a "$root/tmp/perf-1.map" 2>&1)" 1000:1000:644 "the map is the JVM's, 0644"
	t_check "$(python3 "$CHECK" format "$root/tmp/perf-1.map" 2>&1)" \
		python3 "$CHECK" format "$root/tmp/perf-1.map"
	cp "$root/tmp/perf-1.map" "$KIT_DIR/$label.1"
	t_check "the map names Java methods ($(java_entries "$KIT_DIR/$label.1") entries)" \
		test "$(java_entries "$KIT_DIR/$label.1")" -gt 0
	t_check "nothing written to the host's /tmp" bash -c "! ls -a /tmp | grep -qE '^(perf-1\.map|\.perf-1\.map\.jsym)'"

	# More JIT work changes the code cache; the map written then must
	# follow it.  Tried once a second until it does (a check of content,
	# not of time: the loop ends at the first change).
	t_case "$label-refresh"
	a=$KIT_DIR/$label.1
	b=$KIT_DIR/$label.2
	rc=0
	for _ in $(seq 30); do
		sleep 1
		"$J" map "$ct" >/dev/null 2>"$KIT_DIR/$label.err" || { rc=$?; break; }
		cp "$root/tmp/perf-1.map" "$b"
		cmp -s "$a" "$b" || break
	done
	t_eq "$rc" 0 "a later jsym map exits 0 $(head -c 300 "$KIT_DIR/$label.err")"
	fresh=$(comm -13 <(sort "$a") <(sort "$b") | wc -l)
	t_log "$label: $(java_entries "$a") Java entries, then $(java_entries "$b"); $fresh lines new"
	t_check "the second map has new entries ($fresh)" test "$fresh" -gt 0
	t_check "$(python3 "$CHECK" format "$b" 2>&1)" python3 "$CHECK" format "$b"
	t_eq "$(stat -c %u:%g "$root/tmp/perf-1.map" 2>&1)" 1000:1000 "the refreshed map is the JVM's"

	t_case "$label-perf"
	if t_perf_record "$ct" 3 "$KIT_DIR/$label.perf"; then
		# What was compiled while perf sampled is in the map from now on.
		t_run "$J" map "$ct"
		t_expect_rc 0
		# frames in the JIT map: perf's dso /tmp/perf-<hostpid>.map, read
		# from the container's /tmp/perf-1.map
		t_perf_jit "$KIT_DIR/$label.perf" "$ct" >"$KIT_DIR/$label.jit"
		all=$(wc -l <"$KIT_DIR/$label.jit")
		named=$(grep -cE "$JAVA_RE" "$KIT_DIR/$label.jit" || true)
		unknown=$(grep -cF '[unknown]' "$KIT_DIR/$label.jit" || true)
		rate=$(awk -v n="$named" -v a="$all" 'BEGIN { printf "%.1f", a ? 100 * n / a : 0 }')
		# The others are the interpreter's and stubs', named as HotSpot names them.
		t_log "$label: perf named $named of $all frames in the JVM's map as Java methods ($rate%; the rest interpreter and stubs, $unknown [unknown])"
		grep -E "$JAVA_RE" "$KIT_DIR/$label.jit" | sort | uniq -c | sort -rn | head -n 3 >&2
		t_check "perf names Java frames from the container's map ($named of $all, $rate%)" \
			test "$named" -gt 0
	else
		t_log "perf cannot sample here: $(t_perf_why "$KIT_DIR/$label.perf")"
	fi

	t_case "$label-sidecar"
	rm -f "$root/tmp/perf-1.map"
	t_run kit_sidecar "$ct" --bind "$JSYM_ROOT:$JSYM_ROOT:ro" -- "$JM" map 1
	t_expect_rc 0
	t_expect_out 'Java methods and [0-9]+ stubs in /tmp/perf-1\.map'
	t_eq "$(stat -c %u:%g:%a "$root/tmp/perf-1.map" 2>&1)" 1000:1000:644 "the map is the JVM's, 0644"
	t_check "the sidecar's map names Java methods ($(java_entries "$root/tmp/perf-1.map") entries)" \
		grep -qE "$JAVA_RE" "$root/tmp/perf-1.map"

	t_case "$label-nothing-attached"
	t_check "no attach socket /tmp/.java_pid1 in the container" test ! -e "$root/tmp/.java_pid1"
	t_check "no attach socket on the host" test ! -e "/tmp/.java_pid$ct"
	t_check "no agent mapped in the JVM" bash -c "! grep -q libjsym /proc/$ct/maps"
	t_check "the JVM still runs" kill -0 "$ct"
	kit_stop "$label"
}

one_jdk jdk17 "$KIT_CT_JAVA"
newer=0
while read -r home major <&3; do
	[ "$major" -gt 17 ] || continue
	newer=$((newer + 1))
	one_jdk "jdk$major" "$home/bin/java" --bind "$home:$home:ro"
done 3< <(t_jdks)
[ "$newer" -gt 0 ] || t_log "no host JDK newer than 17 under /usr/lib/jvm: JDK 17 only"
t_finish
