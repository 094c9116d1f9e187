#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 81-arm64-attach.sh - the aarch64 jsym against a real arm64 HotSpot: Debian
# bookworm's arm64 openjdk-17 (the debian-arm64 root) as PID 1 of a
# container, uid 1000 without a passwd entry, run by qemu-user through
# binfmt_misc; jsym's aarch64 builds (make ARCH=aarch64) run the same way.
#
#   list     `jsym list` names it a HotSpot 17
#   exec     `jsym exec PID properties` over the attach protocol: os.arch=aarch64
#   map      `jsym map` writes the container's /tmp/perf-1.map, owned by
#            1000, >= 99% of the methods of the arm64 JDK's own jcmd
#            Compiler.perfmap (taken just before and after) with the same
#            start, size and name; qemu answers process_vm_readv with
#            ENOSYS, and jsym reads the JVM through /proc/PID/mem instead
#   attach   `jsym attach`: both aarch64 builds copied into the container's
#            /tmp owned by 1000, the glibc one picked by the probe under the
#            JVM's own loader and loaded (with dir=/tmp/jsym-out: the JDK's
#            Compiler.perfmap writes /tmp/perf-1.map itself); its map owned
#            by 1000 and holding >= 95% of the live methods of
#            Compiler.perfmap at the same start and size
#   codelist >= 95% of the live nmethods of jcmd Compiler.codelist have
#            an entry of the agent's map inside their code, under their name
#   unwind   the agent ran with `jitdump`: its stop line counts the compiled
#            frames written with unwinding data, at most 1 in 10 without
#            its aarch64 prologue found, and jitdump_check.py reads every
#            record back (well formed, over no other load's code)
#   x86-64   the x86_64 jsym says the JVM is aarch64 and which jsym to run,
#            for attach and for map
#   options  a JVM run with -XX:+DisableAttachMechanism under the emulator:
#            jsym reads the option past qemu's words in /proc/PID/cmdline
#            and refuses at once instead of waiting out its timeout
#
# Everything runs emulated, so the waits here are long (the JVM starts in
# ~10 s, jcmd in ~8 s); jsym's own timeouts are its defaults.  Only the
# /proc/PID/root path is exercised: a qemu-user process has a second
# thread, so setns(CLONE_NEWNS) fails with EINVAL and jsym falls back
# (docs/testing.md says what only a native arm64 machine covers).
# A cold debian-arm64 root is built first (6-16 minutes, emulated), hence:
# test-timeout: 2400
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, chown"
kit_qemu_ready || t_skip "$KIT_QEMU_WHY"
JA=$JSYM_ROOT/musl-build-aarch64/jsym
JG=$JSYM_ROOT/glibc-build-aarch64/jsym
JX=$JSYM_BUILD/jsym
CHECK=$JSYM_ROOT/tests/integration/map_check.py
[ -x "$JX" ] || t_skip "x86_64 jsym not built (make)"
classes=$(kit_java_build)
rootfs=$(kit_rootfs debian-arm64)
JAVA=$KIT_ARM64_JDK/bin/java
JCMD=$KIT_ARM64_JDK/bin/jcmd

ct=$(kit_start a64 "$rootfs" --uid 1000 --gid 1000 --bind "$classes:/opt/jsym-java:ro" \
	-- "$JAVA" -Xmx128m -cp /opt/jsym-java Workload 0) ||
	t_abort "kit_start a64"
kit_wait_jvm "$ct" 180 || t_abort "arm64 JVM did not start: $(cat "$KIT_DIR/a64.log")"
sleep 15   # let C1 and C2 compile under emulation
root=/proc/$ct/root

# jdk_perfmap OUT: the arm64 JDK's own snapshot, by its own jcmd in the
# container (it writes /tmp/perf-1.map there; moved aside).
jdk_perfmap() {
	kit_exec "$ct" --uid 1000 --gid 1000 -- "$JCMD" 1 Compiler.perfmap >/dev/null 2>&1 &&
		mv "$root/tmp/perf-1.map" "$1"
}

t_case list
t_run "$JG" list
t_expect_rc 0
t_expect_out "^$ct +1 +1000 +HotSpot +17[^ ]* +glibc "

t_case exec
t_run "$JA" exec "$ct" properties
t_expect_rc 0
t_expect_out 'os\.arch=aarch64' 'jsym\.test\.mark|java\.version=17'

t_case map
jdk_perfmap "$KIT_DIR/jdk.a" || t_fail "jcmd Compiler.perfmap of the arm64 JVM"
t_run "$JA" map --json "$ct"
t_expect_rc 0
t_expect_out '"nspid":1,' '"path":"/tmp/perf-1.map"' '"container":true'
cp "$root/tmp/perf-1.map" "$KIT_DIR/jsym.map"
t_eq "$(t_owner "$root/tmp/perf-1.map")" 1000:1000 "the map is the JVM's"
jdk_perfmap "$KIT_DIR/jdk.b" || t_fail "jcmd Compiler.perfmap (after)"
t_check "$(python3 "$CHECK" coverage "$KIT_DIR/jdk.a" "$KIT_DIR/jsym.map" 99 "$KIT_DIR/jdk.b" 2>&1 | head -n 3)" \
	python3 "$CHECK" coverage "$KIT_DIR/jdk.a" "$KIT_DIR/jsym.map" 99 "$KIT_DIR/jdk.b"
t_check "$(python3 "$CHECK" format "$KIT_DIR/jsym.map" 2>&1)" python3 "$CHECK" format "$KIT_DIR/jsym.map"
rm -f "$root/tmp/perf-1.map"

t_case map-reads-proc-mem
# qemu-user answers process_vm_readv with ENOSYS: the emulated jsym must
# read the JVM through /proc/PID/mem (qemu's own strace shows both calls)
t_run env QEMU_STRACE=1 "$JA" map "$ct"
t_expect_rc 0
t_expect_err 'process_vm_readv\(.*errno=38' 'openat\([0-9]+,"mem",O_RDONLY'
rm -f "$root/tmp/perf-1.map"

t_case x86-64-jsym
t_run "$JX" attach "$ct"
t_expect_rc 2
t_expect_err 'the JVM is aarch64 and this jsym \(with its agent builds\) is x86_64: run the aarch64 jsym'
t_check "nothing copied by the x86_64 jsym" bash -c "! ls -d $root/tmp/jsym-* 2>/dev/null"
t_run "$JX" map "$ct"
t_expect_rc 2
t_expect_err 'the JVM is aarch64 .* run the aarch64 jsym'

t_case attach
# The agent writes into its own directory: JDK 17's Compiler.perfmap always
# writes /tmp/perf-1.map, which would clobber the agent's.
out=/tmp/jsym-out
mkdir -m 755 "$root$out" && chown 1000:1000 "$root$out"
start=$(date +%s%N)
t_run "$JA" attach -v --options "dir=$out,jitdump" "$ct"
t_log "aarch64 jsym attach under qemu: $((($(date +%s%N) - start) / 1000000)) ms"
t_expect_rc 0
t_expect_out 'agent loaded \(HotSpot 17[^,]*, glibc build, copied to /tmp/jsym-[0-9a-f]{12}-[0-9]+-[0-9]+/glibc/libjsym-agent\.so\)'
t_expect_err 'probe glibc build under /[^ ]*ld-linux-aarch64[^ ]*: loads'
dir=$(ls -d "$root"/tmp/jsym-*-* 2>/dev/null | head -n 1)
t_check "a per-target directory in the container's /tmp ($dir)" test -d "$dir"
t_copies_are "$dir" 1000:1000 -aarch64
t_eq "$(t_owner "$dir")" 1000:1000 "the directory is the JVM's"
t_eq "$(awk '/libjsym-agent/ {print $6}' "/proc/$ct/maps" | sort -u)" \
	"/tmp/${dir##*/}/glibc/libjsym-agent.so" "the JVM maps the copied glibc build"
for _ in $(seq 100); do [ -s "$root$out/perf-1.map" ] && break; sleep 0.2; done
sleep 3    # the agent's first flush of what was compiled before it came
t_eq "$(t_owner "$root$out/perf-1.map" 2>&1)" 1000:1000 "the agent's map is the JVM's"
jdk_perfmap "$KIT_DIR/jdk.c" || t_fail "jcmd Compiler.perfmap (agent)"
sleep 2    # one flush period and margin, emulated
cp "$root$out/perf-1.map" "$KIT_DIR/agent.map"
AG=$JSYM_ROOT/tests/integration/agent_check.py
t_check "$(python3 "$AG" coverage "$KIT_DIR/jdk.c" "$KIT_DIR/agent.map" "$root$out/jsym-1.journal" 95 2>&1 | head -n 3)" \
	python3 "$AG" coverage "$KIT_DIR/jdk.c" "$KIT_DIR/agent.map" "$root$out/jsym-1.journal" 95

t_case codelist
kit_exec "$ct" --uid 1000 --gid 1000 -- "$JCMD" 1 Compiler.codelist >"$KIT_DIR/codelist" 2>&1 ||
	t_fail "jcmd Compiler.codelist"
sleep 3    # the agent's next flush: what was compiled before the listing
cp "$root$out/perf-1.map" "$KIT_DIR/agent2.map"
t_check "$(python3 "$CHECK" codelist "$KIT_DIR/codelist" "$KIT_DIR/agent2.map" 95 2>&1 | head -n 3)" \
	python3 "$CHECK" codelist "$KIT_DIR/codelist" "$KIT_DIR/agent2.map" 95

t_case unwind
# The jitdump's unwinding data of real arm64 code: the agent found C1's and
# C2's aarch64 prologues (stop line), and every record is well formed for
# its code and mapped over no other load's code (jitdump_check.py).
t_run "$JA" attach --stop "$ct"
t_expect_rc 0
for _ in $(seq 50); do grep -q 'jitdump records' "$root$out/jsym-1.log" 2>/dev/null && break; sleep 0.2; done
stop=$(grep -o 'jitdump records.*' "$root$out/jsym-1.log" | tail -n 1)
t_log "agent: ${stop:-no stop line}"
fixed=$(sed -n 's/.* \([0-9]*\) fixed frames, \([0-9]*\) of them without a prologue found.*/\1/p' <<<"$stop")
guessed=$(sed -n 's/.* \([0-9]*\) fixed frames, \([0-9]*\) of them without a prologue found.*/\2/p' <<<"$stop")
t_check "compiled frames with unwinding data on arm64: ${fixed:-none}" [ "${fixed:-0}" -ge 20 ]
t_check "their prologues found in the code: all but ${guessed:-?} of ${fixed:-?} (at most 1 in 10 from the frame-complete offset)" \
	[ "$((${guessed:-999999} * 10))" -le "${fixed:-0}" ]
python3 "$JSYM_ROOT/tests/integration/jitdump_check.py" "$root$out/jsym-jit-1/jit-1.dump" \
	>"$KIT_DIR/dumpcheck" 2>&1
rc=$?
t_check "$(head -n 3 "$KIT_DIR/dumpcheck" | tr '\n' ' ')" [ $rc = 0 ]

t_case options-under-emulator
ct2=$(kit_start a64off "$rootfs" --uid 1000 --gid 1000 --bind "$classes:/opt/jsym-java:ro" \
	-- "$JAVA" -Xmx64m -XX:TieredStopAtLevel=1 -XX:+DisableAttachMechanism -cp /opt/jsym-java Workload 0) ||
	t_abort "kit_start a64off"
kit_wait_jvm "$ct2" 180 || t_abort "second arm64 JVM did not start: $(cat "$KIT_DIR/a64off.log")"
t_check "its cmdline starts with the emulator" bash -c "tr '\\0' '\\n' </proc/$ct2/cmdline | head -n 1 | grep -q qemu"
start=$(date +%s)
t_run "$JA" exec "$ct2" properties
t_expect_rc 2
t_expect_err 'runs with -XX:\+DisableAttachMechanism'
t_check "refused at once (not after a timeout)" test $(($(date +%s) - start)) -lt 5
t_finish
