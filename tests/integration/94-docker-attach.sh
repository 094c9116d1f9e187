#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 94-docker-attach.sh - a JVM in a Docker Engine container, as a node runs
# it: Debian's dockerd 20.10 on containerd 1.6, runc, the cgroupfs driver
# (/docker/<id>), Docker's seccomp profile and default capabilities; the
# daemons started here on private roots and stopped at exit
# (tests/kit/docker.sh).  The JVM: the kit's Debian 12 root with its JDK 17
# (`docker import`ed), PID 1, uid 1000.
#
#  host      `jsym attach PID` from the host: the agent copied into the
#            container's /tmp, its map names Java methods; `jsym list` (text
#            and JSON) names the container by the id `docker ps` shows
#  sidecar   the image of deploy/Dockerfile (pod_jsym_image, `podman save |
#            docker load`) as `docker run --pid container:JVM`: with
#            Docker's default capabilities (no SYS_PTRACE) `jsym list` names
#            the JVM's container by its docker id (read from its cgroup, as
#            the ns links are refused) and `jsym attach 1` refreshes the
#            agent; with --cap-add SYS_PTRACE on a fresh JVM: loaded
#  detach    `jsym detach` from the host leaves the mapped build, the map,
#            the journal and the log
#  bpftrace  bpftrace's ustack(perf) names the Java frames of the
#            container's JVM from the agent's map (docs/consumers.md);
#            fails when fewer than a third of the distinct frames outside
#            every ELF file are named (measured: 134 of 198; the rest are
#            the interpreter's and stubs, which the map does not name).  The
#            JVM runs with default flags, and ustack walks frame pointers:
#            it gets the top frames, which is what this counts
# Skipped, with the reason, where the daemons cannot run.
# test-timeout: 1500
# (the first run builds the kit's roots and the image: minutes; warm, ~2 min)
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/kit/podman.sh"
source "$JSYM_ROOT/tests/kit/docker.sh"
t_need_root "dockerd, containerd"
J=$JSYM_BUILD/jsym
[ -x "$J" ] || t_skip "jsym not built (make)"
dk_usable || t_skip "$DK_WHY"
pod_usable || t_skip "$POD_WHY"
IMG=jsym-test/debian:12
dk_import "$IMG" debian || t_abort "cannot import the Debian root into docker"

# dockerid NAME: the id docker ps shows for container NAME
dockerid() { "${DOCKER[@]}" ps --no-trunc -f "name=^$1\$" --format '{{.ID}}' | cut -c1-12; }

t_case host
ct=$(dk_run app "$IMG" --hostname app-host) || t_abort "docker JVM did not start"
id=$(dockerid app)
t_check "docker ps shows the container ($id)" test ${#id} -eq 12
t_check "the JVM runs in Docker's cgroup /docker/<id>" grep -q ":/docker/$id" "/proc/$ct/cgroup"
t_run "$J" attach -v "$ct"
t_expect_rc 0
t_expect_out 'agent loaded \(HotSpot 17[^,]*, glibc build, copied to /tmp/jsym-[0-9a-f]{12}-1-[0-9]+/glibc/libjsym-agent\.so\)'
t_check "the map in the container's /tmp names Java methods" pod_map_named "$ct"
t_eq "$(stat -c %u "/proc/$ct/root/tmp/perf-1.map")" 1000 "the map is the JVM's uid"
t_list_container "$ct" "$id" NSPID=1 UID=1000 KIND=HotSpot AGENT=yes HOST=app-host

t_case sidecar
dk_jsym_image || t_abort "cannot load the image of deploy/Dockerfile into docker"
t_log "the image: $DK_JSYM_IMAGE (podman: $POD_IMAGE_BUILT)"
# car ARGS...: the image as a sidecar of container app, Docker's defaults
car() { "${DOCKER[@]}" run --rm --network none --pid container:"$1" "${@:2}"; }
t_run car app "$DK_JSYM_IMAGE" jsym list
t_expect_rc 0
t_list_row 1 NSPID=1 UID=1000 KIND=HotSpot AGENT=yes CONTAINER="$id" HOST=app-host
t_check "the sidecar has Docker's default capabilities: no SYS_PTRACE (bit 19)" python3 -c '
import re, sys
eff = int(re.search(r"CapEff:\s*([0-9a-f]+)", sys.argv[1]).group(1), 16)
sys.exit(0 if eff and not eff & (1 << 19) else 1)' "$(car app "$DK_JSYM_IMAGE" cat /proc/self/status)"
t_run car app "$DK_JSYM_IMAGE" jsym attach 1
t_expect_rc 0
t_expect_out '^jsym: 1: agent refreshed \(HotSpot 17[^,]*, glibc build, already-loaded /tmp/jsym-'
ct2=$(dk_run app2 "$IMG" --hostname app2-host) || t_abort "the second docker JVM did not start"
id2=$(dockerid app2)
t_run car app2 --cap-add SYS_PTRACE "$DK_JSYM_IMAGE" jsym attach 1
t_expect_rc 0
t_expect_out '^jsym: 1: agent loaded \(HotSpot 17[^,]*, glibc build, copied to /tmp/jsym-'
t_check "the sidecar's agent writes the map" pod_map_named "$ct2"
t_run car app2 --cap-add SYS_PTRACE "$DK_JSYM_IMAGE" jsym list
t_list_row 1 NSPID=1 UID=1000 KIND=HotSpot AGENT=yes CONTAINER="$id2" HOST=app2-host

t_case detach
t_detach_keeps_mapped "$ct2"

t_case bpftrace
dk_bpftrace_named "$ct" "$KIT_DIR/bpftrace.out"
t_log "bpftrace: $DK_BT_WHY"
t_check "bpftrace ustack(perf) names Java frames of the Docker JVM from the agent's map" \
	test "${DK_BT_NAMED:-0}" -gt 0 -a "${DK_BT_NAMED:-0}" -ge "$((${DK_BT_JIT:-1} / 3))"

t_finish
