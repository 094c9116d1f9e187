#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 95-containerd-attach.sh - JVMs in containerd tasks where the kubelet puts
# a pod's containers: Debian's containerd 1.6 and runc, started here on a
# private root and stopped at exit (tests/kit/docker.sh), the k8s.io
# namespace the CRI plugin uses, ids of 64 hex digits as the CRI's, the
# kit's Debian 12 root with its JDK 17 (`docker import`, `docker save | ctr
# image import`), uid 1000 (setpriv), containerd's default seccomp profile
# (--seccomp) and capabilities.
#
#  cgroupfs  a task in /kubepods/besteffort/pod<uid>/<id> (the kubelet's
#            cgroupfs driver): `jsym list` names it by the id `ctr task ls`
#            shows (12 hex, as crictl), `jsym attach` from the host loads
#            the agent and the map names Java methods
#  systemd   a task in .../kubepods-besteffort-pod<uid>.slice/
#            cri-containerd-<id>.scope (the systemd driver's names, made
#            by runc as a cgroupfs path: no systemd here): the same
#  sidecar   the image of deploy/Dockerfile as a task of the same pod
#            sharing the JVM task's PID namespace (--with-ns pid:, a pod's
#            shareProcessNamespace): containerd's default capabilities (no
#            SYS_PTRACE): `jsym list` names the JVM's task by its id, `jsym
#            attach 1` refreshes; with CAP_SYS_PTRACE on the systemd-layout
#            JVM, not attached before: loaded
#  detach    `jsym detach` from the host leaves the mapped build, the map,
#            the journal and the log
# Skipped, with the reason, where the daemons cannot run.
# test-timeout: 1500
# (the first run builds the kit's roots and the image: minutes; warm, ~2 min)
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/kit/podman.sh"
source "$JSYM_ROOT/tests/kit/docker.sh"
t_need_root "containerd"
J=$JSYM_BUILD/jsym
[ -x "$J" ] || t_skip "jsym not built (make)"
dk_usable || t_skip "$DK_WHY"
pod_usable || t_skip "$POD_WHY"
IMG=docker.io/jsym-test/debian:12
dk_import "$IMG" debian || t_abort "cannot import the Debian root into containerd"
# tid ID: the id ctr task ls shows for the task (its running pid's row)
tid() { "${CTR[@]}" task ls | awk -v id="$1" '$1 == id && $3 == "RUNNING" {print substr($1, 1, 12)}'; }

t_case cgroupfs
DK_POD_UID=$(cat /proc/sys/kernel/random/uuid)
a=$(dk_hexid)
pa=$(dk_task "$a" "$IMG" cgroupfs --seccomp) || t_abort "the containerd JVM did not start"
t_check "the task's JVM is in /kubepods/besteffort/pod$DK_POD_UID/<id>" \
	grep -q ":/kubepods/besteffort/pod$DK_POD_UID/$a\$" "/proc/$pa/cgroup"
t_eq "$(tid "$a")" "${a:0:12}" "ctr task ls shows the task"
t_run "$J" list
t_list_row "$pa" NSPID=1 UID=1000 KIND=HotSpot AGENT=- CONTAINER="${a:0:12}"
t_run "$J" attach -v "$pa"
t_expect_rc 0
t_expect_out 'agent loaded \(HotSpot 17[^,]*, glibc build, copied to /tmp/jsym-[0-9a-f]{12}-1-[0-9]+/glibc/libjsym-agent\.so\)'
t_check "the map in the task's /tmp names Java methods" pod_map_named "$pa"
t_list_container "$pa" "${a:0:12}" AGENT=yes

t_case systemd
b=$(dk_hexid)
pb=$(DK_POD_UID= dk_task "$b" "$IMG" systemd --seccomp) || t_abort "the containerd JVM did not start"
t_check "the task's JVM is in .../kubepods-besteffort-pod<uid>.slice/cri-containerd-<id>.scope" \
	grep -qE ":/kubepods\.slice/kubepods-besteffort\.slice/kubepods-besteffort-pod[0-9a-f_]+\.slice/cri-containerd-$b\.scope\$" \
	"/proc/$pb/cgroup"
t_eq "$(tid "$b")" "${b:0:12}" "ctr task ls shows the task"
t_run "$J" list
t_list_row "$pb" NSPID=1 UID=1000 KIND=HotSpot AGENT=- CONTAINER="${b:0:12}"

t_case sidecar
dk_jsym_image || t_abort "cannot load the image of deploy/Dockerfile into containerd"
t_log "the image: $DK_JSYM_IMAGE (podman: $POD_IMAGE_BUILT)"
t_run dk_sidecar "$(dk_hexid)" "$DK_JSYM_IMAGE" cgroupfs "$pa" --seccomp -- cat /proc/self/status
t_check "the sidecar has containerd's default capabilities: no SYS_PTRACE (bit 19)" python3 -c '
import re, sys
eff = int(re.search(r"CapEff:\s*([0-9a-f]+)", sys.argv[1]).group(1), 16)
sys.exit(0 if eff and not eff & (1 << 19) else 1)' "$T_OUT"
t_run dk_sidecar "$(dk_hexid)" "$DK_JSYM_IMAGE" cgroupfs "$pa" --seccomp -- jsym list
t_expect_rc 0
t_list_row 1 NSPID=1 UID=1000 KIND=HotSpot AGENT=yes CONTAINER="${a:0:12}"
t_run dk_sidecar "$(dk_hexid)" "$DK_JSYM_IMAGE" cgroupfs "$pa" --seccomp -- jsym attach 1
t_expect_rc 0
t_expect_out '^jsym: 1: agent refreshed \(HotSpot 17[^,]*, glibc build, already-loaded /tmp/jsym-'
t_run dk_sidecar "$(dk_hexid)" "$DK_JSYM_IMAGE" systemd "$pb" --seccomp --cap-add CAP_SYS_PTRACE -- \
	jsym attach 1
t_expect_rc 0
t_expect_out '^jsym: 1: agent loaded \(HotSpot 17[^,]*, glibc build, copied to /tmp/jsym-'
t_check "the sidecar's agent writes the map" pod_map_named "$pb"
t_run dk_sidecar "$(dk_hexid)" "$DK_JSYM_IMAGE" systemd "$pb" --seccomp --cap-add CAP_SYS_PTRACE -- jsym list
t_list_row 1 NSPID=1 UID=1000 KIND=HotSpot AGENT=yes CONTAINER="${b:0:12}"

t_case detach
t_detach_keeps_mapped "$pb"

t_finish
