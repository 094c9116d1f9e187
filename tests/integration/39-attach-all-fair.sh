#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 39-attach-all-fair.sh - `jsym attach --all` shares its workers among
# containers (issue 24 row 7).
#
# A "container" (private pid and mount namespaces) runs 12 fake JVMs:
# python3 with a copy of libm preloaded as .../lib/server/libjvm.so and a
# SIGQUIT handler, so jsym takes them for HotSpot, deploys, signals them and
# waits for a socket that never comes (--timeout 1500).  A real host JVM
# starts after them, so /proc lists it last.  Taken in /proc order, the two
# workers of -j 2 went through the fakes first (about 12 x 2 s / 2 before
# the real JVM's turn); with a share per container it is attached in the
# first wave: its map appears within the first few seconds, long before
# the run ends, and the summary says the fakes failed.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/integration/lib-attach.bash"
t_need_root "pid namespaces, SIGQUIT to other users' processes"
JSYM=${JSYM:-$JSYM_BUILD/jsym}
la_init
la_need_jvm
command -v python3 >/dev/null || t_skip "no python3 for the fake JVMs"
home=$(t_jdks | awk '{print $1; exit}')
NFAKE=12

t_case start
jdk=$LA_TMP/fakejdk
mkdir -p "$jdk/lib/server"
cp "$(ldconfig -p | awk '/libm\.so\.6 .*x86-64/ {print $NF; exit}')" "$jdk/lib/server/libjvm.so"
fake='import signal, time
signal.signal(signal.SIGQUIT, lambda *a: None)
time.sleep(600)'
# shellcheck disable=SC2016 # $1 and $(seq) expand in the inner bash
unshare --pid --fork --kill-child --mount --mount-proc bash -c '
	for i in $(seq '"$NFAKE"'); do
		LD_PRELOAD='"$jdk"'/lib/server/libjvm.so python3 -c "$1" &
	done
	wait' fakes "$fake" </dev/null >/dev/null 2>&1 &
ns=$!
# la_cleanup ends it (and with it, --kill-child, the namespace's init and
# every fake) and waits for it
LA_PIDS+=("$ns")
# the fakes: the children of unshare's child that map the fake libjvm.so
fakes() {
	local p
	for p in $(pgrep -f 'signal.SIGQUIT'); do
		grep -q "$jdk/lib/server/libjvm.so" "/proc/$p/maps" 2>/dev/null && echo "$p"
	done
}
for _ in $(seq 100); do [ "$(fakes | wc -l)" -ge "$NFAKE" ] && break; sleep 0.1; done
t_eq "$(fakes | wc -l)" "$NFAKE" "$NFAKE fake JVMs run in a pid namespace of their own"
la_jvm_start real "$home" || t_abort "the real JVM did not start"
real=$LA_PID
kit_on_exit "t_jvm_forget $real"
t_check "the real JVM comes after the fakes in /proc order" \
	test "$real" -gt "$(fakes | sort -n | tail -1)"

t_case real-jvm-first
LA_LIMIT=120
rm -f "/tmp/perf-$real.map"
la_jsym_bg attach --agent-dir "$JSYM_ROOT" --all -j 2 --timeout 1500 --json
map_ms=
while kill -0 "$LA_BG_PID" 2>/dev/null; do
	if [ -s "/tmp/perf-$real.map" ]; then
		map_ms=$(( ($(date +%s%N) - LA_BG_T0) / 1000000 ))
		break
	fi
	sleep 0.1
done
la_jsym_wait
t_log "the real JVM's map after ${map_ms:-never} ms; the run took ${LA_SECS} s"
t_expect_rc 5
t_check "the real JVM's map appeared while jsym still ran" test -n "$map_ms"
t_check "... within 5 s (in /proc order it waited for the fakes, 9 s and more)" \
	test "${map_ms:-999999}" -lt 5000
python3 - "$T_OUT" "$real" "$(fakes | tr '\n' ' ')" >"$KIT_DIR/judge" 2>&1 <<'PY'
import json, sys
d = json.loads(sys.argv[1])
real = int(sys.argv[2]); fakes = [int(p) for p in sys.argv[3].split()]
by = {j["pid"]: j for j in d["jvms"]}
bad = []
if not by.get(real, {}).get("ok"):
    bad.append("the real JVM %d was not attached: %s" % (real, by.get(real)))
for p in fakes:
    if p not in by:
        bad.append("fake %d is not in the report" % p)
    elif by[p]["ok"]:
        bad.append("fake %d reported attached" % p)
print("\n".join(bad) or "real attached, %d fakes failed" % len(fakes))
sys.exit(1 if bad else 0)
PY
t_check "the JSON: the real JVM attached, every fake reported failed ($(tail -1 "$KIT_DIR/judge"))" \
	test "$(tail -1 "$KIT_DIR/judge")" = "real attached, $NFAKE fakes failed"
la_jvm_stop "$real"
kill -KILL "$ns" 2>/dev/null
t_finish
