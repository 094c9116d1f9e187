#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 54-deploy-memfd.sh - `jsym attach` into a Debian container JVM whose temp
# dir cannot take the agent: delivered from a memfd, nothing of jsym written
# in the container (docs/deploy.md "When nothing can be copied").
#
# (a) TMPDIR read-only, --options dir=/ro (read-only too): exit 4 and the
#     advice to pass a writable dir=; then --options dir=/dev/shm: memfd, the map in /dev/shm
#     owned by 1000, nothing new in TMPDIR nor jsym files in /tmp; a
#     read-only /tmp itself: HotSpot cannot bind its attach socket there,
#     jsym says so (exit 2).  (b) noexec /tmp: memfd, the map in /tmp.
# (c) /tmp of 600 KiB: memfd, only the agent's own outputs in /tmp.
# (d) re-attach of a memfd-delivered agent: exit 0, "already runs", still
#     one agent mapped and one jsym-flush thread.  (e) from a sidecar with
#     Docker's default capabilities (no CAP_SYS_ADMIN: chroot, shared pid ns)
#     with a read-only TMPDIR: memfd works.  After every attach the helper
#     is gone: the container's /proc lists the JVM only.  --delivery copy
#     keeps the old refusal; --delivery memfd forces a memfd.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, setns(pid), chown"
J=$JSYM_BUILD/jsym
JM=$JSYM_MUSL_BUILD/jsym
[ -x "$J" ] && [ -x "$JM" ] || t_skip "jsym not built (make)"

classes=$(kit_java_build)
rootfs=$(kit_rootfs debian)
ro=$KIT_DIR/ro
mkdir -p "$ro"

# start NAME [kit options]: the workload as PID 1, uid 1000.
start() {
	local name=$1 pid
	shift
	pid=$(kit_start "$name" "$rootfs" --uid 1000 --gid 1000 \
		--bind "$classes:/opt/jsym-java:ro" "$@" \
		-- "$KIT_CT_JAVA" -Xmx128m -cp /opt/jsym-java Workload 0)
	kit_wait_jvm "$pid" 60 || t_abort "container JVM $name did not start: $(cat "$KIT_DIR/$name.log")"
	echo "$pid"
}
flushers() { cat /proc/"$1"/task/*/comm 2>/dev/null | grep -c '^jsym-flush' || true; }
# ct_procs PID: the pids the container's own procfs lists.
ct_procs() { ls "/proc/$1/root/proc" | grep -E '^[0-9]+$' | sort -n | tr '\n' ' '; }
# jsym_files DIR: what jsym or its agent could have left in DIR (not the
# JVM's own .java_pid1 socket and hsperfdata).
jsym_files() { ls -A "$1" | grep -v -e '^\.java_pid' -e '^hsperfdata_' | tr '\n' ' '; }
wait_map() { for _ in $(seq 50); do [ -s "$1" ] && return 0; sleep 0.1; done; return 1; }
helper_gone() {
	t_eq "$(ct_procs "$1")" "1 " "the helper is gone: the container runs the JVM only"
	t_eq "$(pgrep -x jsym-memfd | wc -l)" 0 "no jsym-memfd process left on the host"
}

t_case a-tmpdir-readonly-with-dir
ct=$(start ma --bind "$ro:/ro:ro" --env TMPDIR=/ro)
t_run "$J" attach --options dir=/ro "$ct"
t_expect_rc 4
t_expect_err 'returned 3: the container.s /ro is read-only, and there is no other writable directory .*--options dir=<a writable directory in the container>'
t_check "the failed agent is not mapped (HotSpot unloads it)" test -z "$(t_agents "$ct")"
t_run "$J" attach -v --options dir=/dev/shm "$ct"
t_expect_rc 0
t_expect_out 'agent loaded \(HotSpot 17[^,]*, glibc build, memfd /proc/[0-9]+/fd/[0-9]+\)' \
	'delivered from a memfd, nothing written in the container: the container.s /ro is read-only' \
	'symbols in /dev/shm/perf-1\.map'
t_expect_err 'probe glibc build \(from a memfd\) under [^ ]*ld-linux[^ ]*: loads' \
	'memfd helper: pid [0-9]+ \([0-9]+ in the JVM.s pid namespace\)'
t_check "the map is in /dev/shm" wait_map "/proc/$ct/root/dev/shm/perf-1.map"
t_eq "$(t_owner "/proc/$ct/root/dev/shm/perf-1.map")" 1000:1000 "the map is the JVM's"
t_eq "$(jsym_files "/proc/$ct/root/ro")" "" "nothing written in TMPDIR"
t_eq "$(jsym_files "/proc/$ct/root/tmp")" "jsym-1.log " \
	"in /tmp only the failed attempt's log (its fallback, docs/agent.md)"
t_eq "$(t_agents "$ct")" "/memfd:jsym-agent-glibc" "the JVM maps the memfd"
helper_gone "$ct"
kit_stop ma

t_case a-tmp-readonly
ct=$(start mr --tmp-ro)
t_run "$J" attach --options dir=/dev/shm "$ct"
t_expect_rc 2
t_expect_err '/tmp is read-only: HotSpot creates the socket there'
t_check "no agent mapped" test -z "$(t_agents "$ct")"
helper_gone "$ct"
kit_stop mr

t_case b-tmp-noexec
ct=$(start mb --tmp-noexec)
t_run "$J" attach --delivery copy "$ct"
t_expect_rc 2
t_expect_err '/tmp is mounted noexec'
t_run "$J" attach --json "$ct"
t_expect_rc 0
t_check "JSON: memfd, /tmp writable for the agent" python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["ok"] and d["delivery"]=="memfd" and d["path"].startswith("/proc/") and "noexec" in d["copy_refused"] and d["agent_dir"]=="/tmp" and d["agent_dir_writable"] and d["probe"]["glibc"]["loads"]' "$T_OUT"
t_check "the map is in /tmp" wait_map "/proc/$ct/root/tmp/perf-1.map"
t_eq "$(t_owner "/proc/$ct/root/tmp/perf-1.map")" 1000:1000 "the map is the JVM's"
t_eq "$(jsym_files "/proc/$ct/root/tmp")" "jsym-1.journal jsym-1.log perf-1.map " \
	"only the agent's outputs in /tmp"
helper_gone "$ct"

t_case d-reattach
t_run "$J" attach "$ct"
t_expect_rc 0
t_expect_out 'a jsym agent already runs \(loaded from /memfd:jsym-agent-glibc, which cannot be named again\): not refreshed, no second copy loaded'
t_run "$J" attach --delivery memfd --json "$ct"
t_expect_rc 0
t_check "JSON: already-loaded, not refreshed" python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["ok"] and d["exit"]==0 and d["delivery"]=="already-loaded" and d["refreshed"] is False' "$T_OUT"
sleep 0.5
t_eq "$(t_agents "$ct" | wc -l)" 1 "still one agent mapped"
t_eq "$(flushers "$ct")" 1 "one flush thread"
t_eq "$(grep -c 'started:' "/proc/$ct/root/tmp/jsym-1.log")" 1 "the agent started once"
t_run "$J" attach --stop "$ct"
t_expect_rc 2
t_expect_err 'cannot be named again to stop it'
helper_gone "$ct"
kit_stop mb

t_case c-tmp-small
ct=$(start mc --tmp-size 600k)
t_run "$J" attach -v "$ct"
t_expect_rc 0
t_expect_err 'has [0-9]+ KiB free of [0-9]+ KiB; jsym needs .*delivering from a memfd instead'
t_check "the map is in /tmp" wait_map "/proc/$ct/root/tmp/perf-1.map"
t_eq "$(jsym_files "/proc/$ct/root/tmp")" "jsym-1.journal jsym-1.log perf-1.map " \
	"only the agent's small outputs in /tmp"
t_eq "$(t_agents "$ct")" "/memfd:jsym-agent-glibc" "the JVM maps the memfd"
helper_gone "$ct"
kit_stop mc

t_case forced-memfd
ct=$(start mf)
t_run "$J" attach -v --delivery memfd "$ct"
t_expect_rc 0
t_expect_err '--delivery memfd: not copying'
t_eq "$(jsym_files "/proc/$ct/root/tmp")" "jsym-1.journal jsym-1.log perf-1.map " \
	"no copy in /tmp, only the agent's outputs"
helper_gone "$ct"
kit_stop mf

t_case e-sidecar
ct=$(start me --bind "$ro:/ro:ro" --env TMPDIR=/ro)
t_run kit_sidecar "$ct" --bind "$JSYM_ROOT:$JSYM_ROOT:ro" -- "$JM" attach -v 1
t_expect_rc 0
t_expect_out 'agent loaded \(HotSpot 17[^,]*, glibc build, memfd /proc/[0-9]+/fd/[0-9]+\)'
t_expect_err 'no CAP_SYS_ADMIN' 'probe glibc build \(from a memfd\) .*: loads'
t_check "the map is in the container's /tmp" wait_map "/proc/$ct/root/tmp/perf-1.map"
t_eq "$(t_owner "/proc/$ct/root/tmp/perf-1.map")" 1000:1000 "the map is the JVM's"
t_eq "$(jsym_files "/proc/$ct/root/ro")" "" "nothing written in TMPDIR"
t_eq "$(t_agents "$ct")" "/memfd:jsym-agent-glibc" "the JVM maps the memfd"
helper_gone "$ct"
kit_stop me

t_finish
