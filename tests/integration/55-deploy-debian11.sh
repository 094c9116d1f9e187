#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 55-deploy-debian11.sh - `jsym attach` into a Debian 11 container: glibc
# 2.31, before libpthread and libdl joined libc (2.34), running bullseye's
# own JDK 17 as PID 1, uid 1000.  The glibc build is made on this machine's
# newer glibc; it must still be the build chosen, confirmed by the probe run
# under the container's own ld-linux (which reports glibc 2.31), and the
# agent must run there: its map in the container's /tmp, owned by 1000,
# naming Java methods.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, chown"
J=$JSYM_BUILD/jsym
[ -x "$J" ] && [ -x "$JSYM_MUSL_BUILD/jsym" ] || t_skip "jsym not built (make)"

classes=$(kit_java_build)
rootfs=$(kit_rootfs debian11)

# judge JSON: glibc build, copied, probed under an ld-linux that reported
# glibc 2.31, and the glibc build loaded there.
judge() {
	python3 "$JSYM_ROOT/tests/lib/judge_attach.py" "$1" glibc '/ld-(linux-x86-64\.so\.2|2\.31\.so)$' \
		exit=0 jvm_libc=glibc nspid=1 uid=1000 'probe.libc=glibc 2.31'
}

ct=$(kit_start d11 "$rootfs" --uid 1000 --gid 1000 --bind "$classes:/opt/jsym-java:ro" \
	-- "$KIT_CT_JAVA" -Xmx128m -cp /opt/jsym-java Workload 0) ||
	t_abort "kit_start d11"
kit_wait_jvm "$ct" 60 || t_abort "the bullseye JVM did not start: $(cat "$KIT_DIR/d11.log")"
root=/proc/$ct/root

t_case the-container
t_eq "$(awk '/^NSpid:/ {print $NF}' "/proc/$ct/status")" 1 "the JVM is PID 1"
t_check "the JVM maps bullseye's libc-2.31.so" grep -q '/libc-2\.31\.so$' "/proc/$ct/maps"
t_check "and its separate libpthread-2.31.so" grep -q '/libpthread-2\.31\.so$' "/proc/$ct/maps"
t_check "and its own JDK 17 (not the host's)" grep -q 'deb11u' "$root/usr/lib/jvm/java-17-openjdk-amd64/release"
t_log "host glibc $(getconf GNU_LIBC_VERSION | cut -d' ' -f2); the glibc agent needs up to" \
	"$(objdump -T "$JSYM_BUILD/libjsym-agent.so" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1)"

t_case attach
t_run "$J" attach --json -v "$ct"
t_expect_rc 0
t_expect_err 'probe glibc build under /[^ ]*ld-[^ ]*: loads \(libc glibc 2\.31'
t_check "glibc build chosen, copied, confirmed under the container's loader: $(judge "$T_OUT" 2>&1)" \
	judge "$T_OUT"
t_check "the JVM maps the copied glibc build" \
	grep -qE ' /tmp/jsym-[0-9a-f]{12}-[0-9]+-[0-9]+/glibc/libjsym-agent\.so$' "/proc/$ct/maps"
for _ in $(seq 50); do [ -s "$root/tmp/perf-1.map" ] && break; sleep 0.1; done
t_check "the map is in the container's /tmp" test -s "$root/tmp/perf-1.map"
t_eq "$(stat -c %u:%g "$root/tmp/perf-1.map")" 1000:1000 "the map is the JVM's"
t_check "the map names Java methods" grep -qE ' [A-Za-z_$][^ ]*\.[A-Za-z_$<][^ ]*\(' "$root/tmp/perf-1.map"
t_check "the agent logged its start" grep -q 'started' "$root/tmp/jsym-1.log"
t_check "the JVM is still alive" kill -0 "$ct"

t_finish
