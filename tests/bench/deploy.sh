#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/bench/deploy.sh - `jsym attach` against Debian's jattach.
#
# Every number is a ratio against a baseline measured in the same run (the
# machine is shared and noisy); medians, never wall-clock limits.
#
#   cold   `jsym attach PID` on a fresh JVM (copy into its container when it
#          is one, libc probe, load) vs `jattach PID load /abs/agent.so true`
#          of an agent copied beforehand (outside the timed part) on a twin
#          fresh JVM; both timed from the spawn until the command exited and
#          the JVM's /tmp/perf-<nspid>.map is non-empty (deploy_clock.py).
#          The pairs alternate who goes first; while one JVM is measured its
#          twin is stopped (SIGSTOP), so neither side pays for the other's
#          JVM.  For a host JVM (JDK 17) and a Debian container JVM (its own
#          JDK 17, uid 1000).  The product goal is jsym <= 0.8x jattach.
#   warm   the second attach to the same JVMs: jsym refreshes, jattach loads
#          the same library again (no map wait: the map is already there).
#   --all  `jsym attach --all -j J` over 16 fresh idle host JVMs vs one cold
#          `jsym attach` among the same kind of JVMs, in a private PID and
#          mount namespace (deploy_all.bash).  Goal: <= 2x.
#   strace one cold host `jsym attach` under `strace -f -tt -T`: the five
#          longest spans of its critical path (deploy_strace.py).
#
#   DEPLOY_BENCH_PAIRS=N        cold/warm pairs per kind of JVM (default 9)
#   DEPLOY_BENCH_ALL_ROUNDS=N   rounds per -j value for --all (default 2)
#   DEPLOY_BENCH_ALL_JOBS="..." -j values for --all (default "4 1 8")
#   DEPLOY_BENCH_ALL_JVMS=N     JVMs for --all (default 16)
#   DEPLOY_BENCH_OTHER=DIR      also compare, cold and warm on the host,
#                               with the jsym of the build tree DIR (e.g. a
#                               worktree of the previous commit): before/after
source "$JSYM_ROOT/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/lib/median.sh"
# A benchmark that cannot run says why and lets the others go on.
t_skip() {
	T_FINISHED=1
	echo "deploy bench skipped: $*"
	exit 0
}
[ "$(id -u)" = 0 ] || t_skip "needs root (containers, chown into them)"
command -v jattach >/dev/null 2>&1 || t_skip "needs Debian's jattach (mk/deps.sh bench)"
command -v python3 >/dev/null 2>&1 || t_skip "needs python3"
JDK=/usr/lib/jvm/java-17-openjdk-amd64
[ -x "$JDK/bin/java" ] || t_skip "needs JDK 17 at $JDK"
for f in "$JSYM_BUILD/jsym" "$JSYM_BUILD/libjsym-agent.so" "$JSYM_BUILD/jsym-probe" \
	"$JSYM_MUSL_BUILD/libjsym-agent.so" "$JSYM_MUSL_BUILD/jsym-probe"; do
	[ -f "$f" ] || t_skip "$f not built (make)"
done

pairs=${DEPLOY_BENCH_PAIRS:-9}
all_rounds=${DEPLOY_BENCH_ALL_ROUNDS:-2}
read -r -a all_jobs <<<"${DEPLOY_BENCH_ALL_JOBS:-4 1 8}"
all_jvms=${DEPLOY_BENCH_ALL_JVMS:-16}
bench=$JSYM_ROOT/tests/bench
clock=$bench/deploy_clock.py

W=$(mktemp -d /tmp/jsym-bench-deploy.XXXXXX) || exit 1
chmod 0755 "$W"
DB_PIDS=()
db_cleanup() {
	local p
	for p in "${DB_PIDS[@]}"; do db_host_stop "$p"; done
	[ -n "${DB_ALL_PID:-}" ] && kill -KILL "$DB_ALL_PID" 2>/dev/null
	rm -rf "$W"
}
kit_on_exit db_cleanup

# A private install tree (bin/jsym finds lib/jsym/{glibc,musl}/): other
# engineers relink glibc-build/ at any time.
db_install() { # BUILD MUSL-BUILD DEST
	mkdir -p "$3/bin" "$3/lib/jsym/glibc" "$3/lib/jsym/musl" &&
		cp "$1/jsym" "$3/bin/" &&
		cp "$1/libjsym-agent.so" "$1/jsym-probe" "$3/lib/jsym/glibc/" &&
		cp "$2/libjsym-agent.so" "$2/jsym-probe" "$3/lib/jsym/musl/"
}
db_install "$JSYM_BUILD" "$JSYM_MUSL_BUILD" "$W/new" || t_skip "cannot copy the builds"
AGENT=$W/new/lib/jsym/glibc/libjsym-agent.so
if [ -n "${DEPLOY_BENCH_OTHER:-}" ]; then
	db_install "$DEPLOY_BENCH_OTHER/glibc-build" "$DEPLOY_BENCH_OTHER/musl-build" "$W/other" ||
		t_skip "DEPLOY_BENCH_OTHER=$DEPLOY_BENCH_OTHER: no build tree there"
fi
mkdir "$W/cwd"
classes=$(kit_java_build) || t_skip "cannot compile tests/java"
ctroot=$(kit_rootfs debian) || t_skip "no debian root filesystem"

# ---- JVMs -------------------------------------------------------------------

# db_host_start NAME: a Workload JVM on the host (cwd $W/cwd, so jsym's and
# jattach's trigger files land there); sets DB_PID once main runs.
db_host_start() {
	(cd "$W/cwd" && exec env --default-signal=INT,QUIT "$JDK/bin/java" -Xmx64m \
		-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$classes" Workload 0) \
		</dev/null >"$W/$1.log" 2>&1 &
	DB_PID=$!
	DB_PIDS+=("$DB_PID")
}

# db_host_stop PID: end it and remove what it and the agent left in /tmp.
db_host_stop() {
	kill -CONT "$1" 2>/dev/null
	kill -TERM "$1" 2>/dev/null
	local i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	local left=() p
	for p in "${DB_PIDS[@]}"; do [ "$p" = "$1" ] || left+=("$p"); done
	DB_PIDS=("${left[@]}")
	rm -rf "/tmp/perf-$1.map" "/tmp/jsym-$1.journal" "/tmp/jsym-$1.log" \
		"/tmp/.java_pid$1" "/tmp/.attach_pid$1" "/tmp/hsperfdata_root/$1"
}

# db_ct_start NAME: a Workload JVM as PID 1 of a Debian container, uid 1000;
# sets DB_PID (host pid).
db_ct_start() {
	DB_PID=$(kit_start "$1" "$ctroot" --uid 1000 --gid 1000 \
		--bind "$classes:/opt/app:ro" -- "$KIT_CT_JAVA" -Xmx64m \
		-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp /opt/app Workload 0)
}

# db_started PID LOG: wait (60 s) until the workload runs main.
db_started() {
	local i=0
	until grep -q '^workload: started' "$2" 2>/dev/null; do
		kill -0 "$1" 2>/dev/null && [ $i -lt 600 ] || return 1
		sleep 0.1
		i=$((i + 1))
	done
}

# ---- timing -----------------------------------------------------------------

ms() { awk -v u="$1" 'BEGIN { printf "%.1f ms", u / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "n/a" }'; }

# db_time VAR [--map FILE] -- CMD...: time CMD (deploy_clock.py); append µs
# to the array VAR and set DB_US, or say why it did not count (DB_US empty).
db_time() {
	local -n acc=$1
	shift
	local us rc
	DB_US=
	read -r us rc < <(python3 "$clock" --log "$W/cmd.log" "$@")
	if [ "${rc:-x}" = 0 ]; then
		acc+=("$us")
		DB_US=$us
	else
		echo "  not counted (exit ${rc:-?}): ${*: -4} $(tail -c 300 "$W/cmd.log" | tr '\n' ' ')"
	fi
	rm -f "$W/cmd.log"
}

# The commands timed.  KIND is host or ct; WHO is new (this tree), other
# (DEPLOY_BENCH_OTHER) or jattach.  jattach's agent is in place beforehand
# (db_prepare); jsym copies it itself.
db_map() { # KIND PID
	if [ "$1" = host ]; then echo "/tmp/perf-$2.map"; else echo "/proc/$2/root/tmp/perf-1.map"; fi
}
db_prepare() { # KIND WHO PID: outside the timed part
	[ "$2" = jattach ] && [ "$1" = ct ] &&
		install -m 0755 -o 1000 -g 1000 "$AGENT" "/proc/$3/root/tmp/jsym-bench-agent.so"
	return 0
}
db_cmd() { # KIND WHO PID
	case $2 in
	jattach)
		if [ "$1" = host ]; then echo jattach "$3" load "$AGENT" true
		else echo jattach "$3" load /tmp/jsym-bench-agent.so true; fi ;;
	*) echo "$W/$2/bin/jsym" attach "$3" ;;
	esac
}

# db_start_twins KIND I A B: two fresh JVMs for pair I, their pids in the
# caller's array pid[A] and pid[B]; 1 (after cleaning up) if one failed.
db_start_twins() {
	local kind=$1 i=$2 a=$3 b=$4
	if [ "$kind" = host ]; then
		db_host_start "a$i"
		pid[$a]=$DB_PID
		db_host_start "b$i"
		pid[$b]=$DB_PID
		if db_started "${pid[$a]}" "$W/a$i.log" && db_started "${pid[$b]}" "$W/b$i.log"; then
			return 0
		fi
	else
		db_ct_start "dba$i" || { echo "  pair $i: container did not start"; return 1; }
		pid[$a]=$DB_PID
		if ! db_ct_start "dbb$i"; then
			echo "  pair $i: container did not start"
			kit_stop "dba$i"
			return 1
		fi
		pid[$b]=$DB_PID
		if db_started "${pid[$a]}" "$KIT_DIR/dba$i.log" &&
			db_started "${pid[$b]}" "$KIT_DIR/dbb$i.log"; then
			return 0
		fi
	fi
	echo "  pair $i: a JVM did not start"
	db_stop_twins "$kind" "$i" "${pid[$a]}" "${pid[$b]}"
	return 1
}

db_stop_twins() { # KIND I PID PID
	if [ "$1" = host ]; then
		db_host_stop "$3"
		db_host_stop "$4"
	else
		kit_stop "dba$2"
		kit_stop "dbb$2"
	fi
}

# db_pairs KIND A B [NOTE]: PAIRS pairs of twin fresh JVMs, A on one and B
# on the other, cold then warm, alternating who goes first; prints the
# medians and the ratios A/B (NOTE after the cold one).
db_pairs() {
	local kind=$1 a=$2 b=$3 i who first second phase
	local -a cold_a=() cold_b=() warm_a=() warm_b=() cold_r=() warm_r=() cmd map
	local -A pid us side=(["$a"]=a ["$b"]=b)
	for i in $(seq "$pairs"); do
		db_start_twins "$kind" "$i" "$a" "$b" || continue
		sleep 1 # the start-up JIT burst is over for both
		if [ $((i % 2)) = 1 ]; then first=$a second=$b; else first=$b second=$a; fi
		db_prepare "$kind" "$a" "${pid[$a]}"
		db_prepare "$kind" "$b" "${pid[$b]}"
		kill -STOP "${pid[$a]}" "${pid[$b]}"
		for phase in cold warm; do
			for who in "$first" "$second"; do
				read -r -a cmd <<<"$(db_cmd "$kind" "$who" "${pid[$who]}")"
				map=()
				[ $phase = cold ] && map=(--map "$(db_map "$kind" "${pid[$who]}")")
				kill -CONT "${pid[$who]}"
				db_time "${phase}_${side[$who]}" "${map[@]}" -- "${cmd[@]}"
				us[$who]=$DB_US
				kill -STOP "${pid[$who]}"
			done
			# the pair's own ratio, in thousandths: both ran within
			# a second of each other, under the same background load
			[ -n "${us[$a]}" ] && [ -n "${us[$b]}" ] &&
				eval "${phase}_r+=($((us[$a] * 1000 / us[$b])))"
		done
		db_stop_twins "$kind" "$i" "${pid[$a]}" "${pid[$b]}"
	done
	local ca cb wa wb
	ca=$(median "${cold_a[@]}") cb=$(median "${cold_b[@]}")
	wa=$(median "${warm_a[@]}") wb=$(median "${warm_b[@]}")
	echo "  cold: $(db_label "$a") $(ms "$ca") (n=${#cold_a[@]}), $(db_label "$b") $(ms "$cb") (n=${#cold_b[@]})"
	echo "  warm: $(db_label "$a") $(ms "$wa") (n=${#warm_a[@]}), $(db_label "$b") $(ms "$wb") (n=${#warm_b[@]})"
	echo "  $a/$b cold: $(ratio "$ca" "$cb")${4:+  ($4)}; median of the pairs' own ratios $(ratio "$(median "${cold_r[@]}")" 1000)"
	echo "  $a/$b warm: $(ratio "$wa" "$wb"); median of the pairs' own ratios $(ratio "$(median "${warm_r[@]}")" 1000)"
}
db_label() {
	case $1 in
	new) echo "jsym attach" ;;
	other) echo "jsym attach (DEPLOY_BENCH_OTHER)" ;;
	jattach) echo "jattach load" ;;
	esac
}

clock_us t0
echo "host JVM (JDK 17, Workload), $pairs pairs of twin JVMs, alternating order, medians:"
echo "  (new = this tree's jsym, jattach = Debian's jattach $(dpkg-query -W -f '${Version}' jattach 2>/dev/null))"
db_pairs host new jattach "goal <= 0.80x"

echo "Debian container JVM (its JDK 17, uid 1000), $pairs pairs, alternating order, medians:"
db_pairs ct new jattach "goal <= 0.80x"

if [ -n "${DEPLOY_BENCH_OTHER:-}" ]; then
	echo "host JVM: this tree (new) vs $DEPLOY_BENCH_OTHER (other), $pairs pairs:"
	db_pairs host new other
fi

# ---- --all --------------------------------------------------------------------

echo "jsym attach --all over $all_jvms fresh idle host JVMs (private PID namespace), $all_rounds rounds per -j, medians:"
tar -C "$W/new" -c bin lib |
	unshare --pid --fork --kill-child --mount --mount-proc --propagation private \
		bash "$bench/deploy_all.bash" "$JDK" "$classes" "$clock" "$all_jvms" "$all_rounds" \
		"${all_jobs[@]}" >"$W/all.out" 2>"$W/all.err" &
DB_ALL_PID=$!
wait "$DB_ALL_PID"
DB_ALL_PID=
grep '^fail' "$W/all.out" | sed 's/^/  /'
[ -s "$W/all.err" ] && sed 's/^/  stderr: /' "$W/all.err" | head -5
mapfile -t single < <(awk '$1 == "single" {print $2}' "$W/all.out")
one=$(median "${single[@]}")
echo "  one cold jsym attach among them: $(ms "$one") (n=${#single[@]})"
for j in "${all_jobs[@]}"; do
	mapfile -t t < <(awk -v j="$j" '$1 == "all" && $2 == j {print $3}' "$W/all.out")
	m=$(median "${t[@]}")
	echo "  --all -j $j: $(ms "$m") (n=${#t[@]}), --all/one cold: $(ratio "$m" "$one")$([ "$j" = 4 ] && echo "  (default -j; goal <= 2.00x)")"
done

# ---- strace ---------------------------------------------------------------------

echo "one cold host jsym attach under strace -f -tt -T (times inflated by strace):"
db_host_start strace
if db_started "$DB_PID" "$W/strace.log"; then
	sleep 1
	strace -f -tt -T -o "$W/strace.txt" "$W/new/bin/jsym" attach "$DB_PID" >/dev/null 2>"$W/strace.err" ||
		echo "  jsym failed: $(tail -c 300 "$W/strace.err")"
	python3 "$bench/deploy_strace.py" "$W/strace.txt" 5
else
	echo "  the JVM did not start"
fi
db_host_stop "$DB_PID"

clock_us t1
echo "deploy bench: $(((t1 - t0) / 1000000)) s"
T_FINISHED=1
