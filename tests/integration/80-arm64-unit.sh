#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 80-arm64-unit.sh - the Check unit suites of the aarch64 glibc tree, run
# under qemu-user (binfmt_misc): glibc-build-aarch64/tests/unit/check_jsym,
# cross-built by `make ARCH=aarch64` like the product.  Also the aarch64
# artifacts' ELF promises: the glibc agent and lookup library need nothing
# newer than GLIBC_2.17, the agent exports only its entry points, the musl
# agent NEEDs only libc.so, the installed jsym is static.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
kit_qemu_ready || t_skip "$KIT_QEMU_WHY"
G=$JSYM_ROOT/glibc-build-aarch64
M=$JSYM_ROOT/musl-build-aarch64
RE=aarch64-linux-gnu-readelf

t_case elf
for f in "$G/libjsym-agent.so" "$G/libjsym-lookup.so.1" "$G/jsym-probe"; do
	t_eq "$($RE -h "$f" | sed -n 's/^ *Machine: *//p')" AArch64 "${f#"$JSYM_ROOT"/} is aarch64"
	newer=$($RE -W --dyn-syms "$f" | grep -o 'GLIBC_[0-9.]*' | sort -uV |
		awk -F'[_.]' '$2 > 2 || ($2 == 2 && $3 > 17)' | tr '\n' ' ')
	t_eq "$newer" "" "${f#"$JSYM_ROOT"/} needs nothing newer than GLIBC_2.17"
done
for l in "$G" "$M"; do
	exports=$($RE -W --dyn-syms "$l/libjsym-agent.so" |
		awk '$5 == "GLOBAL" && $7 != "UND" {print $8}' | sort | tr '\n' ' ')
	t_eq "$exports" "Agent_OnAttach Agent_OnLoad Agent_OnUnload jsym_agent_probe " \
		"${l#"$JSYM_ROOT"/}/libjsym-agent.so exports only the entry points"
done
t_eq "$($RE -d "$M/libjsym-agent.so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')" \
	"libc.so " "the musl agent NEEDs only libc.so"
t_check "the musl jsym is static" bash -c "! $RE -l '$M/jsym' | grep -q INTERP"

t_case unit-suites
start=$(date +%s)
t_run "$G/tests/unit/check_jsym"
t_log "aarch64 unit suites under qemu: $(($(date +%s) - start))s"
t_expect_rc 0
t_expect_out '100%: Checks: [0-9]+, Failures: 0, Errors: 0'
# Some suites do not wait for every child they fork (the pool's worker
# killed at its limit, by design).  Emulated, such a child once still ran
# when the runner checked this scenario's session for leaks: give the
# suites' processes 30 s to end (a hostile-JVM fake of check_hotspot
# drips for 10 s, slower under qemu), then show what is left of the session,
# which the runner still counts as a leak.
for _ in $(seq 300); do
	pgrep -s 0 -f tests/unit/check_jsym >/dev/null || break
	sleep 0.1
done
t_log "this session after the suites: $(ps -s "$(ps -o sid= -p $$ | tr -d " ")" -o pid=,stat=,args= |
	grep -v -e " ps -s" -e " grep " -e " tr " -e "$0" | tr '\n' ';')"
t_finish
