#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 91-runc-limits.sh - runc containers as hardened pods run them, attached
# from the host (tests/kit/podman.sh; JVM: Debian 12's JDK 17, uid 1000).
#
#  read-only   --read-only root, --tmpfs /tmp:noexec,size=64m: nothing can
#              be copied where it could be loaded, so the agent comes from
#              a memfd and nothing of jsym's is written in the container
#  memory      --memory 256m (and a 32 MiB tmpfs /tmp): the agent loads,
#              the copies fit and are there, charged to the container's
#              memory cgroup (its shmem grows by at least their size: tmpfs
#              pages count against the writer's cgroup, and jsym's worker
#              joins the JVM's memory cgroup to write them)
#  memory-short a container filled (a tmpfs file written inside it) until
#              10 MiB are left below its limit: the agent is refused with
#              the reason (loading it there got the JVM killed), nothing is
#              written; --fallback=map maps it from outside; the JVM and
#              the filler file are untouched
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

# memcg NAME: the v1 memory cgroup podman's cgroupfs driver gives container
# NAME (this machine's layout; elsewhere the memory cases are skipped)
memcg() { echo "/sys/fs/cgroup/memory/libpod_parent/libpod-$(podman inspect -f '{{.Id}}' "$(pod_name "$1")")"; }
# stat_of DIR KEY: a value of DIR's memory.stat
stat_of() { awk -v k="$2" '$1 == k {print $2}' "$1/memory.stat" 2>/dev/null; }

t_case memory
mem=$(jvm mem --memory 256m --tmpfs /tmp:rw,exec,size=32m) || exit 1
cg=$(memcg mem)
if [ ! -r "$cg/memory.stat" ]; then
	t_skip_case "no cgroup v1 memory controller at $cg (cgroup v2 or podman's systemd driver)"
else
	t_log "memory limit: $(cat "$cg/memory.limit_in_bytes")"
	# the copies land in a tmpfs: their pages are the container's (shmem)
	before=$(stat_of "$cg" shmem)
	used=$(cat "$cg/memory.usage_in_bytes")
	t_run "$J" attach -v "$mem"
	t_expect_rc 0
	t_expect_out 'agent loaded \(HotSpot 17[^,]*, glibc build, copied to /tmp/jsym-'
	t_check "the map is written" pod_map_named "$mem"
	t_check "the JVM still runs" kill -0 "$mem"
	# tmpfs pages are charged to the memory cgroup of the process that
	# writes them: jsym joins the JVM's to write the copies (before, they
	# counted against jsym's, and only the agent's map and journal grew
	# the container's)
	after=$(stat_of "$cg" shmem)
	copies=$(du -sb "/proc/$mem/root/tmp"/jsym-*-* 2>/dev/null | awk '{s += $1} END {print s + 0}')
	t_log "the container's shmem: $before -> $after bytes; the copies are $copies bytes;" \
		"its usage grew by $(( ($(cat "$cg/memory.usage_in_bytes") - used) >> 10 )) KiB"
	t_check "the container's shmem grew by at least the copies ($((after - before)) >= $copies)" \
		test "$((after - before))" -ge "$copies" -a "$copies" -gt 0
	t_expect_err 'memory-backed: the copies count against the JVM'"'"'s memory cgroup \([0-9]+ KiB left'
fi

t_case memory-short
# A second such container, its tmpfs filled from inside (charged to the
# container) until 10 MiB are left below its limit, counted as jsym counts
# (the inactive page cache is room: the kernel reclaims it first).
# Loading the agent there got the JVM killed by the kernel (measured while
# writing this case), so jsym refuses below its 16 MiB reserve, and
# --fallback=map reads the symbols from outside instead (its map is
# charged to jsym, not the JVM).  The JVM's heap is made resident at its
# start (-Xms = -Xmx, AlwaysPreTouch) and the room is measured once it has
# run 5 s: with 4 MiB left, measured 1 s after its start, a CI run saw the
# JVM's own growth get it killed while /tmp was filled.
short=$(jvm short --memory 160m --tmpfs /tmp:rw,exec,size=256m \
	-e JAVA_TOOL_OPTIONS='-Xms64m -XX:+AlwaysPreTouch') || exit 1
cg=$(memcg short)
if [ ! -r "$cg/memory.stat" ]; then
	t_skip_case "no cgroup v1 memory controller at $cg (cgroup v2 or podman's systemd driver)"
else
	sleep 5
	room=$(( $(cat "$cg/memory.limit_in_bytes") - $(cat "$cg/memory.usage_in_bytes") +
		$(stat_of "$cg" total_inactive_file) ))
	fill=$(( (room >> 20) - 10 ))
	t_log "room below the limit: $((room >> 20)) MiB; filling $fill MiB"
	podman exec "$(pod_name short)" dd if=/dev/zero of=/tmp/fill bs=1M count="$fill" status=none ||
		t_fail "cannot fill the container's /tmp"
	t_run "$J" attach "$short"
	t_expect_rc 2
	t_expect_err 'refusing to load the agent: the JVM.s container has [0-9]+ KiB left below its memory limit' \
		'raise the limit, use jsym map'
	t_eq "$(ls -d "/proc/$short/root/tmp"/jsym-*-* 2>/dev/null | wc -l)" 0 "no copy of jsym in the container"
	t_check "no agent in the JVM" eval '! grep -q libjsym-agent "/proc/$short/maps"'
	t_run "$J" attach --fallback=map "$short"
	t_expect_rc 0
	t_check "the map is written from outside" pod_map_named "$short"
	t_check "the JVM still runs" kill -0 "$short"
	t_eq "$(stat -c %s "/proc/$short/root/tmp/fill")" "$((fill << 20))" "the filler file is untouched"
fi

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
