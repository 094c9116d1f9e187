#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 98-cgroup2-guest.sh - jsym on cgroup v2, in a QEMU guest (tests/kit/guest.sh):
# this host's cgroup v1 cannot run it, and its KVM cannot boot a stock kernel,
# so Debian 12's kernel boots under TCG with cgroup2 alone at /sys/fs/cgroup.
# The clone is shared read-only over 9p; one JVM (Debian's JDK 17, uid 1000,
# the tests/java Workload, -Xms = -Xmx 64m pre-touched) runs in a pod-like
# cgroup, /pod/jvm, whose parent /pod carries the memory limit (memory.max),
# as a pod's limit sits above its container's, and in a mount namespace of
# its own, where jsym's files are hidden and /tmp is its own tmpfs: to jsym
# a container, whose copies are charged to it.
#
#  guest       the guest runs cgroup2 with the memory controller; the JVM
#              is in /pod/jvm as uid 1000
#  list        `jsym list` (glibc and musl builds) shows the JVM
#  memory-gate /pod's memory.max lowered to 10 MiB above what the JVM's
#              cgroup holds (its inactive page cache left out, as jsym
#              counts): `jsym attach` is refused naming the room left
#              (read from the level above the JVM's: v2 memory.max,
#              memory.current, inactive_file), nothing copied, no agent in
#              the JVM, the JVM alive
#  attach      /pod's limit raised to 512 MiB: `jsym attach` loads the
#              agent; its copies in the tmpfs /tmp are charged to the JVM's
#              v2 cgroup (its memory.stat shmem grows by at least their
#              size: the worker joined /pod/jvm through the unified
#              hierarchy to write them), -v says so; the agent's
#              /tmp/perf-PID.map names Java methods
#  podman-crun podman (crun, its cgroupfs driver: systemd is not the guest's
#              PID 1) runs the JVM with --memory 256m and a tmpfs /tmp on
#              the guest's own root: `jsym list` names it by podman's id,
#              the attach copies, its v2 cgroup's shmem grows by at least
#              the copies, the map names Java methods
#  containerd  containerd (runc) runs it, through ctr, where the kubelet's
#              cgroupfs driver puts a container
#              (/kubepods/besteffort/pod<uid>/<id>): `jsym list` names its
#              id, the attach loads, the map names Java methods
# The guest's image is built once and cached (/var/cache/jsym/guest; several
# minutes the first time: `bash tests/kit/guest.sh build` ahead of a run).
# Skipped, with the reason, where QEMU or the image cannot be had.
# test-timeout: 1800
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "debootstrap and QEMU for the guest"
command -v qemu-system-x86_64 >/dev/null || t_skip "qemu-system-x86_64 missing (mk/deps.sh test)"
[ "$(uname -m)" = x86_64 ] || t_skip "the guest is an amd64 Debian"
[ -x "$JSYM_BUILD/jsym" ] && [ -x "$JSYM_MUSL_BUILD/jsym" ] || t_skip "jsym not built (make)"
[ "$JSYM_BUILD" = "$JSYM_ROOT/glibc-build" ] && [ "$JSYM_MUSL_BUILD" = "$JSYM_ROOT/musl-build" ] ||
	t_skip "the guest sees the clone only: its builds must be glibc-build/ and musl-build/"
classes=$(kit_java_build) || t_abort "cannot compile tests/java"
[ "$classes" = "$JSYM_ROOT/glibc-build/java" ] || t_abort "classes at $classes, outside the clone"

t_log "the guest image (built once, cached machine-wide)"
GUEST_DIR=$(bash "$JSYM_ROOT/tests/kit/guest.sh" build) || t_skip "cannot build the guest image (see above)"
t_log "guest image: $GUEST_DIR"

out=$KIT_DIR/out
mkdir -p "$out"
# What runs in the guest, as root, in /jsym (the clone): every result goes to
# /out as files the checks below read; the JVM is killed at the end.
cat >"$KIT_DIR/guest-script.sh" <<'EOF'
set -u
O=/out CG=/sys/fs/cgroup
J=/jsym/glibc-build/jsym JM=/jsym/musl-build/jsym
JAVA=/usr/lib/jvm/java-17-openjdk-amd64/bin/java
# run NAME CMD...: CMD's stdout, stderr and status into /out/NAME.*
run() {
	local n=$1
	shift
	"$@" >"$O/$n.out" 2>"$O/$n.err"
	echo $? >"$O/$n.rc"
}
stat_of() { awk -v k="$2" '$1 == k {print $2}' "$1/memory.stat"; }

stat -f -c %T $CG >$O/cgfs
grep -c ' - cgroup ' /proc/self/mountinfo >$O/v1mounts
cat $CG/cgroup.controllers >$O/controllers
echo '+memory +pids' >$CG/cgroup.subtree_control
mkdir $CG/pod
echo '+memory +pids' >$CG/pod/cgroup.subtree_control
mkdir $CG/pod/jvm
echo 512M >$CG/pod/memory.max

# A container as far as jsym can tell: its own mount namespace, where
# jsym's files are hidden (so they are copied, not used in place) and /tmp
# is its own tmpfs (memory-backed: the copies are charged)
mkdir -p /opt/app
cp /jsym/glibc-build/java/*.class /opt/app/
(echo 0 >$CG/pod/jvm/cgroup.procs &&
	exec unshare --mount --propagation private sh -c '
		mount -t tmpfs -o mode=1777,size=64m tmpfs /tmp &&
		mount -t tmpfs -o ro,size=4k tmpfs /jsym &&
		exec setpriv --reuid 1000 --regid 1000 --clear-groups env HOME=/tmp "$@"' jvm \
		$JAVA -Xms64m -Xmx64m -XX:+AlwaysPreTouch \
		-cp /opt/app Workload 0) >$O/jvm.log 2>&1 &
pid=$!
echo $pid >$O/jvm.pid
t0=$(date +%s)
while ! grep -q 'workload: started' $O/jvm.log && kill -0 $pid 2>/dev/null &&
	[ $(($(date +%s) - t0)) -lt 180 ]; do
	sleep 0.5
done
echo $(($(date +%s) - t0)) >$O/jvm.start-seconds
sleep 3
cat /proc/$pid/cgroup >$O/jvm.cgroup
[ "$(readlink /proc/$pid/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ] && echo yes >$O/jvm.mntns
stat -c %u /proc/$pid >$O/jvm.uid

run list $J list
run list-musl $JM list

# the gate: /pod's limit 10 MiB above what the JVM's cgroup holds
cur=$(cat $CG/pod/jvm/memory.current)
inact=$(stat_of $CG/pod/jvm inactive_file)
echo $((cur - inact + (10 << 20))) >$CG/pod/memory.max
cat $CG/pod/memory.max >$O/gate.max
run gate $J attach -v $pid
grep -c libjsym-agent /proc/$pid/maps >$O/gate.maps
ls -d /proc/$pid/root/tmp/jsym-* 2>/dev/null | wc -l >$O/gate.copies
kill -0 $pid && echo yes >$O/gate.alive
grep -s oom_kill $CG/pod/memory.events >$O/gate.events

# the attach: room again; the copies' charging
echo 512M >$CG/pod/memory.max
stat_of $CG/pod/jvm shmem >$O/shmem.before
run attach $J attach -v $pid
stat_of $CG/pod/jvm shmem >$O/shmem.after
du -sbc /proc/$pid/root/tmp/jsym-*-* 2>/dev/null | awk '$2 == "total" {print $1}' >$O/copies.bytes
cat /proc/self/cgroup >$O/shell.cgroup
i=0
while ! grep -qE ' [a-z].* [A-Za-z]+\.[a-zA-Z]+\(' /proc/$pid/root/tmp/perf-$pid.map 2>/dev/null && [ $i -lt 60 ]; do
	sleep 0.5
	i=$((i + 1))
done
cp /proc/$pid/root/tmp/perf-$pid.map $O/perf.map 2>/dev/null
grep -c libjsym-agent /proc/$pid/maps >$O/attach.maps
kill -0 $pid && echo yes >$O/attach.alive
kill -9 $pid

# ct NAME PID: where a container's JVM stands, and jsym's attach to it
ct() {
	local n=$1 p=$2 i=0 c nspid
	while ! grep -q libjvm /proc/$p/maps 2>/dev/null && [ $i -lt 240 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	sleep 5
	cat /proc/$p/cgroup >$O/$n.cgroup
	run $n-list $J list
	c=$CG$(sed -n 's/^0:://p' /proc/$p/cgroup)
	cat $c/memory.max >$O/$n.max
	stat_of $c shmem >$O/$n.shmem.before
	run $n-attach $J attach -v $p
	stat_of $c shmem >$O/$n.shmem.after
	du -sbc /proc/$p/root/tmp/jsym-*-* 2>/dev/null | awk '$2 == "total" {print $1}' >$O/$n.copies
	nspid=$(awk '/^NSpid:/ {print $NF}' /proc/$p/status)
	i=0
	while ! grep -qE ' [a-z].* [A-Za-z]+\.[a-zA-Z]+\(' /proc/$p/root/tmp/perf-$nspid.map 2>/dev/null &&
		[ $i -lt 60 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	cp /proc/$p/root/tmp/perf-$nspid.map $O/$n.map 2>/dev/null
}

# Real containers on v2, cgroupfs drivers (systemd is not the guest's PID 1):
# the guest's own root bound as their root (rw: podman adds uid 1000 to its
# /etc/passwd; the image is a snapshot), without the 9p shares
modprobe overlay
mkdir -p /srv/r
mount --bind / /srv/r
run podman-run timeout 180 podman --cgroup-manager=cgroupfs --runtime=crun run -d \
	--name jvm --network none --user 1000:1000 --memory 256m \
	--tmpfs /tmp:rw,exec,size=64m --rootfs /srv/r \
	$JAVA -Xmx64m -cp /opt/app Workload 0
podman inspect -f '{{.Id}} {{.State.Pid}}' jvm >$O/podman.inspect
pp=$(cut -d' ' -f2 $O/podman.inspect)
[ -n "$pp" ] && [ "$pp" != 0 ] && ct podman $pp
timeout 60 podman rm -f -t 0 jvm >/dev/null 2>&1

# containerd (runc), the JVM placed where the kubelet's cgroupfs driver
# puts a container
containerd >/tmp/containerd.log 2>&1 &
i=0
while ! ctr version >/dev/null 2>&1 && [ $i -lt 120 ]; do
	sleep 0.5
	i=$((i + 1))
done
id=5f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0
echo $id >$O/ctr.id
# (ctr 1.6 has no --user: setpriv in the container makes uid 1000)
run ctr-run timeout 180 ctr run -d --memory-limit 268435456 \
	--cgroup /kubepods/besteffort/pod8d3c2b0e-4f1a-4a55-9d47-2b7f0c1e9a11/$id \
	--rootfs /srv/r $id /usr/bin/setpriv --reuid 1000 --regid 1000 --clear-groups $JAVA -Xmx64m -cp /opt/app Workload 0
cp_=$(ctr task ls | awk -v i=$id '$1 == i {print $2}')
echo "$cp_" >$O/ctr.pid
[ -n "$cp_" ] && ct ctr $cp_
ctr task kill -s KILL $id >/dev/null 2>&1
sleep 1
ctr task rm -f $id >/dev/null 2>&1
ctr container rm $id >/dev/null 2>&1
tail -n 5 /tmp/containerd.log >$O/containerd.log
echo done >$O/done
EOF

t_case guest
t0=$SECONDS
t_run bash "$JSYM_ROOT/tests/kit/guest.sh" run --share "$JSYM_ROOT" --out "$out" \
	--serial "$KIT_DIR/serial" --timeout 900 "$KIT_DIR/guest-script.sh"
t_log "the guest ran $((SECONDS - t0)) s; the JVM started in $(cat "$out/jvm.start-seconds" 2>/dev/null) s"
t_expect_rc 0
[ -e "$out/done" ] || t_abort "the guest script did not finish: $(tail -n 5 "$KIT_DIR/serial" 2>/dev/null)"
t_eq "$(cat "$out/cgfs")" cgroup2fs "/sys/fs/cgroup is cgroup2"
t_eq "$(cat "$out/v1mounts")" 0 "no cgroup v1 hierarchy mounted"
t_check "the memory controller is there: $(cat "$out/controllers")" grep -qw memory "$out/controllers"
t_eq "$(cat "$out/jvm.cgroup")" "0::/pod/jvm" "the JVM is in /pod/jvm, the unified hierarchy only"
t_eq "$(cat "$out/jvm.uid")" 1000 "the JVM runs as uid 1000"
t_eq "$(cat "$out/jvm.mntns" 2>/dev/null)" yes "the JVM has its own mount namespace"
pid=$(cat "$out/jvm.pid")

t_case list
for b in list list-musl; do
	t_eq "$(cat "$out/$b.rc")" 0 "jsym $b exits 0"
	t_check "jsym $b shows the JVM ($pid)" grep -qE "^ *$pid " "$out/$b.out"
done

t_case memory-gate
t_log "/pod's memory.max: $(cat "$out/gate.max")"
grep -E 'memory check|refusing' "$out/gate.err" | sed 's/^/gate: /' >&2
t_eq "$(cat "$out/gate.rc")" 2 "the attach is refused (exit 2)"
t_check "the refusal names the room left" grep -qE \
	"refusing to load the agent: the JVM.s container has [0-9]+ KiB left below its memory limit" \
	"$out/gate.err"
t_check "-v shows the room read from v2's files" grep -qE \
	'memory check: [0-9]+ KiB left below the JVM.s memory limit' "$out/gate.err"
t_eq "$(cat "$out/gate.maps")" 0 "no agent in the JVM"
t_eq "$(cat "$out/gate.copies")" 0 "nothing copied to /tmp"
t_eq "$(cat "$out/gate.alive" 2>/dev/null)" yes "the JVM still runs"

t_case attach
sed 's/^/attach: /' "$out/attach.out" >&2
grep -iE 'memory|cgroup|cop' "$out/attach.err" | sed 's/^/attach -v: /' >&2
t_eq "$(cat "$out/attach.rc")" 0 "jsym attach exits 0"
t_check "the agent is loaded, copied to /tmp" grep -qE \
	'agent loaded \(HotSpot 17[^,]*, glibc build, copied to /tmp/jsym-' "$out/attach.out"
t_check "-v: the copies count against the JVM's memory cgroup" grep -q \
	'memory-backed: the copies count against the JVM.s memory cgroup' "$out/attach.err"
before=$(cat "$out/shmem.before") after=$(cat "$out/shmem.after") copies=$(cat "$out/copies.bytes")
t_log "/pod/jvm's shmem: $before -> $after bytes; the copies are $copies bytes"
t_check "the JVM's cgroup's shmem grew by at least the copies ($((after - before)) >= $copies)" \
	test "$((after - before))" -ge "${copies:-0}" -a "${copies:-0}" -gt 0
t_eq "$(cat "$out/shell.cgroup")" "0::/" "jsym's caller is still in its own cgroup"
t_check "the JVM maps the agent" test "$(cat "$out/attach.maps")" -ge 1
t_check "the JVM's /tmp/perf-$pid.map names Java methods" \
	grep -qE ' [a-z].* [A-Za-z]+\.[a-zA-Z]+\(' "$out/perf.map"
own=$(grep -cE ' (Workload|Arith|Strs|Rx|Colls|Funcs|Bigs|Recur)\.' "$out/perf.map" 2>/dev/null)
t_log "perf map: $(wc -l <"$out/perf.map" 2>/dev/null) lines, ${own:-0} of the workload's classes"
t_check "the map names the workload's own methods" test "${own:-0}" -gt 0
t_eq "$(cat "$out/attach.alive" 2>/dev/null)" yes "the JVM still runs"

# ct_checks NAME ID: a container's JVM, listed by its runtime's id, attached
ct_checks() {
	local n=$1 id=$2 p=$3 before after copies
	t_log "$n: /proc/PID/cgroup $(cat "$out/$n.cgroup" 2>/dev/null), memory.max $(cat "$out/$n.max" 2>/dev/null)"
	sed 's/^/attach: /' "$out/$n-attach.out" >&2
	t_check "jsym list shows $p in container ${id:0:12}" \
		grep -qE "^ *$p .* ${id:0:12} " "$out/$n-list.out"
	t_eq "$(cat "$out/$n-attach.rc")" 0 "jsym attach exits 0"
	t_check "the agent is loaded from copies" grep -qE \
		'agent loaded \(HotSpot 17[^,]*, glibc build, copied to /tmp/jsym-' "$out/$n-attach.out"
	t_check "the agent's map names Java methods" \
		grep -qE ' [a-z].* [A-Za-z]+\.[a-zA-Z]+\(' "$out/$n.map"
}

t_case podman-crun
if [ "$(cat "$out/podman-run.rc")" != 0 ]; then
	t_fail "podman run (crun) failed in the guest: $(tail -n 3 "$out/podman-run.err")"
else
	read -r pid_ pp <"$out/podman.inspect"
	ct_checks podman "$pid_" "$pp"
	t_check "its cgroup is podman's v2 one" grep -qE "^0::/.*libpod-$pid_" "$out/podman.cgroup"
	t_check "-v: the copies count against the container's memory cgroup" grep -q \
		'memory-backed: the copies count against the JVM.s memory cgroup' "$out/podman-attach.err"
	before=$(cat "$out/podman.shmem.before") after=$(cat "$out/podman.shmem.after")
	copies=$(cat "$out/podman.copies")
	t_log "the container's shmem: $before -> $after bytes; the copies are $copies bytes"
	t_check "the container's shmem grew by at least the copies" \
		test "$((after - before))" -ge "${copies:-0}" -a "${copies:-0}" -gt 0
fi

t_case containerd
if [ "$(cat "$out/ctr-run.rc")" != 0 ]; then
	t_fail "ctr run failed in the guest: $(tail -n 3 "$out/ctr-run.err") $(cat "$out/containerd.log")"
else
	id=$(cat "$out/ctr.id")
	t_eq "$(cat "$out/ctr.cgroup")" "0::/kubepods/besteffort/pod8d3c2b0e-4f1a-4a55-9d47-2b7f0c1e9a11/$id" \
		"the task is where the kubelet's cgroupfs driver puts a container"
	ct_checks ctr "$id" "$(cat "$out/ctr.pid")"
fi
t_finish
