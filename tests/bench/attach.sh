#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/bench/attach.sh - attach latency of jsym vs the JDK's own jcmd.
#
# For each HotSpot JDK: the wall time of one request, median of N runs,
#   cold: a fresh JVM whose attach listener is not started yet (trigger file,
#         SIGQUIT, wait for the socket, request)
#   warm: the same JVM again, listener running (connect, request)
# measured for `jsym exec PID properties` and for the JDK's
# `jcmd PID VM.system_properties` (baseline) in the same run, printed as
# ratios `jsym/jcmd warm: 0.05x`.  Never asserts speed.
#   ATTACH_BENCH_COLD=N (default 5), ATTACH_BENCH_WARM=N (default 20)
source "$JSYM_ROOT/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/lib/median.sh"
source "$JSYM_ROOT/tests/integration/lib-attach.bash"
# A benchmark that cannot run says why and lets the others go on.
t_skip() {
	T_FINISHED=1
	echo "attach bench skipped: $*"
	exit 0
}
la_init
la_need_jvm

cold_n=${ATTACH_BENCH_COLD:-5}
warm_n=${ATTACH_BENCH_WARM:-20}

# timed VAR CMD...: run CMD (output discarded), append its wall time in µs to
# the array VAR; a failing CMD is reported and not counted.
timed() {
	local -n acc=$1
	shift
	local t0 t1
	clock_us t0
	if "$@" >/dev/null 2>"$LA_TMP/bench.err"; then
		clock_us t1
		acc+=($((t1 - t0)))
	else
		echo "  failed: $* ($(head -c 200 "$LA_TMP/bench.err"))"
	fi
}


ms() { awk -v u="$1" 'BEGIN { printf "%.1f ms", u / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "n/a" }'; }

while read -r home v <&3; do
	jcmd=$home/bin/jcmd
	[ -x "$jcmd" ] || { echo "JDK $v: no jcmd, skipped"; continue; }
	jsym_cold=() jcmd_cold=() jsym_warm=() jcmd_warm=()
	for i in $(seq "$cold_n"); do
		la_jvm_start "b$v-js$i" "$home" >/dev/null || continue
		timed jsym_cold "$JSYM" exec "$LA_PID" properties
		[ "$i" = 1 ] && for _ in $(seq "$warm_n"); do
			timed jsym_warm "$JSYM" exec "$LA_PID" properties
		done
		la_jvm_stop "$LA_PID"
		la_jvm_start "b$v-jc$i" "$home" >/dev/null || continue
		timed jcmd_cold "$jcmd" "$LA_PID" VM.system_properties
		[ "$i" = 1 ] && for _ in $(seq "$warm_n"); do
			timed jcmd_warm "$jcmd" "$LA_PID" VM.system_properties
		done
		la_jvm_stop "$LA_PID"
	done
	jsc=$(median "${jsym_cold[@]}") jcc=$(median "${jcmd_cold[@]}")
	jsw=$(median "${jsym_warm[@]}") jcw=$(median "${jcmd_warm[@]}")
	echo "JDK $v ($home), medians of $cold_n cold / $warm_n warm runs:"
	echo "  cold: jsym $(ms "$jsc") (n=${#jsym_cold[@]}), jcmd $(ms "$jcc") (n=${#jcmd_cold[@]})"
	echo "  warm: jsym $(ms "$jsw") (n=${#jsym_warm[@]}), jcmd $(ms "$jcw") (n=${#jcmd_warm[@]})"
	echo "  jsym/jcmd cold: $(ratio "$jsc" "$jcc")"
	echo "  jsym/jcmd warm: $(ratio "$jsw" "$jcw")"
done 3< <(t_jdks)
