#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 51-deploy-roots.sh - `jsym attach` picks the right libc build in every
# root filesystem of the kit, by a probe under the container's own loader.
#
#   debian-musl     Debian's JDK 17 (glibc)          -> glibc build
#   debian-musl     the musl HotSpot emulator        -> musl build (Debian's
#                   musl loader: /usr/lib/x86_64-linux-musl/libc.so)
#   alpine          the musl emulator, no glibc file -> musl build (from
#                   the host, and from a sidecar with Docker's capabilities)
#   alpine-gcompat  the musl emulator, a libc.so.6 shim: the glibc build
#                   "loads" there too (musl's loader takes libc.so.6 for
#                   itself), and still the musl build is chosen, because
#                   that is the libc the JVM maps
# Each time the agent really runs: for the emulator, its map must equal the
# emulator's truth (live code, after loads into freed slots and unloads).
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, chown"
J=$JSYM_BUILD/jsym
EMU=$JSYM_MUSL_BUILD/tests/emu
[ -x "$J" ] && [ -x "$EMU/hs_emu" ] || t_skip "not built (make)"

# judge JSON BUILD LOADER-ERE: the attach's JSON says build BUILD, copied,
# the probe ran under a loader matching LOADER-ERE and the build loaded.
judge() {
	python3 "$JSYM_ROOT/tests/lib/judge_attach.py" "$@"
}

# same_map TRUTH MAP: equal as sets of lines, within 3 s.
same_map() {
	local i
	for i in $(seq 30); do
		diff <(sort "$1") <(sort "$2") >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	diff <(sort "$1") <(sort "$2") | head -n 5 >&2
	return 1
}

# emu NAME ROOT: the musl emulator as PID 1, uid 1000.
emu() {
	local pid i
	pid=$(kit_start "$1" "$(kit_rootfs "$2")" --uid 1000 --gid 1000 --cwd /tmp \
		--bind "$EMU:/opt/emu:ro" -- /opt/emu/hs_emu --truth /tmp/truth \
		--log /tmp/emu.log --events 1500 --rate 1500 --seed 51) || t_abort "kit_start $1"
	for i in $(seq 100); do
		grep -q 'started' "/proc/$pid/root/tmp/emu.log" 2>/dev/null && break
		sleep 0.1
	done
	echo "$pid"
}

# attach_emu NAME ROOT LOADER-ERE [EXTRA-CHECK-BUILD]
attach_emu() {
	local ct
	ct=$(emu "$1" "$2")
	t_run "$J" attach --json -v "$ct"
	t_expect_rc 0
	t_check "musl build chosen, copied, confirmed under $3: $(judge "$T_OUT" musl "$3" 2>&1)" \
		judge "$T_OUT" musl "$3"
	t_check "the emulator maps the copied musl build" \
		grep -q "/tmp/jsym-[0-9a-f]*-[0-9]*-[0-9]*/musl/libjsym-agent.so" "/proc/$ct/maps"
	for _ in $(seq 100); do
		grep -q 'generator: idle' "/proc/$ct/root/tmp/emu.log" && break
		sleep 0.1
	done
	t_check "the musl agent's map equals the emulator's truth ($(wc -l <"/proc/$ct/root/tmp/truth") ranges)" \
		same_map "/proc/$ct/root/tmp/truth" "/proc/$ct/root/tmp/perf-1.map"
	t_eq "$(stat -c %u "/proc/$ct/root/tmp/perf-1.map")" 1000 "the map is the JVM's"
	CT=$ct
}

t_case debian-musl-jdk
classes=$(kit_java_build)
ct=$(kit_start dm "$(kit_rootfs debian-musl)" --uid 1000 --gid 1000 --bind "$classes:/opt/jsym-java:ro" \
	-- "$KIT_CT_JAVA" -Xmx96m -cp /opt/jsym-java Workload 0)
kit_wait_jvm "$ct" 60 || t_abort "the JVM did not start"
t_run "$J" attach --json "$ct"
t_expect_rc 0
t_check "glibc build chosen for Debian's JDK next to musl: $(judge "$T_OUT" glibc ld-linux 2>&1)" \
	judge "$T_OUT" glibc ld-linux
kit_stop dm

t_case debian-musl-emulator
attach_emu dme debian-musl 'x86_64-linux-musl/libc\.so$'
kit_stop dme

t_case alpine-emulator
attach_emu ae alpine '/lib/ld-musl-x86_64\.so\.1$'
t_check "no glibc file in the container" test ! -e "/proc/$CT/root/lib/libc.so.6"
kit_stop ae

t_case alpine-emulator-from-a-sidecar
# kubectl debug's view: Docker's default capabilities, no CAP_SYS_ADMIN, the
# static musl jsym; the probe chroots into the Alpine root and runs its
# musl loader as uid 1000
ct=$(emu aes alpine)
t_run kit_sidecar "$ct" --bind "$JSYM_ROOT:$JSYM_ROOT:ro" -- \
	"$JSYM_MUSL_BUILD/jsym" attach --json -v 1
t_expect_rc 0
t_check "musl build chosen, copied, confirmed under Alpine's loader: $(judge "$T_OUT" musl '/lib/ld-musl-x86_64\.so\.1$' 2>&1)" \
	judge "$T_OUT" musl '/lib/ld-musl-x86_64\.so\.1$'
t_expect_err 'no CAP_SYS_ADMIN'
for _ in $(seq 100); do
	grep -q 'generator: idle' "/proc/$ct/root/tmp/emu.log" && break
	sleep 0.1
done
t_check "the musl agent's map equals the emulator's truth" \
	same_map "/proc/$ct/root/tmp/truth" "/proc/$ct/root/tmp/perf-1.map"
kit_stop aes

t_case alpine-gcompat-emulator
attach_emu age alpine-gcompat '/lib/ld-musl-x86_64\.so\.1$'
t_check "evidence: the glibc build also loads under musl's loader there, yet musl was chosen" \
	python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["build"]=="musl" and d["probe"]["glibc"]["loads"]' "$T_OUT"
kit_stop age

t_finish
