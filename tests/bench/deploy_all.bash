# SPDX-License-Identifier: Apache-2.0
# tests/bench/deploy_all.bash - the `jsym attach --all` rounds of
# tests/bench/deploy.sh, run as PID 1 of a private PID and mount namespace
# (unshare --pid --fork --mount --mount-proc), so that --all sees only the
# JVMs started here, never other JVMs on the machine, and everything they
# and the agent write to /tmp goes to a private tmpfs that vanishes with the
# namespace.  Named .bash: the runner runs only *.sh.
#
#   bash deploy_all.bash JDK CLASSES CLOCK N ROUNDS JOBS...   (stdin: a tar
#   of jsym's install tree: bin/jsym, lib/jsym/{glibc,musl}/)
#
# Each round starts N+1 idle JVMs (AttachTarget) at once, times one cold
# `jsym attach` of the extra JVM, stops it, then times `jsym attach --all
# -j J` of the N until every one's map is non-empty.  Rounds take the values
# of JOBS in turn, rotated each round.  Prints "single US" and "all J US"
# lines, and "fail ..." lines for what did not work.
set -u
jdk=$1 classes=$2 clock=$3 n=$4 rounds=$5
shift 5
jobs=("$@")

mount -t tmpfs -o mode=1777,size=512m jsym-bench-all /tmp || exit 1
mkdir /tmp/w && tar -x -C /tmp/w || exit 1
jsym=/tmp/w/bin/jsym
cd /tmp/w || exit 1

pids=()
start_jvms() { # COUNT: start COUNT idle JVMs, wait until each runs main
	local i
	pids=()
	for i in $(seq "$1"); do
		env --default-signal=INT,QUIT "$jdk/bin/java" -Xmx64m -XX:TieredStopAtLevel=1 \
			-Xss512k -XX:+UseSerialGC -cp "$classes" AttachTarget 600 "all$i" \
			</dev/null >"/tmp/w/jvm$i.out" 2>&1 &
		pids+=($!)
	done
	for i in $(seq "$1"); do
		for _ in $(seq 300); do
			grep -q '^attach-target: started' "/tmp/w/jvm$i.out" 2>/dev/null && break
			sleep 0.1
		done
	done
	sleep 1 # let their start-up JIT settle, as in the host pairs
}

stop_jvms() { # PID...
	kill -TERM "$@" 2>/dev/null
	wait "$@" 2>/dev/null
	return 0
}

maps() { # PID...: --map options for each JVM's perf map
	local p
	for p in "$@"; do
		printf -- '--map\n/tmp/perf-%s.map\n' "$p"
	done
}

for r in $(seq "$rounds"); do
	for k in "${!jobs[@]}"; do
		j=${jobs[$(((k + r - 1) % ${#jobs[@]}))]}
		start_jvms $((n + 1))
		single=${pids[$n]}
		mapfile -t opts < <(maps "$single")
		read -r us rc < <(python3 "$clock" "${opts[@]}" --log /tmp/w/single.log -- "$jsym" attach "$single")
		if [ "$rc" = 0 ]; then echo "single $us"; else echo "fail single attach: exit $rc: $(tail -c 300 /tmp/w/single.log)"; fi
		stop_jvms "$single"
		unset "pids[$n]"
		mapfile -t opts < <(maps "${pids[@]}")
		read -r us rc < <(python3 "$clock" "${opts[@]}" --limit 60 --log /tmp/w/all.log -- "$jsym" attach --all -j "$j")
		if [ "$rc" = 0 ]; then echo "all $j $us"; else echo "fail --all -j $j: exit $rc: $(tail -c 300 /tmp/w/all.log)"; fi
		stop_jvms "${pids[@]}"
		rm -rf /tmp/w/*.log /tmp/perf-* /tmp/jsym-* /tmp/.java_pid* /tmp/hsperfdata_*
	done
done
