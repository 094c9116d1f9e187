#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 59-deploy-probe-reaped.sh - nothing the container's code starts during
# the libc probe outlives the probe, or runs outside the pod's limits.
#
# The probe runs the container's loader, which loads whatever the
# container's /etc/ld.so.preload names.  Here that library daemonizes when
# it runs in the probe (fork, setsid, fork; the grandchild renames itself
# `jrd-<pid of this script>` and waits forever), and with /tmp/reap-hang
# in the container the probe itself then hangs too, so jsym's --timeout
# has to end it.
#
#   host, root            jsym enters the JVM's pid namespace: an orphan
#                         goes to the container's init, which is acceptable
#                         only when it is in the JVM's cgroup (here a cgroup
#                         of its own, v2 and v1 memory/pids as mounted)
#   host, no SYS_ADMIN    (setpriv; the hostPID DaemonSet's case) jsym stays
#                         in the host pid namespace: no such daemon anywhere
#                         once jsym attach has returned
#   sidecar               (Docker's default capabilities and SYS_PTRACE,
#                         as docs/kubernetes.md asks) the same
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, cgroups, a root JVM"
J=$JSYM_BUILD/jsym
[ -x "$J" ] || t_skip "jsym not built (make)"
command -v gcc >/dev/null || t_skip "no gcc to build the daemonizing library"
command -v setpriv >/dev/null || t_skip "no setpriv (util-linux) to drop CAP_SYS_ADMIN"
command -v pgrep >/dev/null || t_skip "no pgrep (procps)"
declare -F kit_sidecar >/dev/null || t_skip "container kit has no kit_sidecar"
classes=$(kit_java_build)
rootfs=$(kit_rootfs debian)

evil=$KIT_DIR/evil
mkdir -p "$evil"
cat >"$evil/reapd.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>
/* In the probe only: jsym runs the loader with LD_PRELOAD, nothing else in
 * this container has it. */
__attribute__((constructor)) static void daemonize(void)
{
	pid_t p;
	int fd;

	if (!getenv("LD_PRELOAD"))
		return;
	p = fork();
	if (p == 0) {
		setsid();
		if (fork() != 0)
			_exit(0);
		prctl(PR_SET_NAME, REAPD_NAME);
		fd = open("/dev/null", O_RDWR);
		for (int i = 0; i < 1024; i++)
			if (i != fd)
				close(i);
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		for (;;)
			pause();
	}
	if (access("/tmp/reap-hang", F_OK) == 0)
		for (;;)
			pause();
	if (access("/tmp/reap-slow", F_OK) == 0)
		sleep(4);
}
C
marker=jrd-$$
gcc -shared -fPIC -O1 -DREAPD_NAME="\"$marker\"" -o "$evil/reapd.so" "$evil/reapd.c" || t_abort "cannot build the daemonizing library"

# The JVM's own cgroup, below ours in every hierarchy a pod's limits live in
# (the unified one, and v1 memory and pids when mounted), so that "in the
# JVM's cgroup" differs from "in jsym's".
cg_dirs=()
cg_make() {
	local mnt line rel d
	for mnt in /sys/fs/cgroup /sys/fs/cgroup/unified /sys/fs/cgroup/memory /sys/fs/cgroup/pids; do
		[ -e "$mnt/cgroup.procs" ] || continue
		case $mnt in
		*/memory) line=$(grep -E '^[0-9]+:memory:' /proc/self/cgroup) ;;
		*/pids) line=$(grep -E '^[0-9]+:pids:' /proc/self/cgroup) ;;
		*) line=$(grep -E '^0::' /proc/self/cgroup) ;;
		esac
		rel=${line#*:*:}
		d=$mnt${rel%/}/jsym-t59-$$
		mkdir -p "$d" && cg_dirs+=("$d")
	done
}
cg_join() {
	local d
	for d in "${cg_dirs[@]}"; do
		echo "$1" >"$d/cgroup.procs" || t_abort "cannot move $1 into $d"
	done
}
cg_remove() {
	local d
	for d in "${cg_dirs[@]}"; do
		rmdir "$d" 2>/dev/null
	done
	return 0
}
cleanup() {
	local d
	kit_stop rp1; kit_stop rp2; kit_stop rp3; kit_stop rp4; kit_stop rp5; kit_stop rp6; kit_stop rp7
	kit_stop rp8
	# what a failing jsym left on the host: ours, by the name of this run
	for d in $(daemons); do
		kill -KILL "$d"
	done
	cg_remove
}
kit_on_exit cleanup
cg_make
[ ${#cg_dirs[@]} -gt 0 ] || t_skip "no writable cgroup hierarchy"

start() {
	local name=$1 pid
	pid=$(kit_start "$name" "$rootfs" --net --bind "$classes:/opt/jsym-java:ro" \
		--bind "$evil:/opt/evil:ro" \
		-- "$KIT_CT_JAVA" -Xmx96m -cp /opt/jsym-java Workload 0)
	kit_wait_jvm "$pid" 60 || t_abort "container JVM $name did not start: $(cat "$KIT_DIR/$name.log")"
	cg_join "$pid"
	echo /opt/evil/reapd.so >"/proc/$pid/root/etc/ld.so.preload"
	echo "$pid"
}

# daemons: host pids of every daemon of this run on this machine (the name
# has this script's pid)
daemons() {
	local f
	for f in /proc/[0-9]*/comm; do
		[ "$(cat "$f" 2>/dev/null)" = "$marker" ] && { f=${f#/proc/}; echo "${f%/comm}"; }
	done
	return 0
}

# none_left WHAT: no daemon of this run exists (after a short grace for the kernel)
none_left() {
	local left i
	for ((i = 0; i < 20; i++)); do
		left=$(daemons)
		[ -z "$left" ] && break
		sleep 0.1
	done
	t_eq "$left" "" "$1: nothing the probe started is left (pids named $marker)"
}

# in_jvm_cgroup CT WHAT: every daemon of this run is in the JVM's cgroups
in_jvm_cgroup() {
	local ct=$1 d n=0
	for d in $(daemons); do
		n=$((n + 1))
		t_eq "$(grep -vE ':(freezer|cpuset|name=systemd):' "/proc/$d/cgroup")" \
			"$(grep -vE ':(freezer|cpuset|name=systemd):' "/proc/$ct/cgroup")" \
			"$2: the daemon $d the probe left in the container is in the JVM's cgroups"
	done
	t_log "$2: $n daemon(s) left in the container"
}

t_case host-root
ct=$(start rp1)
t_run timeout 60 "$J" attach -v --delivery copy "$ct"
t_expect_rc 0
in_jvm_cgroup "$ct" host-root
kit_stop rp1
none_left "host-root, container stopped"

t_case host-root-timeout
ct=$(start rp2)
touch "/proc/$ct/root/tmp/reap-hang"
t_run timeout 60 "$J" attach -v --timeout 4000 --delivery copy "$ct"
t_check "the hanging probe was given up" test "$T_RC" -ne 0
in_jvm_cgroup "$ct" host-root-timeout
kit_stop rp2
none_left "host-root-timeout, container stopped"

nosysadmin() {
	t_run timeout 60 setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin -- "$J" "$@"
}

t_case host-no-sys-admin
ct=$(start rp3)
nosysadmin attach -v --delivery copy "$ct"
t_expect_rc 0
none_left "from the host without CAP_SYS_ADMIN"
kit_stop rp3

t_case host-no-sys-admin-timeout
ct=$(start rp4)
touch "/proc/$ct/root/tmp/reap-hang"
nosysadmin attach -v --timeout 4000 --delivery copy "$ct"
t_check "the hanging probe was given up" test "$T_RC" -ne 0
none_left "from the host without CAP_SYS_ADMIN, probe timed out"
kit_stop rp4

# find_reaper: the parent of this run's daemon (the process in between,
# its subreaper), in $reaper, its real uid in $ruid; within 7.5 s
find_reaper() {
	local i
	d=
	for i in $(seq 150); do    # pgrep: daemons() reads every comm, too slow here
		d=$(pgrep -x "$marker" | head -n 1)
		[ -n "$d" ] && break
		sleep 0.05
	done
	ps -o pid,ppid,uid,ruid,comm -p "$d" 2>/dev/null | sed 's/^/  ps| /'
	t_check "the probe left a daemon (${d:-none})" test -n "$d"
	reaper=$(awk '/^PPid:/ {print $2}' "/proc/$d/status" 2>/dev/null)
	ruid=$(awk '/^Uid:/ {print $2}' "/proc/$reaper/status" 2>/dev/null)
	t_log "the daemon's parent: ${reaper:-?}, real uid ${ruid:-?}"
}

# Issue 24 row 10: the process between jsym and the probe has a real and
# saved uid that no process had when it started (random, in the upper
# half of the uid space), so neither the probe nor the pod's nobody
# (65534, the uid it had before, here a process of it runs) can signal it;
# the probe here takes 4 s, so the kill comes while the attach is under way.
t_case host-no-sys-admin-nobody-cannot-kill-reaper
ct=$(start rp8)
touch "/proc/$ct/root/tmp/reap-slow"
setpriv --reuid 65534 --regid 65534 --clear-groups sleep 60 &
nobody=$!
setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin -- \
	"$J" attach -v --timeout 20000 --delivery copy "$ct" >"$KIT_DIR/nk.out" 2>"$KIT_DIR/nk.err" &
jpid=$!
find_reaper
t_check "the reaper's uid ($ruid) is not nobody's" test "${ruid:-65534}" != 65534
t_check "the reaper's uid ($ruid) is no other process's" \
	test -z "$(awk -v u="${ruid:-65534}" -v r="${reaper:-0}" '/^Uid:/ && ($2 == u || $3 == u || $4 == u) {
		split(FILENAME, p, "/"); if (p[3] != r) print p[3] }' /proc/[0-9]*/status 2>/dev/null)"
if setpriv --reuid 65534 --regid 65534 --clear-groups kill -KILL "${reaper:-0}" 2>"$KIT_DIR/nk.kill"; then
	t_check "a process of uid 65534 could not kill the reaper (it could)" false
else
	t_check "a process of uid 65534 gets EPERM killing the reaper: $(cat "$KIT_DIR/nk.kill")" \
		grep -q "not permitted" "$KIT_DIR/nk.kill"
fi
wait "$jpid"
rc=$?
kill "$nobody" 2>/dev/null
t_log "jsym attach: exit $rc, $(tail -n 1 "$KIT_DIR/nk.err")"
t_eq "$rc" 0 "the attach went through"
none_left "nobody tried to kill the reaper"
kit_stop rp8

# Issue 17 row 8: a process that takes the reaper's uid (which needs
# CAP_SETUID: a container's root in a shared-PID pod) can still kill it.
# Killed mid-probe, it cannot kill what the probe left: jsym's attach
# worker adopts those orphans and does.
t_case host-no-sys-admin-reaper-killed
ct=$(start rp7)
touch "/proc/$ct/root/tmp/reap-hang"
setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin -- \
	"$J" attach -v --timeout 8000 --delivery copy "$ct" >"$KIT_DIR/rk.out" 2>"$KIT_DIR/rk.err" &
jpid=$!
find_reaper
t_check "a process of the reaper's uid ($ruid) may kill it" \
	setpriv --reuid "${ruid:-65534}" --regid "${ruid:-65534}" --clear-groups kill -KILL "${reaper:-0}"
wait "$jpid"
t_log "jsym attach: exit $?, $(tail -n 1 "$KIT_DIR/rk.err")"
none_left "the reaper killed by a process of its uid"
kit_stop rp7

t_case sidecar
ct=$(start rp5)
caps=chown,dac_override,fowner,fsetid,kill,setgid,setuid,setpcap,net_bind_service,net_raw,sys_chroot,mknod,audit_write,setfcap,sys_ptrace
t_run --as "[sidecar of $ct] jsym attach" kit_sidecar "$ct" --caps "$caps" \
	--bind "$JSYM_BUILD:/opt/glibc-build:ro" --bind "$JSYM_MUSL_BUILD:/opt/musl-build:ro" -- \
	/opt/glibc-build/jsym attach -v --timeout 4000 --delivery copy 1
t_expect_rc 0
none_left "from a sidecar with Docker's capabilities"
kit_stop rp5

t_case sidecar-timeout
ct=$(start rp6)
touch "/proc/$ct/root/tmp/reap-hang"
t_run --as "[sidecar of $ct] jsym attach (probe hangs)" kit_sidecar "$ct" --caps "$caps" \
	--bind "$JSYM_BUILD:/opt/glibc-build:ro" --bind "$JSYM_MUSL_BUILD:/opt/musl-build:ro" -- \
	/opt/glibc-build/jsym attach -v --timeout 4000 --delivery copy 1
t_check "the hanging probe was given up" test "$T_RC" -ne 0
none_left "from a sidecar with Docker's capabilities, probe timed out"
kit_stop rp6

t_finish
