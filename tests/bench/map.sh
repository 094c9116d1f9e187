#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# map.sh - `jsym map` (symbols read from outside) against the JDK's own
# `jcmd Compiler.perfmap`, on twin JVMs that each ran javac in-process 30
# times (AgentJavacHost: about 5,000 compiled methods) and then idle, per
# JDK: the host's JDK 17, and JDK 11, 21 and 25 of the JDK matrix's root
# (tests/kit: each JVM in a container as PID 1, uid 1000; that root's glibc
# is newer than the host's).  JDK 11 has no Compiler.perfmap: there the
# baseline is `jcmd Compiler.codelist`, the nearest (one line a method).
#
# REPS times each, alternating, medians (the machine is shared: single runs
# are noisy, the ratios of medians taken in the same run much less), read
# with clock_us (no fork of its own in a figure):
#   jsym      jsym map of JVM A (the map written into its /tmp)
#   jcmd      jcmd Compiler.perfmap of JVM B, as a user runs it (a new JVM
#             for jcmd, attach, the map written at a safepoint)
#   jcmd-nop  jcmd VM.version of JVM B: the same minus the map; jcmd -
#             jcmd-nop estimates the JVM's own part (its walk and write)
# Prints per JDK: both times, the ratios, entries, reads and MiB read.
# JSYM_BENCH_JDKS="17 25" limits the JDKs; JSYM_MAP_BEFORE=/path/to/jsym
# times another build of jsym map too, in the same rounds (before/after a
# change).  No times are asserted.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
trap 'kit_cleanup' EXIT
jsym=$JSYM_BUILD/jsym
reps=${REPS:-5}
jdks=${JSYM_BENCH_JDKS:-17 11 21 25}
[ -x "$jsym" ] || { echo "map: skipped, jsym not built (make)"; exit 0; }
[ "$(id -u)" = 0 ] || { echo "map: skipped, needs root (reads another process's memory)"; exit 0; }

source "$JSYM_ROOT/tests/lib/median.sh"
# since T0 FILE: append the µs since T0 (clock_us) to FILE
since() {
	local now
	clock_us now
	echo $((now - $1)) >>"$2"
}
json() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" "$2"; }

# bench LABEL A B JCMD...: REPS rounds of jsym map A, JCMD B Compiler.perfmap
# (or codelist) and JCMD B VM.version; one line of medians.
bench() {
	local label=$1 a=$2 b=$3 dcmd=Compiler.perfmap o=$KIT_DIR/bench-$1 t0
	shift 3
	[ "$label" = 11 ] && dcmd=Compiler.codelist
	: >"$o.jsym" && : >"$o.jcmd" && : >"$o.nop" && : >"$o.before"
	for _ in $(seq 1 "$reps"); do
		if [ -n "${JSYM_MAP_BEFORE:-}" ]; then
			clock_us t0
			"$JSYM_MAP_BEFORE" map --json "$a" >"$o.bjson" || { echo "map: JDK $label: the other jsym map failed"; return 1; }
			since "$t0" "$o.before"
		fi
		clock_us t0
		"$jsym" map --json "$a" >"$o.json" || { echo "map: JDK $label: jsym map failed: $(cat "$o.json")"; return 1; }
		since "$t0" "$o.jsym"
		clock_us t0
		"$@" "$b" "$dcmd" >/dev/null || { echo "map: JDK $label: jcmd $dcmd failed"; return 1; }
		since "$t0" "$o.jcmd"
		clock_us t0
		"$@" "$b" VM.version >/dev/null || { echo "map: JDK $label: jcmd VM.version failed"; return 1; }
		since "$t0" "$o.nop"
	done
	awk -v l="$label" -v d="$dcmd" -v js="$(median - <"$o.jsym")" -v jc="$(median - <"$o.jcmd")" \
		-v nop="$(median - <"$o.nop")" -v e="$(json entries "$o.json")" -v r="$(json reads "$o.json")" \
		-v by="$(json bytes "$o.json")" 'BEGIN {
		side = jc - nop
		vs = side > 0 ? sprintf("%.2f", js / side) : "n/a"
		note = d == "Compiler.codelist" ? "  (no perfmap: codelist)" : ""
		printf "  JDK %-3s jsym %5.1f ms  jcmd %5.1f ms  ratio %.2f  | jcmd-nop %5.1f ms, JVM side ~%5.1f ms, jsym/side %s  | %5d entries %6d reads %6.1f MiB%s\n",
			l, js / 1000, jc / 1000, js / jc, nop / 1000, side / 1000, vs, e, r, by / 1048576, note
	}'
	[ -s "$o.before" ] && awk -v l="$label" -v bs="$(median - <"$o.before")" -v jc="$(median - <"$o.jcmd")" \
		-v r="$(json reads "$o.bjson")" -v by="$(json bytes "$o.bjson")" 'BEGIN {
		printf "  JDK %-3s before: jsym %5.1f ms  ratio %.2f  | %6d reads %6.1f MiB (JSYM_MAP_BEFORE)\n",
			l, bs / 1000, bs / jc, r, by / 1048576
	}'
	return 0
}

# ready FILE...: wait (up to 5 min) until each has "agent-javac: ready".
ready() {
	local f
	for f in "$@"; do
		for _ in $(seq 1 3000); do
			grep -q 'agent-javac: ready' "$f" 2>/dev/null && break
			sleep 0.1
		done
		grep -q 'agent-javac: ready' "$f" 2>/dev/null || return 1
	done
}

# quiet PID...: wait until each JVM's JIT compiler is quiet (a compiling
# twin takes a core from both jsym and jcmd: the figures moved by half),
# asking with the host's jcmd (JDK 17: it attaches to the matrix's JDKs as
# well); a JVM that does not get quiet in 2 min is measured anyway, and
# the line says so.
quiet() {
	local pid
	for pid in "$@"; do
		t_jvm_wait_quiet "$pid" /usr/lib/jvm/java-17-openjdk-amd64 120 2>"$KIT_DIR/quiet.log" >&2
		sed 's/^--- /  (/; s/$/)/' "$KIT_DIR/quiet.log"
	done
	sleep 2
}

host_jdk() {
	local jdk=/usr/lib/jvm/java-17-openjdk-amd64 n pids=()
	[ -x "$jdk/bin/javac" ] || { echo "  JDK 17  skipped: needs the host's JDK 17"; return 0; }
	"$jdk/bin/javac" --release 17 -d "$KIT_DIR/cls" "$JSYM_ROOT"/tests/java/AgentJavacHost.java || return 1
	for n in a b; do
		mkdir -p "$KIT_DIR/jout-$n"
		"$jdk/bin/java" -Xmx256m -cp "$KIT_DIR/cls" AgentJavacHost 30 900 "$KIT_DIR/jout-$n" \
			"$JSYM_ROOT"/tests/java/*.java >"$KIT_DIR/out-$n" 2>&1 &
		pids+=($!)
		kit_on_exit "kill ${pids[-1]} 2>/dev/null; wait ${pids[-1]} 2>/dev/null; t_jvm_forget ${pids[-1]}"
	done
	ready "$KIT_DIR/out-a" "$KIT_DIR/out-b" || { echo "  JDK 17  the JVMs did not get ready"; return 1; }
	quiet "${pids[@]}"
	bench 17 "${pids[0]}" "${pids[1]}" "$jdk/bin/jcmd"
	kill "${pids[@]}" 2>/dev/null
}

# The matrix's JDK MAJOR at HOME: twins in containers, jcmd inside B.
matrix_jdk() {
	local major=$1 home=$2 rootfs=$3 n ct cts=() classes
	classes=$(kit_java_build 8)
	for n in a b; do
		ct=$(kit_start "bench$major$n" "$rootfs" --uid 1000 --gid 1000 \
			--bind "$classes:/opt/jsym-java:ro" --bind "$JSYM_ROOT/tests/java:/opt/jsym-src:ro" \
			-- /bin/sh -c "mkdir -p /tmp/jout && exec $home/bin/java -Xmx256m -cp /opt/jsym-java \
				AgentJavacHost 30 900 /tmp/jout /opt/jsym-src/*.java") || return 1
		cts+=("$ct")
	done
	ready "$KIT_DIR/bench${major}a.log" "$KIT_DIR/bench${major}b.log" ||
		{ echo "  JDK $major  the JVMs did not get ready: $(tail -n 3 "$KIT_DIR/bench${major}a.log")"; return 1; }
	quiet "${cts[@]}"
	bench "$major" "${cts[0]}" 1 kit_exec "${cts[1]}" --uid 1000 --gid 1000 -- "$home/bin/jcmd"
	kit_stop "bench${major}a"
	kit_stop "bench${major}b"
}

echo "twin JVMs after 30 in-process javac runs, $reps runs each, medians (a shared machine: noisy);"
echo "jcmd = jcmd Compiler.perfmap as run (its own JVM, attach, the map); jcmd-nop = jcmd VM.version:"
status=0
rootfs=""
for major in $jdks; do
	if [ "$major" = 17 ]; then
		host_jdk || status=1
		continue
	fi
	[ -n "$rootfs" ] || rootfs=$(kit_rootfs jdks) || { echo "map: no JDK matrix root"; exit 0; }
	home=$(awk -v m="$major" '$1 == m {print $2}' "$rootfs/.jsym-jdks")
	if [ -z "$home" ]; then
		echo "  JDK $major  skipped: not in $rootfs/.jsym-jdks"
		continue
	fi
	matrix_jdk "$major" "$home" "$rootfs" || status=1
done
exit $status
