#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 91-runc-limits.sh - runc containers as hardened pods run them, attached
# from the host (tests/kit/podman.sh; JVM: Debian 12's JDK 17, uid 1000).
#
#  read-only   --read-only root, --tmpfs /tmp:noexec,size=64m: nothing can
#              be copied where it could be loaded, so the agent comes from
#              a memfd and nothing of jsym's is written in the container
#  memory      --memory 256m (and a 32 MiB tmpfs /tmp): the agent loads,
#              the copies fit and are there (the log shows what the
#              container's memory cgroup was charged: tmpfs pages count
#              against the writer's cgroup, jsym's for the copies)
#  userns      --uidmap/--gidmap 0:200000:65536: container uid 1000 is host
#              uid 201000; the copies and the map belong to 201000
# Skipped, with the reason, where podman cannot run a runc container.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/kit/podman.sh"
t_need_root "podman, runc"
J=$JSYM_BUILD/jsym
[ -x "$J" ] || t_skip "jsym not built (make)"
pod_usable || t_skip "$POD_WHY"

# jvm NAME [podman options...]: the workload in a runc container on $ROOT.
ROOT=debian
jvm() {
	pod_jvm "$1" "$ROOT" "${@:2}" || t_abort "runc JVM $1 did not start"
}

t_case read-only
ro=$(jvm ro --read-only --tmpfs /tmp:rw,noexec,nosuid,size=64m) || exit 1
t_check "the root is read-only" eval '! touch "/proc/$ro/root/opt/x" 2>/dev/null'
t_run "$J" attach "$ro"
t_expect_rc 0
t_expect_out 'agent loaded \(HotSpot 17[^,]*, glibc build, memfd /proc/[0-9]+/fd/[0-9]+\)' \
	'delivered from a memfd, nothing written in the container: .*noexec'
t_check "the agent writes its map to the noexec /tmp" pod_map_named "$ro"
t_eq "$(ls -d "/proc/$ro/root/tmp"/jsym-*-* 2>/dev/null | wc -l)" 0 "no copy of jsym in the container"
t_check "the JVM maps the memfd" grep -q 'memfd:jsym-agent-glibc' "/proc/$ro/maps"

t_case memory
mem=$(jvm mem --memory 256m --tmpfs /tmp:rw,exec,size=32m) || exit 1
memcg=/sys/fs/cgroup/memory/libpod_parent/libpod-$(podman inspect -f '{{.Id}}' "$(pod_name mem)")
t_log "memory limit: $(cat "$memcg/memory.limit_in_bytes" 2>/dev/null || echo '?')"
# the copies land in a tmpfs: their pages are the container's (shmem)
shmem() { awk '$1 == "shmem" {print $2}' "$memcg/memory.stat" 2>/dev/null; }
before=$(shmem)
t_run "$J" attach -v "$mem"
t_expect_rc 0
t_expect_out 'agent loaded \(HotSpot 17[^,]*, glibc build, copied to /tmp/jsym-'
t_check "the map is written" pod_map_named "$mem"
t_check "the JVM still runs" kill -0 "$mem"
# recorded, not asserted: tmpfs pages are charged to the memory cgroup of
# the process that wrote them, so jsym's copies (written from the host)
# count against jsym's cgroup, and the agent's map and journal against
# the container's
after=$(shmem)
t_log "the container's shmem: $before -> $after bytes; the copies are $(du -sb \
"/proc/$mem/root/tmp"/jsym-*-* 2>/dev/null | awk '{print $1}') bytes"

t_case userns
pod_userns_root un debian 200000 || t_abort "cannot make a root for a user namespace"
ROOT=dir:$POD_USERNS_ROOT
un=$(jvm un --uidmap 0:200000:65536 --gidmap 0:200000:65536) || exit 1
t_eq "$(awk '/^Uid:/ {print $2}' "/proc/$un/status")" 201000 "container uid 1000 is host uid 201000"
t_run "$J" attach "$un"
t_expect_rc 0
t_expect_out 'agent loaded \(HotSpot 17[^,]*, glibc build, copied to /tmp/jsym-'
t_check "the map is written" pod_map_named "$un"
t_eq "$(stat -c %u:%g "/proc/$un/root/tmp/perf-1.map")" 201000:201000 "the map is the JVM's (host view)"
dir=$(ls -d "/proc/$un/root/tmp"/jsym-*-* | head -n 1)
t_eq "$(stat -c %u:%g "$dir/glibc/libjsym-agent.so")" 201000:201000 "the copy is the JVM's (host view)"
t_eq "$(nsenter --target "$un" --user --mount stat -c %u "/tmp/${dir##*/}/glibc/libjsym-agent.so")" 1000 \
	"inside, the copy is uid 1000's"

t_finish
