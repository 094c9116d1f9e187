#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 92-runc-all.sh - `jsym attach --all` over runc containers and host JVMs.
#
# The scenario runs in a PID namespace of its own (with its own /proc), so
# that --all sees only the JVMs it starts and never another run's: the
# runc containers podman starts from here nest their PID namespaces in it,
# as a node's do in its root one.  Three runc containers (two Debian JDK 17
# ones, one with a read-only root and a noexec /tmp), two host JVMs, and a
# host JVM with -XX:+DisableAttachMechanism: `jsym attach --all -j 4 --json`
# attaches the five, refuses the sixth with its reason, exits 5; each
# container's map names Java methods; `jsym list --json` names the three
# containers by podman's ids.
if [ -z "${JSYM_ALL_PIDNS:-}" ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	JSYM_ALL_PIDNS=1 exec unshare --pid --fork --mount-proc bash "$0" "$@"
fi
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/kit/podman.sh"
t_need_root "podman, runc, a PID namespace"
[ "${JSYM_ALL_PIDNS:-}" = 1 ] || t_skip "cannot make a PID namespace of its own (unshare)"
J=$JSYM_BUILD/jsym
[ -x "$J" ] || t_skip "jsym not built (make)"
pod_usable || t_skip "$POD_WHY"
classes=$(kit_java_build)

t_case start
declare -A ids
for c in a b ro; do
	opts=()
	[ $c = ro ] && opts=(--read-only --tmpfs /tmp:rw,noexec,size=64m)
	pid=$(pod_jvm "all-$c" debian "${opts[@]}") || t_abort "runc JVM all-$c did not start"
	ids[$pid]=$(podman inspect -f '{{.Id}}' "$(pod_name "all-$c")")
done
# hostjvm [JVM-OPTIONS...]: a host JVM (the host JDK); its pid in HOSTJVM
hostjvm() {
	"$KIT_HOST_JDK/bin/java" -Xmx64m "$@" -cp "$classes" Workload 0 >"$KIT_DIR/host.$RANDOM.log" 2>&1 &
	HOSTJVM=$!
	kit_on_exit "kill $HOSTJVM 2>/dev/null; wait $HOSTJVM 2>/dev/null; t_jvm_forget $HOSTJVM"
}
host=()
for _ in 1 2; do
	hostjvm
	host+=("$HOSTJVM")
done
hostjvm -XX:+DisableAttachMechanism
refused=$HOSTJVM
for p in "${host[@]}" "$refused"; do
	kit_wait_jvm "$p" 60 || t_abort "host JVM $p did not start"
done

t_case list
t_run "$J" list --json
t_check "list --json names the three containers by podman's ids" python3 -c '
import json, sys
want = dict(a.split("=") for a in sys.argv[2:])
got = {str(x["pid"]): x.get("container_id") for x in json.loads(sys.argv[1])}
sys.exit(0 if all(got.get(p) == i[:12] for p, i in want.items()) else 1)' \
	"$T_OUT" $(for p in "${!ids[@]}"; do echo "$p=${ids[$p]}"; done)

t_case attach-all
t_run "$J" attach --all -j 4 --json
t_expect_rc 5
t_check "5 attached, 1 refused (DisableAttachMechanism), and only these six" python3 -c '
import json, sys
r = json.loads(sys.argv[1])
ok = sorted(j["pid"] for j in r["jvms"] if j["ok"])
bad = [j["pid"] for j in r["jvms"] if not j["ok"]]
want = sorted(int(p) for p in sys.argv[3:])
print("attached", ok, "failed", bad)
sys.exit(0 if ok == want and bad == [int(sys.argv[2])] and r["attached"] == 5 else 1)' \
	"$T_OUT" "$refused" "${!ids[@]}" "${host[@]}"
for p in "${!ids[@]}"; do
	t_check "container JVM $p: its map names Java methods" pod_map_named "$p"
done
t_run "$J" attach --all -j 4
t_expect_rc 5
t_expect_out "^$refused +$refused +HotSpot .* failed \\(exit 2\\)"
t_expect_err "jsym: $refused: .*DisableAttachMechanism" 'jsym: 5 of 6 JVMs attached, 1 failed'

t_finish
