#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 71-map-container.sh - `jsym map` of a Debian container JVM (its own JDK 17,
# PID 1, uid 1000 without a passwd entry), nothing attached.
#
# From the host, once the JVM's JIT compiler has gone quiet (a map taken
# while it compiles may rightly be partial): the map is whole (not
# partial), the container's /tmp/perf-1.map, owned by 1000:1000, mode 0644;
# nothing new in the host's /tmp; >= 99% of the Java methods of
# Compiler.perfmap (the host's jcmd, taken just before and just after) are
# in it with the same start, size and name.  From a sidecar with
# Docker's default capabilities (no CAP_SYS_PTRACE: the JVM's memory is
# opened as its uid) the static musl jsym does the same through /proc/1;
# a sidecar with no capabilities gets a clear error and writes nothing.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, chown"
J=$JSYM_BUILD/jsym
JM=$JSYM_MUSL_BUILD/jsym
CHECK=$JSYM_ROOT/tests/integration/map_check.py
JDK17=/usr/lib/jvm/java-17-openjdk-amd64
JCMD=$JDK17/bin/jcmd
[ -x "$J" ] && [ -x "$JM" ] || t_skip "jsym not built (make)"
[ -x "$JCMD" ] || t_skip "no JDK 17 jcmd on the host"
classes=$(kit_java_build)
rootfs=$(kit_rootfs debian)

ct=$(kit_start mapct "$rootfs" --uid 1000 --gid 1000 --bind "$classes:/opt/jsym-java:ro" \
	-- "$KIT_CT_JAVA" -Xmx128m -cp /opt/jsym-java Workload 0) || t_abort "kit_start mapct"
kit_wait_jvm "$ct" 60 || t_abort "container JVM did not start: $(cat "$KIT_DIR/mapct.log")"
sleep 4
root=/proc/$ct/root

# jdk_map OUT: the JDK's own snapshot (it writes the container's
# /tmp/perf-1.map; moved aside).
jdk_map() {
	"$JCMD" "$ct" Compiler.perfmap >/dev/null 2>&1 && mv "$root/tmp/perf-1.map" "$1"
}

t_case host
t_jvm_wait_quiet "$ct" "$JDK17"
jdk_map "$KIT_DIR/jdk.a" || t_fail "jcmd Compiler.perfmap of the container JVM"
t_run "$J" map --json "$ct"
t_expect_rc 0
t_expect_out '"nspid":1,' '"path":"/tmp/perf-1.map"' '"container":true' '"partial":false'
cp "$root/tmp/perf-1.map" "$KIT_DIR/jsym.map"
jdk_map "$KIT_DIR/jdk.b" || t_fail "jcmd Compiler.perfmap (after)"
t_check "$(python3 "$CHECK" coverage "$KIT_DIR/jdk.a" "$KIT_DIR/jsym.map" 99 "$KIT_DIR/jdk.b" 2>&1 | head -n 3)" \
	python3 "$CHECK" coverage "$KIT_DIR/jdk.a" "$KIT_DIR/jsym.map" 99 "$KIT_DIR/jdk.b"
rm -f "$root/tmp/perf-1.map"
t_run "$J" map "$ct"
t_expect_rc 0
t_expect_out 'in /tmp/perf-1\.map inside the JVM.s container'
t_eq "$(stat -c %u:%g:%a "$root/tmp/perf-1.map")" 1000:1000:644 "the map is the JVM's, 0644"
t_check "$(python3 "$CHECK" format "$root/tmp/perf-1.map" 2>&1)" python3 "$CHECK" format "$root/tmp/perf-1.map"
t_check "nothing written to the host's /tmp" bash -c "! ls -a /tmp | grep -qE '^(perf-1\.map|\.perf-1\.map\.jsym)'"
t_check "no agent in the JVM" bash -c "! grep -q libjsym-agent /proc/$ct/maps"

t_case planted-symlink
rm -f "$root/tmp/perf-1.map"
kit_exec "$ct" --uid 1000 --gid 1000 -- ln -s /etc/passwd /tmp/perf-1.map
t_run "$J" map "$ct"
t_expect_rc 2
t_expect_err 'perf-1\.map in the container is a symlink: refusing to replace it'
t_eq "$(readlink "$root/tmp/perf-1.map")" /etc/passwd "the symlink is left as it was"
rm -f "$root/tmp/perf-1.map"

t_case sidecar
t_run kit_sidecar "$ct" --bind "$JSYM_ROOT:$JSYM_ROOT:ro" -- "$JM" map 1
t_expect_rc 0
t_expect_out 'Java methods and [0-9]+ stubs in /tmp/perf-1\.map'
t_eq "$(stat -c %u:%g "$root/tmp/perf-1.map" 2>&1)" 1000:1000 "the map is the JVM's"
t_check "the map names Java methods" grep -qE ' [a-z].* [A-Za-z]+\.[a-zA-Z]+\(' "$root/tmp/perf-1.map"

t_case sidecar-without-caps
rm -f "$root/tmp/perf-1.map"
t_run kit_sidecar "$ct" --caps none --bind "$JSYM_ROOT:$JSYM_ROOT:ro" -- "$JM" map 1
t_expect_rc 2
t_expect_err 'jsym: 1: '
t_check "nothing written" test ! -e "$root/tmp/perf-1.map"
t_finish
