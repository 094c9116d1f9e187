#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 20-agent-elf.sh - the two agent builds are loadable where they claim to be:
#  - glibc build: no symbol version newer than GLIBC_2.17, NEEDED only libc
#    (+ libpthread/libdl/ld-linux), no undefined non-libc symbol
#  - musl build: NEEDED only libc.so
#  - both export exactly Agent_OnLoad, Agent_OnAttach, Agent_OnUnload and
#    jsym_agent_probe
#  - the musl build dlopens under the musl loader and its probe returns
#    0x4a53594d (musl-build/tests/probe_agent, a musl program)
#  - the glibc lookup library (libjsym-lookup.so.1) loads where the agent
#    does: nothing newer than GLIBC_2.17, no function that lived outside
#    libc.so.6 before 2.34, NEEDED only libc.so.6
set -u
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
g=$JSYM_BUILD/libjsym-agent.so
m=$JSYM_MUSL_BUILD/libjsym-agent.so
probe=$JSYM_MUSL_BUILD/tests/probe_agent
command -v readelf >/dev/null || t_skip "needs readelf (binutils)"
[ -f "$g" ] && [ -f "$m" ] && [ -x "$probe" ] || t_skip "agent not built (run make)"

exports() {
	readelf --dyn-syms -W "$1" | awk 'NR > 3 && $7 != "UND" && $8 != "" {print $8}' | sort | tr '\n' ' '
}
want="Agent_OnAttach Agent_OnLoad Agent_OnUnload jsym_agent_probe "

echo "--- glibc build: versions required (readelf --dyn-syms -W | grep GLIBC_)"
readelf --dyn-syms -W "$g" | grep -o 'GLIBC_[0-9.]*' | sort -t. -k1,1 -k2,2n -k3,3n | uniq -c
newest=$(readelf -V -W "$g" | grep -o 'GLIBC_2\.[0-9]*' | sort -t. -k2,2n | tail -1)
echo "newest version needed: $newest"
too_new() { # [FILE]
	readelf -V -W "${1:-$g}" | grep -o 'GLIBC_2\.[0-9]*' |
		awk -F. '$2 > 17 {bad=1; print "  needs " $0} END {exit bad}'
}
t_check "glibc build needs nothing newer than GLIBC_2.17" too_new
# A versioned reference names libc.so.6; before glibc 2.34 these lived in
# libpthread/libdl/librt, and the dynamic linker fails when libc.so.6 comes
# first in the JVM's search order (agent/jvm/glibc_compat.h).  libc.so.6 always
# had the mutex/cond forwarders, pthread_self and pthread_equal.
moved_out() { # [FILE]
	readelf --dyn-syms -W "${1:-$g}" | awk 'NR > 3 && $7 == "UND" {print $8}' | sed 's/@.*//' |
		grep -E '^(pthread_|dl[a-z]|sem_|shm_|timer_|mq_|aio_|lio_)' |
		grep -vxE 'pthread_(mutex_(lock|unlock|init|destroy)|cond_(broadcast|signal|wait|timedwait|init|destroy)|self|equal)' |
		sed 's/^/  pre-2.34 this is not in libc.so.6: /' | grep . && return 1
	return 0
}
t_check "glibc build uses no function that lived outside libc.so.6 before glibc 2.34" moved_out
echo "--- readelf -d (NEEDED)"
readelf -d "$g" | grep NEEDED
readelf -d "$m" | grep NEEDED
t_check "glibc build NEEDED only libc/libpthread/libdl" \
	bash -c "! readelf -d '$g' | grep NEEDED | grep -vE '\[(libc\.so\.6|libpthread\.so\.0|libdl\.so\.2|ld-linux-x86-64\.so\.2)\]'"
t_check "musl build NEEDED only libc.so" \
	bash -c "[ \"\$(readelf -d '$m' | grep NEEDED | grep -o '\[.*\]')\" = '[libc.so]' ]"
t_check "glibc build exports exactly the 4 entry points" [ "$(exports "$g")" = "$want" ]
t_check "musl build exports exactly the 4 entry points" [ "$(exports "$m")" = "$want" ]
undefined_nonlibc() { # only symbols libc provides may be undefined (-z defs at link time)
	readelf --dyn-syms -W "$1" | awk 'NR > 3 && $7 == "UND" && $8 != "" {print $8}' |
		sed 's/@.*//' | grep -vE '^(_ITM_|__gmon_start__|__cxa_finalize)' >"$2"
	local s
	while read -r s; do
		nm -D --defined-only "$3" 2>/dev/null | awk '{print $3}' | sed 's/@.*//' | grep -qx "$s" ||
			{ echo "  $s not in $3"; return 1; }
	done <"$2"
}
tmp=$KIT_DIR/undefined
t_check "glibc build: every undefined symbol is in libc.so.6" \
	undefined_nonlibc "$g" "$tmp" /lib/x86_64-linux-gnu/libc.so.6
if [ -e /usr/lib/x86_64-linux-musl/libc.so ]; then
	t_check "musl build: every undefined symbol is in musl's libc.so" \
		undefined_nonlibc "$m" "$tmp" /usr/lib/x86_64-linux-musl/libc.so
fi
lk=$JSYM_BUILD/libjsym-lookup.so.1
if [ -f "$lk" ]; then
	echo "--- glibc lookup library: versions required"
	readelf --dyn-syms -W "$lk" | grep -o 'GLIBC_[0-9.]*' | sort -t. -k1,1 -k2,2n -k3,3n | uniq -c
	t_check "libjsym-lookup.so.1 (glibc) needs nothing newer than GLIBC_2.17" too_new "$lk"
	t_check "libjsym-lookup.so.1 (glibc) uses no function outside libc.so.6 before glibc 2.34" \
		moved_out "$lk"
	t_check "libjsym-lookup.so.1 (glibc) NEEDED only libc.so.6" \
		bash -c "[ \"\$(readelf -d '$lk' | grep NEEDED | grep -o '\[.*\]')\" = '[libc.so.6]' ]"
else
	t_fail "not built: $lk (run make)"
fi
echo "--- musl loader: $probe $m"
out=$("$probe" "$m" 2>&1)
echo "$out"
t_check "musl dlopen + jsym_agent_probe() == 0x4a53594d" [ "$out" = "probe 0x4a53594d" ]
t_check "probe_agent is a musl program" bash -c "readelf -l '$probe' | grep -q 'ld-musl-x86_64'"
t_finish
