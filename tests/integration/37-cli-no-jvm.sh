#!/usr/bin/env bash
# 37-cli-no-jvm.sh - what jsym prints where no real JVM is needed: --json
# of an exec that fails before any output exists (stdout is a file with
# earlier contents).  Fast: no JDK, no container.
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

la_finish
