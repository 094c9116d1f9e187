#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/bench/node_scale.sh - `jsym attach --all` at node scale: N emulated
# HotSpot JVMs (tests/emu/hs_emu, cheap enough for hundreds), -j 1, 4, 16.
#
# Per -j, on N fresh emulators: the wall time of `jsym attach --all` (its
# end is the slowest JVM's delay: every worker has then had its JVM's
# reply), jsym's own CPU per JVM (user+sys of jsym and all its children,
# from wait4's rusage of the whole tree, GNU time), and two floors no
# scheduling can beat on this many cores: the emulators' CPU for `load`
# divided by the cores, and that plus jsym's own CPU.  Run as PID 1 of a private
# PID and mount namespace (unshare), so --all sees only these emulators
# and their /tmp is a tmpfs that vanishes with it.  Reports, never judges.
#
#   NODE_SCALE_JVMS=N (200)   NODE_SCALE_JOBS="1 4 16"
set -u
: "${JSYM_ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${JSYM_BUILD:=$JSYM_ROOT/glibc-build}"
n=${NODE_SCALE_JVMS:-200}
read -r -a jobs <<<"${NODE_SCALE_JOBS:-1 4 16}"
J=$JSYM_BUILD/jsym
EMU=$JSYM_BUILD/tests/emu/hs_emu

if [ "$(id -u)" -ne 0 ]; then
	echo "skip: needs root (a private PID namespace)"
	exit 0
fi
for f in "$J" "$EMU" /usr/bin/time; do
	[ -x "$f" ] || { echo "skip: missing $f (make; apt-get install time)"; exit 0; }
done

if [ -z "${NODE_SCALE_INNER:-}" ]; then
	NODE_SCALE_INNER=1 exec unshare --pid --fork --kill-child --mount --mount-proc --propagation private \
		bash "$0" "$@"
fi

mount -t tmpfs -o mode=1777,size=1g jsym-node-scale /tmp || exit 1
cores=$(nproc)
pids=()

# start_emus: N idle emulators (no code events after the attach), each as
# uid 1000 in its own directory; wait until every one logged its start.
start_emus() {
	local i
	pids=()
	for ((i = 0; i < n; i++)); do
		mkdir -p "/tmp/e$i" && chown 1000:1000 "/tmp/e$i"
		setpriv --reuid 1000 --regid 1000 --clear-groups "$EMU" --log "/tmp/e$i/log" \
			--events 0 --initial 50 --stubs 5 --seed "$i" </dev/null >/dev/null 2>&1 &
		pids+=($!)
	done
	for ((i = 0; i < n; i++)); do
		for _ in $(seq 300); do
			grep -q 'started:' "/tmp/e$i/log" 2>/dev/null && break
			sleep 0.05
		done
	done
}
stop_emus() {
	kill -KILL "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	rm -rf /tmp/e* /tmp/perf-* /tmp/jsym-* /tmp/.java_pid* /tmp/.attach_pid*
}
# cpu_ticks PID...: their user+sys clock ticks so far
cpu_ticks() {
	local p sum=0 f
	for p in "$@"; do
		read -r -a f <"/proc/$p/stat" || continue
		# fields after "(comm)": 14 utime, 15 stime (comm has no blank here)
		sum=$((sum + f[13] + f[14]))
	done
	echo "$sum"
}

hz=$(getconf CLK_TCK)
echo "jsym attach --all over $n emulated JVMs (hs_emu, uid 1000), $cores cores:"
for j in "${jobs[@]}"; do
	start_emus
	before=$(cpu_ticks "${pids[@]}")
	/usr/bin/time -f '%e %U %S' -o /tmp/time "$J" attach --all -j "$j" --timeout 30000 \
		>/tmp/out 2>/tmp/err
	rc=$?
	after=$(cpu_ticks "${pids[@]}")
	read -r wall usr sys </tmp/time
	maps=$(ls /tmp/perf-*.map 2>/dev/null | wc -l)
	awk -v j="$j" -v w="$wall" -v u="$usr" -v s="$sys" -v n="$n" -v rc="$rc" -v m="$maps" \
		-v jt=$((after - before)) -v hz="$hz" -v c="$cores" 'BEGIN {
		floor = jt / hz / c
		all = (jt / hz + u + s) / c
		printf "  -j %-3s exit %s, %d maps: wall %.2f s (the slowest JVM'"'"'s delay), jsym CPU %.1f ms per JVM; JVMs %.2f s CPU for load -> floor %.2f s (wall %.1fx it); with jsym'"'"'s CPU %.2f s (wall %.1fx it)\n",
			j, rc, m, w, (u + s) * 1000 / n, jt / hz, floor, (floor > 0 ? w / floor : 0),
			all, (all > 0 ? w / all : 0) }'
	grep -c 'failed' /tmp/out | awk '$1 > 0 {print "    " $1 " failed"}'
	stop_emus
done
