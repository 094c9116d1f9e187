#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 56-deploy-rootless.sh - `jsym attach` into a rootless container: a user
# namespace maps container ids 0-65535 to host ids 100000-165535 and owns
# the container's other namespaces (its /tmp is a tmpfs mounted by that
# namespace's root).  The Debian JVM runs as uid 1000 inside, host uid
# 101000.  From the host: exit 0, both builds copied and the map written
# with the JVM's ids (1000 as the container sees them, 101000 on the host),
# the map names Java methods and perf names Java frames from it; a second
# attach refreshes the agent; detach removes the unmapped copies.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, id maps"
J=$JSYM_BUILD/jsym
[ -x "$J" ] && [ -x "$JSYM_MUSL_BUILD/jsym" ] || t_skip "jsym not built (make)"
[ "$(cat /proc/sys/user/max_user_namespaces 2>/dev/null || echo 0)" -gt 0 ] ||
	t_skip "user namespaces are disabled (user.max_user_namespaces = 0)"

HOST0=100000
classes=$(kit_java_build)

ct=$(kit_start rl debian --userns "0:$HOST0:65536" --uid 1000 --gid 1000 \
	--bind "$classes:/opt/jsym-java:ro" \
	-- "$KIT_CT_JAVA" -Xmx128m -cp /opt/jsym-java Workload 0) ||
	t_abort "kit_start rl"
kit_wait_jvm "$ct" 60 || t_abort "the rootless JVM did not start: $(cat "$KIT_DIR/rl.log")"
root=/proc/$ct/root

# ids PATH: "host-uid:gid container-uid:gid" of PATH in the container.
ids() {
	echo "$(stat -c %u:%g "$root$1" 2>&1) $(kit_exec "$ct" -- stat -c %u:%g "$1" 2>&1)"
}
want="$((HOST0 + 1000)):$((HOST0 + 1000)) 1000:1000"

t_case the-container
t_eq "$(awk '/^Uid:/ {print $2}' "/proc/$ct/status")" $((HOST0 + 1000)) "the JVM is host uid 101000"
t_eq "$(awk '{print $1, $2, $3}' "/proc/$ct/uid_map")" "0 $HOST0 65536" "its uid map"
t_check "it has a user namespace of its own" \
	test "$(readlink "/proc/$ct/ns/user")" != "$(readlink /proc/self/ns/user)"
t_eq "$(kit_exec "$ct" --uid 1000 --gid 1000 -- id -u)" 1000 "inside, the JVM's uid is 1000"
t_eq "$(awk '/^NSpid:/ {print $NF}' "/proc/$ct/status")" 1 "the JVM is PID 1"

t_case attach
t_run "$J" attach -v "$ct"
t_expect_rc 0
t_expect_out 'agent loaded \(HotSpot 17[^,]*, glibc build, copied to /tmp/jsym-[0-9a-f]{12}-[0-9]+-[0-9]+/glibc/libjsym-agent\.so\)'
t_expect_err 'user namespace differs' 'probe glibc build under /[^ ]*ld-linux[^ ]*: loads'
dir=$(cd "$root/tmp" && ls -d jsym-*-* 2>/dev/null | head -n 1)
t_check "a per-target directory in the container's /tmp (${dir:-none})" test -n "$dir"
t_eq "$(ids "/tmp/$dir")" "$want" "the directory is the JVM's (host view, container view)"
for l in glibc musl; do
	for f in libjsym-agent.so jsym-probe; do
		t_eq "$(ids "/tmp/$dir/$l/$f")" "$want" "$l/$f is the JVM's"
		t_check "$l/$f equals the build" cmp -s "$root/tmp/$dir/$l/$f" "$JSYM_ROOT/$l-build/$f"
	done
done
t_check "the JVM maps the copied glibc build" \
	grep -q " /tmp/$dir/glibc/libjsym-agent\.so$" "/proc/$ct/maps"
for _ in $(seq 50); do [ -s "$root/tmp/perf-1.map" ] && break; sleep 0.1; done
t_check "the map is in the container's /tmp" test -s "$root/tmp/perf-1.map"
t_eq "$(ids /tmp/perf-1.map)" "$want" "the map is the JVM's"
t_check "the map names Java methods" grep -qE ' [A-Za-z_$][^ ]*\.[A-Za-z_$<][^ ]*\(' "$root/tmp/perf-1.map"

t_case perf-names-java
if t_perf_record "$ct" 3 "$KIT_DIR/perf.data"; then
	# frames in the JIT map (perf's dso /tmp/perf-<hostpid>.map, read from
	# the container's /tmp/perf-1.map) that got a Java method's name
	named=$(t_perf_jit "$KIT_DIR/perf.data" "$ct" | grep -cE "$T_JAVA_RE" || true)
	t_check "perf names Java frames from the container's map ($named frames)" test "$named" -gt 0
else
	t_log "perf cannot sample here: $(t_perf_why "$KIT_DIR/perf.data")"
fi

t_case re-attach-and-detach
t_run "$J" attach "$ct"
t_expect_rc 0
t_expect_out 'agent refreshed .*already-loaded'
t_eq "$(awk '/libjsym-agent/ {print $6}' "/proc/$ct/maps" | sort -u | wc -l)" 1 "one agent mapped"
t_run "$J" detach "$ct"
t_expect_rc 0
t_check "the unmapped copies are gone" \
	test ! -e "$root/tmp/$dir/musl/libjsym-agent.so" -a ! -e "$root/tmp/$dir/glibc/jsym-probe"
t_check "the mapped agent stays" test -f "$root/tmp/$dir/glibc/libjsym-agent.so"
t_check "the JVM is still alive" kill -0 "$ct"

t_finish
