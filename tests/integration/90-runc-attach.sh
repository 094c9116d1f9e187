#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 90-runc-attach.sh - a JVM in a real runc container (podman --runtime runc,
# tests/kit/podman.sh): the Debian 12 root with its JDK 17, PID 1, uid 1000,
# runc's seccomp filter, cgroup /libpod_parent/libpod-<id>, masked /proc.
#
#  host          `jsym attach PID` from the host: the glibc build copied into
#                the container's /tmp (uid 1000), the map there names Java
#                methods; `jsym list` names the container by podman's 12-hex
#                id and its UTS hostname, text and JSON, a terminal escape in
#                the host name escaped
#  musl          the Alpine-like root (musl only) with the musl emulator as
#                PID 1, uid 1000: the musl build, probed under musl's loader
#  perf          perf record -p PID names Java frames from that map (where
#                perf can sample)
#  sidecar       a container of the image of deploy/Dockerfile (built as
#                users build it, pod_jsym_image) sharing the JVM's PID
#                namespace (--pid container:), podman's default capabilities
#                (no SYS_PTRACE, no SYS_ADMIN): `jsym attach 1` refreshes the
#                running agent; the same with --cap-add SYS_PTRACE (kubectl
#                debug's `general` profile) on a fresh JVM: loaded, copied
#  detach        `jsym detach` (the host's jsym, on the copies the image's jsym
#                made: another build, so another directory) leaves, of
#                jsym's files, the build the JVM maps
#                (HotSpot never unloads a library), the map, the journal and
#                the agent's log; the other build and the probes are gone
# Skipped, with the reason, where podman cannot run a runc container.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/kit/podman.sh"
t_need_root "podman, runc"
J=$JSYM_BUILD/jsym
[ -x "$J" ] && [ -x "$JSYM_MUSL_BUILD/jsym" ] || t_skip "jsym not built (make)"
pod_usable || t_skip "$POD_WHY"

# jvm NAME [podman options...]: a Debian runc container running the
# workload (pod_jvm) with the host name NAME-host.
jvm() {
	pod_jvm "$1" debian --hostname "$1-host" "${@:2}" || t_abort "runc JVM $1 did not start"
}

t_case host
ct=$(jvm app) || exit 1
id=$(podman inspect -f '{{.Id}}' "$(pod_name app)")
t_check "the JVM runs in podman's cgroup libpod-<id>" grep -q "libpod-$id" "/proc/$ct/cgroup"
t_run "$J" attach -v "$ct"
t_expect_rc 0
t_expect_out 'agent loaded \(HotSpot 17[^,]*, glibc build, copied to /tmp/jsym-[0-9a-f]{12}-1-[0-9]+/glibc/libjsym-agent\.so\)' \
	'/tmp/perf-1\.map inside the JVM.s container'
t_check "the map in the container's /tmp names Java methods" pod_map_named "$ct"
t_eq "$(stat -c %u "/proc/$ct/root/tmp/perf-1.map")" 1000 "the map is the JVM's uid"
t_list_container "$ct" "${id:0:12}" NSPID=1 UID=1000 KIND=HotSpot HOST=app-host

# the host name is the container's text: a terminal escape in it is shown
# escaped (the runtime's name stays in the UTS namespace of app2 only)
ct2=$(jvm app2) || exit 1
nsenter --target "$ct2" --uts python3 -c 'import socket; socket.sethostname(b"ev\x1b[2Jil")' ||
	t_abort "cannot set the host name of app2"
t_run "$J" list
t_expect_out "^$ct2 .* ev\\\\x1b\\[2Jil\$"
t_check "no raw ESC in jsym list's output" eval '! grep -q $'"'"'\033'"'"' <<<"$T_OUT"'
t_run "$J" list --json
t_check "list --json escapes it as \\u001b" grep -qF '"hostname":"ev\u001b[2Jil"' <<<"$T_OUT"

t_case musl
# the Alpine-like root (musl the only libc) with the musl emulator as PID 1
emu=$(pod_start emu alpine --user 1000:1000 -v "$JSYM_MUSL_BUILD/tests/emu:/opt/emu:ro" -- \
	/opt/emu/hs_emu --truth /tmp/truth --log /tmp/hs_emu.log --events 400 --rate 1000) ||
	t_abort "the musl emulator did not start in runc"
for _ in $(seq 100); do
	grep -q 'started:' "/proc/$emu/root/tmp/hs_emu.log" 2>/dev/null && break
	sleep 0.1
done
t_run "$J" attach -v "$emu"
t_expect_rc 0
t_expect_out 'agent loaded \(HotSpot 17\.0\.99, musl build, copied to /tmp/jsym-[0-9a-f]{12}-1-[0-9]+/musl/libjsym-agent\.so\)'
t_expect_err 'probe musl build under /lib/ld-musl-x86_64\.so\.1: loads'
t_check "its map names the emulator's methods" eval \
	'for _ in $(seq 50); do [ -s "/proc/$emu/root/tmp/perf-1.map" ] && break; sleep 0.1; done
	grep -qF "$(head -n 1 "/proc/$emu/root/tmp/truth" | cut -d" " -f3-)" "/proc/$emu/root/tmp/perf-1.map"'

t_case perf
if timeout 30 perf record -q -e cpu-clock -g -p "$ct" -o "$KIT_DIR/perf.data" -- sleep 2 \
	>"$KIT_DIR/perf.log" 2>&1; then
	named=$(perf script -i "$KIT_DIR/perf.data" -F ip,sym,dso 2>/dev/null |
		grep -E "\(/tmp/perf-$ct\.map\)" | grep -cE ' [A-Za-z_$][^ ]*\.[A-Za-z_$<][^ ]*\(' || true)
	t_check "perf names Java frames from the container's map ($named frames)" test "$named" -gt 0
else
	t_log "perf cannot sample here: $(head -n 1 "$KIT_DIR/perf.log")"
fi

t_case sidecar
pod_jsym_image || t_abort "cannot build the image of deploy/Dockerfile"
t_log "the sidecar image: $POD_JSYM_IMAGE ($POD_IMAGE_BUILT)"
t_run pod_sidecar app "image:$POD_JSYM_IMAGE" -- jsym attach 1
t_expect_rc 0
t_expect_out '^jsym: 1: agent refreshed \(HotSpot 17[^,]*, glibc build, already-loaded /tmp/jsym-'
t_eq "$(t_agents "$ct" | wc -l)" 1 "one agent mapped after the sidecar's attach"
t_run pod_sidecar app2 "image:$POD_JSYM_IMAGE" --cap-add SYS_PTRACE -- jsym attach 1
t_expect_rc 0
t_expect_out '^jsym: 1: agent loaded \(HotSpot 17[^,]*, glibc build, copied to /tmp/jsym-'
t_check "the sidecar's agent writes the map" pod_map_named "$ct2"

t_case detach
# the image's jsym is another build than the host's: its copies are in a
# directory of another hash, which the host's detach must find too
hash_of() { ls -d "/proc/$1/root/tmp"/jsym-*-1-* 2>/dev/null | sed -E 's#.*/jsym-([0-9a-f]{12})-.*#\1#' | sort -u; }
t_check "the sidecar image's copies have another hash ($(hash_of "$ct2")) than the host's ($(hash_of "$ct"))" \
	test -n "$(hash_of "$ct2")" -a "$(hash_of "$ct2")" != "$(hash_of "$ct")"
t_detach_keeps_mapped "$ct2"

t_finish
