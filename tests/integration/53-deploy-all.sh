#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 53-deploy-all.sh - `jsym attach --all`: every JVM visible from here, in a
# bounded pool of workers, one summary.
#
# Four container JVMs (two Debian, two Debian-with-musl roots, each its own
# JDK 17 as PID 1, uid 1000), two host JVMs (each HotSpot found under
# /usr/lib/jvm, else the same JDK twice) and one host JVM started with
# -XX:+DisableAttachMechanism.  `jsym attach --all -j 3 --json` must attach
# the six and refuse the seventh with a reason; exit 5 (some failed); the
# text summary and the JSON agree.  Other JVMs on the machine, if any, are
# counted but not judged.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, chown"
J=$JSYM_BUILD/jsym
[ -x "$J" ] || t_skip "jsym not built (make)"
classes=$(kit_java_build)
mapfile -t homes < <(t_jdks | awk '{print $1}')
[ ${#homes[@]} -gt 0 ] || t_skip "no HotSpot JDK under /usr/lib/jvm"
[ ${#homes[@]} -gt 1 ] || homes+=("${homes[0]}")

t_case start
want_ok=()
for i in 1 2; do
	for kind in debian debian-musl; do
		pid=$(kit_start "ct-$kind-$i" "$(kit_rootfs "$kind")" --uid 1000 --gid 1000 \
			--bind "$classes:/opt/jsym-java:ro" \
			-- "$KIT_CT_JAVA" -Xmx96m -cp /opt/jsym-java Workload 0)
		want_ok+=("$pid")
	done
done
# hostjvm HOME [JVM-OPTIONS...]: a host JVM; its pid in HOSTJVM (not echoed:
# the kill must be registered in this shell, not in a $(...) subshell).
hostjvm() {
	local home=$1
	shift
	"$home/bin/java" -Xmx96m "$@" -cp "$classes" Workload 0 >"$KIT_DIR/host.$RANDOM.log" 2>&1 &
	HOSTJVM=$!
	kit_on_exit "kill $HOSTJVM 2>/dev/null; wait $HOSTJVM 2>/dev/null; t_jvm_forget $HOSTJVM"
}
hostjvm "${homes[0]}"
want_ok+=("$HOSTJVM")
hostjvm "${homes[1]}"
want_ok+=("$HOSTJVM")
hostjvm "${homes[0]}" -XX:+DisableAttachMechanism
refused=$HOSTJVM
for p in "${want_ok[@]}" "$refused"; do
	kit_wait_jvm "$p" 60 || t_abort "JVM $p did not start"
done
t_pass "7 JVMs up: ${want_ok[*]} and $refused (attach disabled)"

t_case all-json
t_run "$J" attach --all -j 3 --json
t_expect_rc 5
python3 - "$T_OUT" "$refused" "${want_ok[@]}" >"$KIT_DIR/judge" 2>&1 <<'PY'
import json, sys
d = json.loads(sys.argv[1])
refused = int(sys.argv[2]); want = [int(p) for p in sys.argv[3:]]
by = {j["pid"]: j for j in d["jvms"]}
bad = []
for p in want:
    j = by.get(p)
    if not j or not j["ok"] or j["exit"] != 0:
        bad.append(f"{p} not attached: {j}")
j = by.get(refused)
if not j or j["ok"] or "DisableAttachMechanism" not in (j.get("error") or ""):
    bad.append(f"{refused} not refused with a reason: {j}")
if d["attached"] + d["failed"] != len(d["jvms"]) or d["exit"] != 5:
    bad.append(f"summary does not add up: {d['attached']} + {d['failed']} vs {len(d['jvms'])}, exit {d['exit']}")
print("\n".join(bad) if bad else f"ok: {len(d['jvms'])} JVMs, {d['attached']} attached, {d['failed']} failed")
sys.exit(1 if bad else 0)
PY
judged=$?
t_check "JSON: the six attached, the seventh refused with its reason: $(cat "$KIT_DIR/judge")" test $judged = 0
t_expect_err "$refused: .*DisableAttachMechanism"
for p in "${want_ok[@]}"; do
	t_check "JVM $p maps one jsym agent" test "$(awk '/libjsym-agent/ {print $6}' "/proc/$p/maps" | sort -u | wc -l)" = 1
done
t_check "the refused JVM maps no agent" test -z "$(awk '/libjsym-agent/' "/proc/$refused/maps")"

t_case all-text
t_run "$J" attach --all
t_expect_rc 5
t_expect_out '^PID +NSPID +KIND +VERSION +BUILD +RESULT'
for p in "${want_ok[@]}"; do
	t_expect_out "^$p +[0-9]+ +HotSpot .* attached \((already-loaded|copied|in-place)\)"
done
t_expect_out "^$refused .*failed \(exit 2\)"
t_expect_err '[0-9]+ of [0-9]+ JVMs attached, [1-9][0-9]* failed'

t_finish
