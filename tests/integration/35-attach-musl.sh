#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 35-attach-musl.sh - the static musl-build/jsym on the main paths.
#
# The glibc binary is tested in depth by 30-34; this checks that the static
# musl binary (the one to drop into any image) does the same on the paths
# that touch libc-specific code: a cold and a warm attach on the host, a
# container JVM through setns, a non-JVM refused without a signal, the v1
# limit, `load` exit codes and `list --json`.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/integration/lib-attach.bash"
JSYM=${JSYM_MUSL_BUILD:-$JSYM_ROOT/musl-build}/jsym
la_init
t_need_root
la_need_jvm

home=$(t_jdks | head -n 1 | cut -d" " -f1)
full=$(sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' "$home/release")
agent=$(la_test_agent) || t_skip "test agent not built ($JSYM_BUILD/tests/integration/libjsymtestagent.so): run make"

t_case musl-host-cold-warm
la_jvm_start mhost "$home" && {
	pid=$LA_PID
	la_jsym exec -v "$pid" properties
	t_expect_rc 0
	t_expect_out -i "java\\.version=$full" 'jsym\.test\.mark=mhost'
	t_check "-v: SIGQUIT sent on the cold attach" la_vlines 'SIGQUIT sent'
	la_jsym exec -v "$pid" jcmd VM.version
	t_expect_rc 0
	t_check "-v: warm attach needs no signal" la_vlines 'no signal needed'
	t_check "no thread dump" test "$(la_dumps mhost)" = 0

	t_case musl-load
	la_jsym exec "$pid" load "$agent" true "0,$LA_TMP/m.mark"
	t_expect_rc 0
	la_jsym exec "$pid" load "$agent" true "5,$LA_TMP/m.mark"
	t_expect_rc 4
	la_jsym exec "$pid" load /nonexistent/libjsym-nope.so true ""
	t_expect_rc 3

	t_case musl-v1-limit
	if [ "$(t_jdk_major "$home")" -lt 24 ]; then
		LA_LIMIT=20 la_jsym exec "$pid" jcmd "VM.version$(printf '%1500s' '')"
		t_expect_rc 2
		t_expect_err -i '1024'
	fi
	la_jvm_stop "$pid"
}

t_case musl-non-jvm
la_bg sleep 1000
spid=$LA_PID
la_jsym_strace exec "$spid" properties
t_expect_rc 2
t_expect_err -i 'not a JVM'
t_check "no signal sent to the non-JVM" eval '! la_signalled '"$spid"
t_check "sleep alive" la_alive "$spid"
kill "$spid"

t_case musl-container
la_ct_start mct --uid 1000 --gid 1000 --cwd /tmp && {
	ct=$LA_PID
	la_jsym exec -v "$ct" properties
	t_expect_rc 0
	t_expect_out -i 'jsym\.test\.mark=mct'
	t_check "-v: setns into the container" la_vlines 'setns mnt: ok'
	t_check "-v: trigger at .attach_pid1" la_vlines '\.attach_pid1([^0-9]|$)'

	t_case musl-list-json
	la_jsym list --json
	t_expect_rc 0
	t_check "--json parses and lists the container JVM" python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
sys.exit(0 if any(e.get("pid") == int(sys.argv[1]) for e in d) else 1)' "$ct" <<<"$T_OUT"
}

t_finish
