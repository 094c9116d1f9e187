#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 75-map-chroot.sh - `jsym map` of a JVM whose root is a chroot below its
# mount namespace's root (runc --no-pivot, systemd's RootDirectory=), made
# as 38-attach-chroot makes one: a Debian 12 JDK 17 in its own mount
# namespace, chrooted, uid 1000.
#
# /proc/PID/maps names libjvm.so from jsym's root (.../ramdisk/root/usr/lib
# /jvm/...), while jsym re-roots the path to the JVM's own (/usr/lib/jvm/
# ...). Before the fix (issue 24 row 11) the re-rooted path was searched in
# the raw maps text and `jsym map` failed: "libjvm.so is not mapped from its
# start (offset 0)". Now `map --stdout` names the workload's compiled
# methods, and `map` writes the JVM's /tmp/perf-PID.map inside the chroot,
# owned by uid 1000, and nothing in the host's /tmp.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, mounts, chroot, another user's JVM memory"
J=$JSYM_BUILD/jsym
[ -x "$J" ] || t_skip "jsym not built (make)"
command -v unshare >/dev/null || t_skip "needs unshare (util-linux)"
deb=$(kit_rootfs debian) || t_abort "no debian root"
classes=$(kit_java_build)

t_case map-chrooted-jvm
ch=$(kit_chroot jvm "$deb" --uid 1000 --gid 1000 --bind "$classes:/opt/jsym-java:ro" \
	-- "$KIT_CT_JAVA" -Xmx96m -cp /opt/jsym-java Workload 0) ||
	t_abort "cannot start a JVM in a chroot"
kit_wait_jvm "$ch" 60 || t_abort "the chroot's JVM did not start: $(cat "$KIT_DIR/jvm.log")"
kit_on_exit "rm -f /tmp/perf-$ch.map"
sleep 4         # some methods compiled
t_log "root of $ch: $(readlink "/proc/$ch/root"); libjvm.so as the host reads maps: \
$(awk '/libjvm\.so/ {print $6; exit}' "/proc/$ch/maps")"
t_check "the JVM's root is a chroot, not its namespace's root" \
	test "$(readlink "/proc/$ch/root")" != /
t_run "$J" map --stdout "$ch"
t_expect_rc 0
t_expect_out '^[0-9a-f]+ [0-9a-f]+ .*Workload'
t_run "$J" map "$ch"
t_expect_rc 0
t_check "the map is in the chroot's /tmp" test -s "/proc/$ch/root/tmp/perf-$ch.map"
t_eq "$(stat -c %u "/proc/$ch/root/tmp/perf-$ch.map")" 1000 "the map is the JVM's uid's"
t_check "nothing of it in the host's /tmp" test ! -e "/tmp/perf-$ch.map"

t_finish
