#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 31-attach-container.sh - jsym exec from the host into a container, and jsym list.
#
# A Debian container runs AttachTarget as PID 1, uid 1000, private /tmp.  From
# the host, as root: `jsym exec HOSTPID properties` answers with the
# container JVM's properties; -v says the mount namespace was entered and the
# trigger went to the container's path (.attach_pid1, nspid 1); nothing named
# .attach_pid* is left in the container's /tmp or cwd and nothing new in the
# host /tmp.  A second call is warm (no SIGQUIT, no thread dump).  A JVM
# that is not PID 1 (a shell is) is found by its nspid, from the host and a
# sidecar; the shell is refused as "not a JVM".  Then
# `jsym list` (text and --json) shows the host JVM and the container JVM with
# nspid, uid, kind and libc; --json flags the host JVM's
# -XX:+DisableAttachMechanism.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/integration/lib-attach.bash"
la_init
t_need_root
la_need_jvm


agent=$(la_test_agent) || t_skip "test agent not built ($JSYM_BUILD/tests/integration/libjsymtestagent.so): run make"

t_case container-start
# $LA_TMP (with the test agent) is visible in the container at /opt/jsym-t.
la_ct_start deb --uid 1000 --gid 1000 --cwd /tmp --bind "$LA_TMP:/opt/jsym-t:ro" || t_finish
ct=$LA_PID
nspid=$(awk '/^NSpid:/ {print $NF}' "/proc/$ct/status")
t_check "the JVM is PID 1 of its pid namespace (nspid $nspid)" test "$nspid" = 1
ctroot=/proc/$ct/root

t_case container-properties
la_jsym exec -v "$ct" properties
t_expect_rc 0
t_expect_out -i 'jsym\.test\.mark=deb' 'java\.version=17' 'user\.name='
t_check "-v: mount namespace entered" la_vlines '(mount|mnt).*(namespace|ns)|setns'
t_check "-v: no fallback to /proc/<pid>/root needed as host root" \
	eval '! la_vlines "fall(ing)? ?back"'
t_check "-v: trigger at the container's path (.attach_pid$nspid)" \
	la_vlines "\.attach_pid${nspid}([^0-9]|$)"
t_check "-v: trigger path is not a host path with the host pid" \
	eval '! la_vlines "\.attach_pid${ct}([^0-9]|$)"'
left=$(ls -a "$ctroot/tmp" "$ctroot/" "/proc/$ct/cwd/" 2>/dev/null | grep '^\.attach_pid')
t_check "no .attach_pid* left in the container's /tmp, / or cwd ($left)" test -z "$left"
t_check "the container's socket exists where the JVM made it" test -S "$ctroot/tmp/.java_pid1"

t_case container-warm
la_jsym exec -v "$ct" jcmd VM.version
t_expect_rc 0
t_expect_out -i 'JDK 17|17\.0'
t_check "second call: no SIGQUIT sent" \
	eval '! la_vlines sigquit | grep -viqE "\bno\b|not |without|skip|already"'
t_check "the container JVM printed no thread dump" test "$(la_dumps deb)" = 0

t_case container-load
# Library paths are the JVM's: the agent at its container path loads and
# runs as the JVM's user; the host path does not exist there (exit 3 with
# the JVM's dlopen text).
la_jsym exec "$ct" load "/opt/jsym-t/${agent##*/}" true "0,/tmp/jsym-mark"
t_expect_rc 0
t_check "Agent_OnAttach ran in the container JVM" grep -q 'attached 0' "$ctroot/tmp/jsym-mark"
t_check "the mark file belongs to the JVM's uid 1000" test "$(stat -c %u "$ctroot/tmp/jsym-mark" 2>/dev/null)" = 1000
la_jsym exec "$ct" load "$agent" true "0,/tmp/jsym-mark2"
t_expect_rc 3
t_check "the JVM's dlopen text is shown" grep -qiE 'not loaded|cannot open|no such file' <<<"$T_OUT$T_ERR"

t_case host-tmp-clean
left=$(la_tmp_marks 1 "$ct")
t_check "no trigger or socket of the container JVM in the host /tmp ($left)" test -z "$left"

# ---------------------------------------------------------------- nspid != 1
t_case container-jvm-not-pid1
# PID 1 is a shell, the JVM its child: host pid, nspid and 1 all differ.
LA_CT_PREFIX=(/bin/sh -c '"$@" & wait' sh)
la_ct_start child --uid 1000 --gid 1000 --cwd /tmp && {
	jvm=$(cat "/proc/$LA_PID/task/$LA_PID/children" 2>/dev/null | awk '{print $1}')
	cns=$(awk '/^NSpid:/ {print $NF}' "/proc/${jvm:-0}/status" 2>/dev/null)
	t_log "container PID 1 = host $LA_PID, JVM = host $jvm, nspid $cns"
	t_check "the JVM's nspid is not 1 (${cns:-?})" test -n "$cns" -a "${cns:-1}" != 1
	la_jsym exec -v "${jvm:-0}" properties
	t_expect_rc 0
	t_expect_out -i 'jsym\.test\.mark=child'
	t_check "-v: trigger named with the nspid (.attach_pid$cns)" \
		la_vlines "\.attach_pid${cns}([^0-9]|$)"
	la_jsym exec -v "$LA_PID" properties
	t_expect_rc 2
	t_expect_err -i 'not a JVM'
	if declare -F kit_sidecar >/dev/null; then
		la_sidecar_jsym "$LA_PID" -- exec --timeout 5000 -v "$cns" jcmd VM.version
		t_expect_rc 0
		t_expect_out -i 'JDK 17|17\.0'
	fi
}
LA_CT_PREFIX=()

# ---------------------------------------------------------------- jsym list
t_case list
home=$(t_jdks | head -n 1 | cut -d" " -f1)
la_jvm_start hostjvm "$home" -XX:+DisableAttachMechanism && hpid=$LA_PID
la_jsym list
t_expect_rc 0
ctline=$(grep -E "(^|[^0-9])$ct([^0-9]|$)" <<<"$T_OUT")
hline=$(grep -E "(^|[^0-9])${hpid:-x}([^0-9]|$)" <<<"$T_OUT")
echo "  container line: $ctline"
echo "  host line:      $hline"
t_check "list shows the container JVM" test -n "$ctline"
t_check "list shows the host JVM" test -n "$hline"
t_check "container line has uid 1000" grep -qE '(^|[^0-9])1000([^0-9]|$)' <<<"$ctline"
t_check "container line has nspid 1" grep -qE '(^|[^0-9])1([^0-9]|$)' <<<"$ctline"
t_check "container line names the kind (hotspot)" grep -qi 'hotspot' <<<"$ctline"
t_check "container line names the libc (glibc)" grep -qi 'glibc' <<<"$ctline"
t_check "header or lines name the columns" grep -qiE 'nspid|ns.?pid' <<<"$T_OUT"

t_case list-json
la_jsym list --json
t_expect_rc 0
t_check "--json parses with python3 -m json.tool" \
	eval 'python3 -m json.tool <<<"$T_OUT" >/dev/null'
t_check "--json has the container JVM with nspid 1, uid 1000, hotspot, glibc" \
	python3 -c '
import json, sys
doc = json.loads(sys.stdin.read())
items = doc if isinstance(doc, list) else next(v for v in doc.values() if isinstance(v, list))
want = int(sys.argv[1])
for it in items:
    if want in [v for v in it.values() if isinstance(v, int)]:
        flat = json.dumps(it).lower()
        nspid = [v for k, v in it.items() if "ns" in k.lower() and "pid" in k.lower()]
        uid = [v for k, v in it.items() if "uid" in k.lower()]
        ok = nspid == [1] and 1000 in uid and "hotspot" in flat and "glibc" in flat
        print("  json entry:", json.dumps(it))
        sys.exit(0 if ok else 1)
sys.exit(1)
' "$ct" <<<"$T_OUT"

t_check "--json marks the host JVM started with -XX:+DisableAttachMechanism" \
	python3 -c '
import json, sys
doc = json.loads(sys.stdin.read())
items = doc if isinstance(doc, list) else next(v for v in doc.values() if isinstance(v, list))
for it in items:
    if int(sys.argv[1]) in [v for v in it.values() if isinstance(v, int)]:
        print("  json entry:", json.dumps(it))
        sys.exit(0 if any(v is True for k, v in it.items() if "disabl" in k.lower()) else 1)
sys.exit(1)
' "${hpid:-0}" <<<"$T_OUT"

t_finish
