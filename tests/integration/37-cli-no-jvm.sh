#!/usr/bin/env bash
# 37-cli-no-jvm.sh - what jsym prints where no real JVM is needed: --json
# of an exec that fails before any output exists (stdout is a file with
# earlier contents); `jsym list -v` as an unprivileged user about the
# processes it cannot inspect.  Fast: no JDK, no container.
source "$(dirname "$0")/lib-attach.bash"
la_init
la_need_root

# A pid that cannot exist (above pid_max's hard limit of 2^22).
nopid=9999999

# ------------------------------------------- exec --json, early failure
la_case json-early-failure-keeps-stdout-file
# `1<>file` opens the file without truncating it: an exec that fails before
# its output memfd exists must not read stdout back as "output".
out=$LA_TMP/out.json
printf 'OLD-SECRET\n' >"$out"
timeout -k 3 30 "$JSYM" exec --json "$nopid" properties 1<>"$out" 2>"$LA_TMP/jsym.err"
LA_RC=$?
echo "+ jsym exec --json $nopid properties 1<>out.json -> exit $LA_RC"
sed 's/^/  file| /' "$out"
la_expect_rc 2
la_check "out.json is exactly one valid JSON object without \"output\"" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d.get("ok") is False and d.get("exit") == 2 and "output" not in d else 1)' "$out"
# The JSON (longer than the old text) overwrites it from offset 0.
la_check "the earlier contents appear nowhere" eval "! grep -q OLD-SECRET '$out'"

# ------------------------------------------- list -v, unprivileged
la_case list-v-unprivileged-names-what-was-refused
# PID 1 (root's, not a JVM) cannot be inspected by uid 65534: -v must say
# which pid, which file and why, and must not guess that it is a JVM.
timeout -k 3 30 setpriv --reuid 65534 --regid 65534 --clear-groups "$JSYM" list -v \
	>"$LA_TMP/jsym.out" 2>"$LA_TMP/jsym.err" </dev/null
LA_RC=$?
LA_ERR=$(cat "$LA_TMP/jsym.err")
echo "+ (uid 65534) jsym list -v -> exit $LA_RC"
grep -E '\b1\b' "$LA_TMP/jsym.err" | sed 's/^/  err| /'
tail -n 2 "$LA_TMP/jsym.err" | sed 's/^/  err| /'
la_expect_rc 0
pid1=$(grep -E 'process 1[^0-9]' "$LA_TMP/jsym.err")
la_check "a line names process 1" test -n "$pid1"
la_check "it names the refused file /proc/1/maps" grep -q '/proc/1/maps' <<<"$pid1"
la_check "it gives the reason (errno text)" grep -q 'Permission denied' <<<"$pid1"
la_check "it does not claim a JVM" eval "! grep -qiE 'is (probably )?a JVM|the JVM' <<<\"\$pid1\""
la_expect_not_err 'probably'

la_finish
