#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 38-attach-chroot.sh - JVMs whose root is a chroot below their mount
# namespace's root, and jsym itself run in a chroot (issue 15, item 5).
#
# Every path jsym resolves for a target must be taken from the target's own
# root (/proc/PID/root), never from its mount namespace's root or jsym's:
#
#  chrooted-musl-jvm   the musl emulator chrooted (uid 1000) in its own mount
#                      namespace on a tmpfs "ramdisk", as runc --no-pivot and
#                      systemd's RootDirectory= make it: `jsym attach` from
#                      the host loads the musl build, probed under the
#                      chroot's /lib/ld-musl-x86_64.so.1; `jsym list` reads
#                      the JDK's release there (17.0.99); the map in the
#                      chroot's /tmp equals the emulator's truth
#  same-ns-other-root  jsym in such a mount namespace but at its root (not the
#                      chroot) attaches a fresh one; detach cleans
#  jsym-in-chroot      `make demo` (mk/demo.sh) run in a chroot of a Debian 12
#                      root: its container made there, attached from there
#                      and from a sidecar; a JVM of the chroot attached by a
#                      jsym in it (in place) and by one on the host
#
# Before the fix the first and the last failed with "cannot run the libc
# probe in the JVM's container: ... cannot load /tmp/jsym-.../jsym-probe".
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, mounts, chroot"
J=$JSYM_BUILD/jsym
EMU_M=$JSYM_MUSL_BUILD/tests/emu/hs_emu
for f in "$J" "$JSYM_MUSL_BUILD/jsym" "$EMU_M"; do
	[ -x "$f" ] || t_skip "not built: $f (run make)"
done
command -v nsenter >/dev/null && command -v unshare >/dev/null ||
	t_skip "needs nsenter and unshare (util-linux)"

# wait_file FILE [SECS=30]: FILE exists and is not empty.
wait_file() {
	local i
	for ((i = 0; i < ${2:-30} * 10; i++)); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# chrooted_emu NAME: the musl emulator chrooted in a mount namespace of its
# own, uid 1000; prints its pid once it runs.
alp=$(kit_rootfs alpine) || t_abort "no alpine root"
chrooted_emu() {
	local pid
	pid=$(kit_chroot "$1" "$alp" --uid 1000 --gid 1000 \
		--bind "$JSYM_MUSL_BUILD/tests/emu:/opt/emu:ro" -- \
		/opt/emu/hs_emu --truth /tmp/truth --log /tmp/hs_emu.log --events 800 \
		--rate 1500 --seed 38) || t_abort "cannot chroot the emulator $1"
	wait_file "/proc/$pid/root/tmp/hs_emu.log" 10 ||
		t_abort "the chrooted emulator $1 did not start: $(cat "$KIT_DIR/$1.log")"
	echo "$pid"
}
# map_is_truth PID: its map in the chroot's /tmp equals the truth (within
# 10 s: the generator runs on, then idles).
map_is_truth() {
	local r=/proc/$1/root/tmp i
	for ((i = 0; i < 40; i++)); do
		sort "$r/truth" | cmp -s - <(sort "$r/perf-$1.map" 2>/dev/null) && return 0
		sleep 0.25
	done
	return 1
}

t_case chrooted-musl-jvm
emu=$(chrooted_emu emu) || exit 1
t_log "root of $emu: $(readlink "/proc/$emu/root"); its loader as the host reads maps: \
$(awk '/ld-musl/ {print $6; exit}' "/proc/$emu/maps")"
t_check "the emulator's root is a chroot, not its namespace's root" \
	test "$(readlink "/proc/$emu/root")" != /
t_run "$J" list --json
t_check "jsym list reads the JDK's release inside the chroot (17.0.99, musl)" python3 -c '
import json, sys
e = [x for x in json.loads(sys.argv[2]) if x["pid"] == int(sys.argv[1])]
sys.exit(0 if e and (e[0]["version"], e[0]["libc"]) == ("17.0.99", "musl") else 1)' "$emu" "$T_OUT"
t_run "$J" attach -v --options flush_ms=50 "$emu"
t_expect_rc 0
t_expect_out 'agent loaded \(HotSpot 17\.0\.99, musl build, copied to /tmp/jsym-[0-9a-f]{12}-[0-9]+-[0-9]+/musl/libjsym-agent\.so\)'
t_expect_err "chroot into the JVM's root" \
	'probe musl build under /lib/ld-musl-x86_64\.so\.1: loads'
t_check "the map in the chroot's /tmp equals the emulator's truth" map_is_truth "$emu"
t_eq "$(t_agents "$emu" | wc -l)" 1 "one agent mapped"
t_run "$J" attach "$emu"
t_expect_rc 0
t_expect_out 'agent refreshed \(HotSpot 17\.0\.99, musl build, already-loaded /tmp/jsym-'
t_eq "$(t_agents "$emu" | wc -l)" 1 "refreshed: still one agent mapped"

t_case same-ns-other-root
# jsym in the emulator's mount namespace, at that namespace's root: the
# emulator's root is still a chroot below where jsym stands
emu2=$(chrooted_emu emu2) || exit 1
t_run nsenter --target "$emu2" --mount -- "$J" attach -v --options flush_ms=50 "$emu2"
t_expect_rc 0
t_expect_out 'agent loaded \(HotSpot 17\.0\.99, musl build, copied to /tmp/jsym-'
t_expect_err 'mnt ns: same as ours' "chroot into the JVM's root" \
	'probe musl build under /lib/ld-musl-x86_64\.so\.1: loads'
t_check "its map equals the emulator's truth" map_is_truth "$emu2"
t_run "$J" detach "$emu2"
t_expect_rc 0
t_expect_out 'removed 3 copied files'

t_case jsym-in-chroot
deb=$(kit_rootfs debian) || t_abort "no debian root"
classes=$(kit_java_build)
# a chroot of the Debian root holding jsym's tree and the kit's cache, with
# a JVM of its own started in it the way a user of that chroot would
ch=$(kit_chroot chroot "$deb" --uid 1000 --gid 1000 --bind "$JSYM_ROOT:/opt/jsym:ro" \
	--bind "$JSYM_CACHE:$JSYM_CACHE" --bind "$classes:/opt/jsym-java:ro" \
	-- "$KIT_CT_JAVA" -Xmx96m -cp /opt/jsym-java Workload 0) ||
	t_abort "cannot start a JVM in a chroot"
kit_wait_jvm "$ch" 60 || t_abort "the chroot's JVM did not start: $(cat "$KIT_DIR/chroot.log")"
# `make demo` there: its container is made from inside the chroot, and
# jsym attaches it from the chroot and from a sidecar
t_run kit_in_chroot "$ch" -- env JSYM_CACHE="$JSYM_CACHE" bash /opt/jsym/mk/demo.sh
t_expect_rc 0
t_expect_out 'agent loaded \(HotSpot 17[^,]*, glibc build, copied to /tmp/jsym-' \
	'agent refreshed \(HotSpot 17' 'demo done'
t_run kit_in_chroot "$ch" -- /opt/jsym/glibc-build/jsym attach -v "$ch"
t_expect_rc 0
t_expect_out "agent loaded \(HotSpot 17[^,]*, glibc build, in-place /opt/jsym/glibc-build/libjsym-agent\.so\)"
t_check "the chroot's JVM's map is in the chroot's /tmp" \
	wait_file "/proc/$ch/root/tmp/perf-$ch.map" 10
t_check "nothing of it in the host's /tmp" test ! -e "/tmp/perf-$ch.map"
t_run "$J" attach "$ch"
t_expect_rc 0
t_expect_out 'agent refreshed \(HotSpot 17[^,]*, glibc build, already-loaded /opt/jsym/glibc-build/libjsym-agent\.so\)'
t_eq "$(t_agents "$ch" | wc -l)" 1 "jsym from the host finds the same agent (one mapped)"

t_finish
