#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# perf_cost.sh - perf's own cost on a JVM with the JDK's default flags:
# `--call-graph dwarf` (whole stacks through the agent's unwinding data)
# against `-g` (frame pointers, which such a JVM does not keep).
#
# One JVM (JDK 17, default flags) runs tests/bench/DeepWork.java: one thread
# about 70 frames deep doing rounds of fixed work, with jsym's agent loaded
# at start (jitdump, unbounded; its outputs in a temp dir).  Then REPS times,
# in turn, a window of SECONDS in each mode:
#   none      no perf: the baseline
#   fp        perf record -g
#   dwarf16k  perf record --call-graph dwarf,16384 (22-agent-whole-stacks)
#   dwarf8k   perf record --call-graph dwarf,8192
#   dwarf64k  perf record --call-graph dwarf,65528 (the most perf takes)
# each `perf record -k mono -F FREQ -p PID -- sleep SECONDS` (-k mono for
# perf inject --jit).  Per window: the JVM's rounds per second (counted on
# its own clock) and its CPU seconds per 1,000 rounds, perf record's own CPU
# time per second, the perf.data bytes per second; then `perf inject --jit`
# and `perf script` on it (that is where dwarf's unwinding happens): inject's
# CPU time, and per 1,000 samples script's wall and CPU time and the same
# with --no-inline (no addr2line for inlined frames: the unwinding alone).
# Prints the medians and the ratios to no perf and to -g.  Never asserts.
# perf's build-id cache goes to the temp dir, not ~/.debug.
#   REPS=N (default 3), PERF_COST_SECONDS (4), PERF_COST_FREQ (499),
#   PERF_COST_MODES (default "none fp dwarf16k dwarf8k dwarf64k"; keep none
#   and fp, the baselines), PERF_COST_WARMUP (5 s before the first window).
# About 2.5 minutes with the defaults; perf script's wait on addr2line for
# inlined frames is most of it.
set -u
: "${JSYM_ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${JSYM_BUILD:=$JSYM_ROOT/glibc-build}"
source "$JSYM_ROOT/tests/lib/median.sh"
lib=$JSYM_BUILD/libjsym-agent.so
jdk=/usr/lib/jvm/java-17-openjdk-amd64
reps=${REPS:-3}
secs=${PERF_COST_SECONDS:-4}
freq=${PERF_COST_FREQ:-499}
modes=${PERF_COST_MODES:-none fp dwarf16k dwarf8k dwarf64k}
[ "$(id -u)" = 0 ] || { echo "perf_cost: skipped, needs root (perf on the JVM, -k mono)"; exit 0; }
command -v perf >/dev/null || { echo "perf_cost: skipped, needs perf (linux-perf)"; exit 0; }
[ -f "$lib" ] || { echo "perf_cost: skipped, agent not built (make)"; exit 0; }
[ -x "$jdk/bin/javac" ] || { echo "perf_cost: skipped, needs JDK 17"; exit 0; }
tmp=$(mktemp -d /tmp/jsym-bench-perf.XXXXXX)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
hz=$(getconf CLK_TCK)
P=(perf --buildid-dir "$tmp/debug")

"$jdk/bin/javac" --release 17 -d "$tmp/cls" "$JSYM_ROOT"/tests/bench/DeepWork.java || exit 1
mkdir -p "$tmp/agent"
: >"$tmp/out"
"$jdk/bin/java" -Xmx64m "-agentpath:$lib=dir=$tmp/agent,jitdump,jitdump_max=0" \
	-cp "$tmp/cls" DeepWork >"$tmp/out" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
	grep -q 'deep-work: started' "$tmp/out" && break
	sleep 0.1
done
grep -q 'deep-work: started' "$tmp/out" || { echo "perf_cost: the JVM did not start: $(tail -n 3 "$tmp/out")"; exit 1; }
sleep "${PERF_COST_WARMUP:-5}" # C1, then C2 on the levels and the leaf

# progress -> "NANOS ROUNDS": the JVM's last complete progress line
progress() {
	tail -n 2 "$tmp/out" | head -n 1 | awk '$1 == "deep-work:" && NF == 3 {print $2, $3}'
}

# jvm_ticks -> the JVM's user + system time, all threads, in clock ticks
jvm_ticks() {
	sed 's/^.*) //' "/proc/$pid/stat" | awk '{print $12 + $13}'
}

# window MODE: one window; appends a line of figures to $tmp/MODE, columns:
#  1 rounds/s  2 JVM CPU s per 1000 rounds  3 perf record CPU s per s
#  4 perf.data bytes per s  5 samples  6 perf inject --jit CPU ms (mostly
#  writing a jitted-*.so per code load: per dump, not per sample); per 1000
#  samples, in ms: 7 perf script CPU  8 its wall  9 perf script --no-inline
#  CPU  10 its wall
window() {
	local m=$1 cg a b c0 c1 f=$tmp/w.data rec=0 bytes=0 n=0 inj=0 scr=0 scrw=0 noi=0 noiw=0
	case $m in
	none) cg= ;;
	fp) cg="-g" ;;
	dwarf16k) cg="--call-graph dwarf,16384" ;;
	dwarf8k) cg="--call-graph dwarf,8192" ;;
	dwarf64k) cg="--call-graph dwarf,65528" ;;
	*) echo "perf_cost: unknown mode $m"; return ;;
	esac
	a=$(progress) c0=$(jvm_ticks)
	if [ "$m" = none ]; then
		sleep "$secs"
		echo "$secs 0 0" >"$tmp/rec.t"
	else
		# shellcheck disable=SC2086 # $cg: the call-graph words
		/usr/bin/time -f '%e %U %S' -o "$tmp/rec.t" "${P[@]}" record -q -k mono -F "$freq" \
			$cg -p "$pid" -o "$f" -- sleep "$secs" >"$tmp/rec.log" 2>&1 ||
			echo "  $m: perf record failed: $(tail -n 2 "$tmp/rec.log")"
	fi
	b=$(progress) c1=$(jvm_ticks)
	if [ "$m" != none ] && [ -s "$f" ]; then
		bytes=$(stat -c %s "$f")
		n=$("${P[@]}" report --stats -i "$f" 2>/dev/null | awk '$1 == "SAMPLE" && $2 == "events:" {print $3; exit}')
		/usr/bin/time -f '%e %U %S' -o "$tmp/inj.t" "${P[@]}" inject --jit -i "$f" -o "$f.jit" \
			>"$tmp/inj.log" 2>&1 || echo "  $m: perf inject failed: $(tail -n 2 "$tmp/inj.log")"
		/usr/bin/time -f '%e %U %S' -o "$tmp/scr.t" "${P[@]}" script -i "$f.jit" \
			>/dev/null 2>"$tmp/scr.log" || echo "  $m: perf script failed: $(tail -n 2 "$tmp/scr.log")"
		/usr/bin/time -f '%e %U %S' -o "$tmp/noi.t" "${P[@]}" script --no-inline -i "$f.jit" \
			>/dev/null 2>"$tmp/scr.log" || echo "  $m: perf script --no-inline failed: $(tail -n 2 "$tmp/scr.log")"
		inj=$(awk '{print $2 + $3}' "$tmp/inj.t")
		read -r scrw scr < <(awk '{print $1, $2 + $3}' "$tmp/scr.t")
		read -r noiw noi < <(awk '{print $1, $2 + $3}' "$tmp/noi.t")
	fi
	read -r rec < <(awk '{print ($2 + $3) / ($1 > 0 ? $1 : 1)}' "$tmp/rec.t")
	read -r wall < <(awk '{print $1}' "$tmp/rec.t")
	echo "$a $b $c0 $c1" | awk -v hz="$hz" -v rec="$rec" -v bytes="$bytes" -v wall="$wall" \
		-v n="${n:-0}" -v inj="$inj" -v scr="$scr" -v scrw="$scrw" -v noi="$noi" -v noiw="$noiw" '
		NF == 6 && $3 > $1 && $4 > $2 {
			r = $4 - $2
			k = n > 0 ? 1000000 / n : 0
			printf "%.1f %.4f %.4f %.0f %d %.1f %.1f %.1f %.1f %.1f\n", r / (($3 - $1) / 1e9),
				($6 - $5) / hz / r * 1000, rec, bytes / wall, n, inj * 1000, scr * k, scrw * k,
				noi * k, noiw * k
		}' >>"$tmp/$m"
	rm -f "$f" "$f.jit"
}

for _ in $(seq 1 "$reps"); do
	for m in $modes; do
		window "$m"
	done
done

# column_median MODE COLUMN
column_median() {
	awk -v c="$2" '{print $c}' "$tmp/$1" 2>/dev/null | median -
}

echo "JVM with default flags (DeepWork, ~70 frames, agent with jitdump), perf -F $freq," \
	"$reps windows of ${secs}s per mode, medians:"
base_r=$(column_median none 1) base_c=$(column_median none 2)
fp_b=$(column_median fp 4) fp_w=$(column_median fp 8) fp_n=$(column_median fp 10)
for m in $modes; do
	[ -s "$tmp/$m" ] || { echo "  $m: no figures"; continue; }
	for c in 1 2 3 4 5 6 7 8 9 10; do
		printf '%s ' "$(column_median "$m" $c)"
	done | awk -v m="$m" -v br="$base_r" -v bc="$base_c" -v fb="$fp_b" -v fw="$fp_w" -v fn="$fp_n" '
		function ratio(a, b) { return b > 0 ? sprintf("%.3f", a / b) : "n/a" }
		function times(a, b) { return b > 0 ? sprintf("%.1fx", a / b) : "n/a" }
		{
			printf "  %-8s %6.0f rounds/s (/none %s), JVM cpu %.3f s per 1000 rounds (/none %s)\n",
				m, $1, ratio($1, br), $2, ratio($2, bc)
			if (m == "none")
				next
			printf "    perf record %.1f%% of a core; perf.data %.0f KB/s (/fp %s);" \
				" %d samples; perf inject --jit %.0f ms cpu\n",
				$3 * 100, $4 / 1024, times($4, fb), $5, $6
			printf "    per 1,000 samples: perf script %.0f ms wall (/fp %s), %.0f ms cpu;" \
				" perf script --no-inline %.0f ms wall (/fp %s), %.0f ms cpu\n",
				$8, times($8, fw), $7, $10, times($10, fn), $9
		}'
done
