#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 10-kit-debian: the container kit's main promise.  The Java workload runs as
# PID 1 of a `debian` container, uid:gid 1000:1000 without a passwd entry,
# on the container's own JRE; the host JDK's jcmd reaches it; its /tmp and
# root are its own.  Then the same workload runs on the host on every JDK
# t_jdks finds, each checked with its own jcmd.
set -euo pipefail
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, pivot_root"
[ -x "$KIT_HOST_JDK/bin/jcmd" ] || t_skip "no host JDK at $KIT_HOST_JDK"

classes=$(kit_java_build)
rootfs=$(kit_rootfs debian)

# A file only the host's /tmp has.
hostmark=$(mktemp /tmp/jsym-kit-hostmark.XXXXXX)
kit_on_exit "rm -f '$hostmark'"

pid=$(kit_start wl "$rootfs" --uid 1000 --gid 1000 --bind "$classes:/opt/jsym-java:ro" \
	-- "$KIT_CT_JAVA" -Xmx128m -cp /opt/jsym-java Workload 0)
t_log "workload container: host pid $pid"
kit_wait_jvm "$pid" 60 || t_abort "workload JVM did not come up: $(cat "$KIT_DIR/wl.log")"

# PID 1 of its own pid namespace, running as 1000:1000.
nspid=$(awk '/^NSpid:/ {print $NF}' "/proc/$pid/status")
t_eq "$nspid" 1 "NSpid of the workload"
t_eq "$(awk '/^Uid:/ {print $2 ":" $3}' "/proc/$pid/status")" "1000:1000" "uid"
t_eq "$(awk '/^Gid:/ {print $2 ":" $3}' "/proc/$pid/status")" "1000:1000" "gid"
grep -q '^1000:' "$rootfs/etc/passwd" && t_abort "uid 1000 unexpectedly has a passwd entry"
t_contains "$(tr '\0' ' ' <"/proc/$pid/cmdline")" "Workload" "PID 1 is the JVM"
t_contains "$(cat "$KIT_DIR/wl.log")" "workload: started" "workload output"

# Its own JRE: libjvm.so comes from the rootfs, not the host.
jvm_lib=$(awk '/libjvm\.so/ {print $6; exit}' "/proc/$pid/maps")
t_eq "$(stat -L -c %i "/proc/$pid/root$jvm_lib")" \
	"$(stat -c %i "$rootfs$jvm_lib")" "libjvm.so is the container's"

# The host JDK's jcmd attaches across the namespaces.
out=$("$KIT_HOST_JDK/bin/jcmd" "$pid" VM.version 2>&1) || t_abort "host jcmd failed: $out"
t_contains "$out" "OpenJDK 64-Bit Server VM" "jcmd VM.version"
t_contains "$out" "JDK 17" "jcmd VM.version"

# The workload keeps both compilers busy: many distinct methods of its own
# classes compiled, a good part of them by C2 (level 4).  Polled, not timed.
workload_methods='(Arith|Strs|Rx|Colls|Funcs|Bigs|Recur)\.'
for ((i = 0; i < 60; i++)); do
	list=$("$KIT_HOST_JDK/bin/jcmd" "$pid" Compiler.codelist 2>/dev/null) || list=""
	all=$(echo "$list" | awk -v re="$workload_methods" '$0 ~ re {print $4}' | sort -u | wc -l)
	c2=$(echo "$list" | awk -v re="$workload_methods" '$0 ~ re && $2 == 4 {print $4}' | sort -u | wc -l)
	[ "$all" -ge 30 ] && [ "$c2" -ge 10 ] && break
	sleep 1
done
[ "$all" -ge 30 ] && [ "$c2" -ge 10 ] ||
	t_abort "workload compiled only $all of its methods ($c2 by C2) after 60 s"
t_log "workload: $all methods compiled, $c2 by C2"

# After pivot_root, joining the mount namespace lands in the container's root.
t_eq "$(kit_exec "$pid" -- cat /etc/debian_version)" \
	"$(cat "$rootfs/etc/debian_version")" "debian_version via kit_exec"
t_eq "$(kit_exec "$pid" -- cat /proc/1/comm)" java "PID 1 seen from inside"
t_eq "$(kit_exec "$pid" --uid 1000 --gid 1000 -- id -u)" 1000 "kit_exec --uid"

# A private /tmp: the host's file is invisible, the device/inode differ.
if kit_exec "$pid" -- test -e "/tmp/$(basename "$hostmark")"; then
	t_abort "host /tmp file visible in the container"
fi
[ "$(stat -L -c %d:%i "/proc/$pid/root/tmp")" != "$(stat -c %d:%i /tmp)" ] ||
	t_abort "container /tmp is the host's /tmp"
t_eq "$(kit_exec "$pid" -- stat -c %a /tmp)" 1777 "mode of /tmp"
# The JVM's attach socket lives in the container's /tmp.
kit_exec "$pid" -- test -S /tmp/.java_pid1 || t_abort "no /tmp/.java_pid1 in the container"

# Writes go to the overlay, never to the cached tree.
kit_exec "$pid" -- sh -c 'echo x > /etc/jsym-kit-write-test'
[ ! -e "$rootfs/etc/jsym-kit-write-test" ] || t_abort "container write reached the cached rootfs"

# Nothing of the container is mounted in the host's namespace.
if findmnt -rn -o TARGET,SOURCE | grep -q jsym; then
	t_abort "kit mounts visible on the host: $(findmnt -rn | grep jsym)"
fi

kit_stop wl
[ ! -e "/proc/$pid" ] || t_abort "workload pid $pid still exists after kit_stop"

# The same workload on the host on every HotSpot JDK, each with its own jcmd.
njdk=0
while read -r jdk major <&3; do
	[ -x "$jdk/bin/jcmd" ] || { t_log "no jcmd in $jdk (a JRE?), not checked"; continue; }
	# Runs until stopped, so a slow jcmd on a loaded machine cannot miss it.
	"$jdk/bin/java" -Xmx128m -cp "$classes" Workload 0 >"$KIT_DIR/host.log" 2>&1 &
	hpid=$!
	kit_on_exit "kill -KILL $hpid 2>/dev/null; wait $hpid 2>/dev/null"
	kit_wait_jvm "$hpid" 60 || t_abort "workload on $jdk did not start: $(cat "$KIT_DIR/host.log")"
	out=$("$jdk/bin/jcmd" "$hpid" VM.version 2>&1) || t_abort "$jdk jcmd failed: $out"
	t_contains "$out" "Server VM" "$jdk jcmd VM.version"
	t_contains "$(cat "$KIT_DIR/host.log")" "workload: started" "workload on $jdk"
	kill -TERM "$hpid"
	wait "$hpid" || true
	# A short run ends by itself, with its final line.
	out2=$("$jdk/bin/java" -Xmx128m -cp "$classes" Workload 1 2>&1) ||
		t_abort "a 1 s workload on $jdk failed: $out2"
	t_contains "$out2" "workload: done" "1 s workload on $jdk"
	t_log "$jdk (JDK $major): $(echo "$out" | grep -m1 'VM version')"
	njdk=$((njdk + 1))
done 3< <(t_jdks)
[ $njdk -ge 1 ] || t_abort "t_jdks found no HotSpot JDK with jcmd"
t_log "pass: container workload + $njdk host JDKs"
t_finish
