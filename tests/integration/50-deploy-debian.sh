#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 50-deploy-debian.sh - `jsym attach PID`: the agent delivered into a Debian
# container JVM (its own JDK 17, PID 1, uid 1000 without a passwd entry).
#
# From the host: both builds copied into the container's /tmp/jsym-<hash>-
# <start>/{glibc,musl}/, owned by 1000; the glibc build chosen by the probe
# run under the container's own loader; the map written in the container's
# /tmp owned by 1000; nothing new in the host's /tmp; perf names Java frames
# from it.  Then: re-attach refreshes (one agent mapped), --json says the
# same, --stop stops, detach removes the unmapped copies.  8 racing attaches
# on a fresh JVM end with one agent and one flush thread.  From a sidecar
# with Docker's default capabilities (no CAP_SYS_ADMIN, no CAP_SYS_PTRACE)
# the same works through /proc/1/root; a sidecar with no capabilities gets
# a clear error and nothing is written.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, chown"
J=$JSYM_BUILD/jsym
JM=$JSYM_MUSL_BUILD/jsym
[ -x "$J" ] && [ -x "$JM" ] || t_skip "jsym not built (make)"

classes=$(kit_java_build)
rootfs=$(kit_rootfs debian)

# start NAME: a Debian container running the workload as PID 1, uid 1000.
start() {
	local pid
	pid=$(kit_start "$1" "$rootfs" --uid 1000 --gid 1000 --bind "$classes:/opt/jsym-java:ro" \
		-- "$KIT_CT_JAVA" -Xmx128m -cp /opt/jsym-java Workload 0)
	kit_wait_jvm "$pid" 60 || t_abort "container JVM $1 did not start: $(cat "$KIT_DIR/$1.log")"
	echo "$pid"
}
# flushers PID: threads named jsym-flush.
flushers() { cat /proc/"$1"/task/*/comm 2>/dev/null | grep -c '^jsym-flush' || true; }

hostlist() { ls -a /tmp | grep '^jsym-[0-9a-f]\{12\}-' || true; }
host_before=$(hostlist)

t_case host-attach
ct=$(start deb1)
root=/proc/$ct/root
t_run "$J" attach -v "$ct"
t_expect_rc 0
t_expect_out 'agent loaded \(HotSpot 17[^,]*, glibc build, copied to /tmp/jsym-[0-9a-f]{12}-[0-9]+-[0-9]+/glibc/libjsym-agent\.so\)' \
	'/tmp/perf-1\.map inside the JVM.s container'
t_expect_err 'probe glibc build under /[^ ]*ld-linux[^ ]*: loads \(libc glibc' 'mnt namespace'
dir=$(ls -d "$root"/tmp/jsym-*-* 2>/dev/null | head -n 1)
t_check "a per-target directory in the container's /tmp ($dir)" test -d "$dir"
t_copies_are "$dir" 1000:1000
t_eq "$(t_owner "$dir")" 1000:1000 "the directory is the JVM's"
t_eq "$(t_agents "$ct")" "/tmp/${dir##*/}/glibc/libjsym-agent.so" "the JVM maps the copied glibc build"
for _ in $(seq 50); do [ -s "$root/tmp/perf-1.map" ] && break; sleep 0.1; done
t_check "the map is in the container's /tmp" test -s "$root/tmp/perf-1.map"
t_eq "$(t_owner "$root/tmp/perf-1.map")" 1000:1000 "the map is the JVM's"
t_check "the map names Java methods" grep -qE ' [a-z].* [A-Za-z]+\.[a-zA-Z]+\(' "$root/tmp/perf-1.map"
t_eq "$(hostlist)" "$host_before" "nothing new in the host's /tmp"

t_case perf-names-java
if t_perf_record "$ct" 3 "$KIT_DIR/perf.data"; then
	# frames in the JIT map (perf's dso /tmp/perf-<hostpid>.map, read from
	# the container's /tmp/perf-1.map) that got a Java method's name
	named=$(t_perf_jit "$KIT_DIR/perf.data" "$ct" | grep -cE "$T_JAVA_RE" || true)
	t_check "perf names Java frames from the container's map ($named frames)" test "$named" -gt 0
else
	t_log "perf cannot sample here: $(t_perf_why "$KIT_DIR/perf.data")"
fi

t_case list-shows-the-agent
t_run "$J" list
t_expect_out "^$ct +1 +1000 +HotSpot +[^ ]+ +glibc +yes "
t_run "$J" list --json
t_check "list --json names the mapped agent" python3 -c 'import json,sys; r=[x for x in json.loads(sys.argv[1]) if x["pid"]==int(sys.argv[2])][0]; assert r["agent"].endswith("/glibc/libjsym-agent.so")' "$T_OUT" "$ct"

t_case re-attach
t_run "$J" attach "$ct"
t_expect_rc 0
t_expect_out 'agent refreshed .*already-loaded'
t_eq "$(t_agents "$ct" | wc -l)" 1 "still one agent mapped"
t_eq "$(flushers "$ct")" 1 "one flush thread"

t_case json
t_run "$J" attach --json "$ct"
t_expect_rc 0
t_check "valid JSON" python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["ok"] and d["build"]=="glibc" and d["delivery"]=="already-loaded" and d["nspid"]==1 and d["uid"]==1000' "$T_OUT"

t_case stop-and-detach
t_run "$J" attach --stop "$ct"
t_expect_rc 0
t_expect_out 'agent stopped'
t_check "the agent logged its stop" grep -q 'stop' "$root/tmp/jsym-1.log"
t_run "$J" detach "$ct"
t_expect_rc 0
t_expect_out 'removed 3 copied files; kept the mapped /tmp/jsym-'
t_check "the unmapped copies are gone" test ! -e "$dir/musl/libjsym-agent.so" -a ! -e "$dir/glibc/jsym-probe"
t_check "the mapped agent stays" test -f "$dir/glibc/libjsym-agent.so"
kit_stop deb1

t_case racing-attaches
ct=$(start deb2)
for i in $(seq 8); do
	"$J" attach "$ct" >"$KIT_DIR/race.$i.out" 2>&1 &
done
rcs=""
for job in $(jobs -p); do
	wait "$job"
	rcs="$rcs$?"
done
t_eq "$rcs" 00000000 "8 concurrent attaches all succeed"
t_eq "$(t_agents "$ct" | wc -l)" 1 "exactly one agent file mapped"
sleep 0.5
t_eq "$(flushers "$ct")" 1 "exactly one flush thread"
t_eq "$(grep -c 'started:' "/proc/$ct/root/tmp/jsym-1.log")" 1 "the agent started once"
t_eq "$(grep -c 'attached again: refreshing' "/proc/$ct/root/tmp/jsym-1.log")" 7 \
	"the seven other attaches refreshed it"
kit_stop deb2

t_case sidecar
ct=$(start deb3)
t_run kit_sidecar "$ct" --bind "$JSYM_ROOT:$JSYM_ROOT:ro" -- "$JM" attach -v 1
t_expect_rc 0
t_expect_out 'agent loaded \(HotSpot 17[^,]*, glibc build, copied to /tmp/jsym-'
t_expect_err 'no CAP_SYS_ADMIN' 'probe glibc build .*: loads'
t_check "the map is in the container's /tmp" test -s "/proc/$ct/root/tmp/perf-1.map"
t_eq "$(t_owner "/proc/$ct/root/tmp/perf-1.map")" 1000:1000 "the map is the JVM's"
kit_stop deb3

t_case sidecar-without-caps
ct=$(start deb4)
t_run kit_sidecar "$ct" --caps none --bind "$JSYM_ROOT:$JSYM_ROOT:ro" -- "$JM" attach 1
t_expect_rc 2
t_expect_err 'CAP_[A-Z_]+'
t_eq "$(ls -a "/proc/$ct/root/tmp" | grep -c '^jsym-' || true)" 0 "nothing written in the container's /tmp"
t_check "no agent mapped" test -z "$(t_agents "$ct")"
kit_stop deb4

t_finish
