#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 10-kit-roots: the musl-flavoured root filesystems are what they claim.
#   alpine          only musl: no libc.so.6, no ld-linux*, anywhere; busybox
#                   sh and a musl-linked program run as PID 1
#   alpine-gcompat  alpine + the libc.so.6 shim and ld-linux -> musl loader
#   debian-musl     glibc and Debian's musl side by side
set -euo pipefail
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, pivot_root"

musl_probe=$JSYM_MUSL_BUILD/kit/kit-probe
glibc_probe=$JSYM_BUILD/kit/kit-probe
_kit_make "$musl_probe"
_kit_make "$glibc_probe"

# run_pid1 NAME ROOTFS CMD... : run CMD as PID 1 to its end; print its output,
# fail unless it exits 0.
run_pid1() {
	local name=$1 rootfs=$2 rc
	shift 2
	kit_start "$name" "$rootfs" --bind "$musl_probe:/usr/local/bin/probe-musl:ro" \
		--bind "$glibc_probe:/usr/local/bin/probe-glibc:ro" -- "$@" >/dev/null
	rc=$(kit_wait_exit "$name") || t_abort "$name: did not end"
	[ "$rc" = 0 ] || t_abort "$name: exit $rc: $(cat "$KIT_DIR/$name.log")"
	cat "$KIT_DIR/$name.log"
}

# --- alpine -------------------------------------------------------------
alpine=$(kit_rootfs alpine)
glibc_files=$(find "$alpine" \( -name 'libc.so.6' -o -name 'ld-linux*' -o -name 'libc-2.*' \) -print)
[ -z "$glibc_files" ] || t_abort "glibc files in the alpine rootfs: $glibc_files"
[ -f "$alpine/lib/ld-musl-x86_64.so.1" ] && [ ! -L "$alpine/lib/ld-musl-x86_64.so.1" ] ||
	t_abort "alpine: /lib/ld-musl-x86_64.so.1 is not a real file"
t_eq "$(readlink "$alpine/lib/libc.musl-x86_64.so.1")" ld-musl-x86_64.so.1 \
	"alpine: libc.musl-x86_64.so.1 link"
t_eq "$(cut -d: -f1 "$alpine/etc/passwd")" root "alpine: /etc/passwd users"

out=$(run_pid1 a-sh "$alpine" /bin/sh -c 'echo ok; echo pid=$$')
t_eq "$out" "$(printf 'ok\npid=1')" "alpine: busybox sh as PID 1"
# A musl-linked program, loaded by /lib/ld-musl-x86_64.so.1, as PID 1; it
# then execs busybox sh.
out=$(run_pid1 a-musl "$alpine" /usr/local/bin/probe-musl /bin/sh -c 'echo ok')
t_contains "$out" "probe: pid=1 loader=/lib/ld-musl-x86_64.so.1" "alpine: musl program"
t_contains "$out" "ok" "alpine: exec from the musl program"
# A glibc-linked program cannot even start: there is no glibc loader.
# (A subshell: kit_start reports a failed start with t_abort, which exits.)
if (kit_start a-glibc "$alpine" --bind "$glibc_probe:/usr/local/bin/probe-glibc:ro" \
	-- /usr/local/bin/probe-glibc) >/dev/null 2>"$KIT_DIR/a-glibc.err"; then
	t_abort "alpine: a glibc program started"
fi
t_contains "$(cat "$KIT_DIR/a-glibc.err")" "No such file or directory" \
	"alpine: glibc program refused"

# --- alpine-gcompat -----------------------------------------------------
gcompat=$(kit_rootfs alpine-gcompat)
[ -f "$gcompat/lib/libc.so.6" ] || t_abort "alpine-gcompat: no /lib/libc.so.6"
t_contains "$(readelf -d "$gcompat/lib/libc.so.6")" "Library soname: [libc.so.6]" \
	"alpine-gcompat: shim soname"
t_contains "$(readelf -d "$gcompat/lib/libc.so.6")" "Shared library: [libc.so]" \
	"alpine-gcompat: shim is built on musl"
t_eq "$(readlink "$gcompat/lib/ld-linux-x86-64.so.2")" ld-musl-x86_64.so.1 \
	"alpine-gcompat: ld-linux link"
# The glibc program now starts, on musl's loader.
out=$(run_pid1 g-glibc "$gcompat" /usr/local/bin/probe-glibc)
t_contains "$out" "probe: pid=1 loader=/lib/ld-musl-x86_64.so.1" \
	"alpine-gcompat: glibc program on the musl loader"

# --- debian-musl --------------------------------------------------------
dmusl=$(kit_rootfs debian-musl)
[ -e "$dmusl/lib/ld-musl-x86_64.so.1" ] || t_abort "debian-musl: no /lib/ld-musl-x86_64.so.1"
[ -e "$dmusl/lib/x86_64-linux-gnu/libc.so.6" ] || t_abort "debian-musl: no glibc"
out=$(run_pid1 d-musl "$dmusl" /usr/local/bin/probe-musl)
t_contains "$out" "probe: pid=1 loader=- libc=/usr/lib/x86_64-linux-musl/libc.so" \
	"debian-musl: musl program"
out=$(run_pid1 d-glibc "$dmusl" /usr/local/bin/probe-glibc)
t_contains "$out" "libc=/usr/lib/x86_64-linux-gnu/libc.so.6" "debian-musl: glibc program"
t_log "pass: alpine, alpine-gcompat, debian-musl"
t_finish
