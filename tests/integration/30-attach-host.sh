#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 30-attach-host.sh - jsym exec against host JVMs, once per installed HotSpot JDK.
#
# For each JDK: a fresh JVM (listener not started) answers `properties` with
# its own java.version; a second call (`jcmd VM.version`) connects to the
# running listener without a SIGQUIT and without a thread dump on the JVM's
# stdout; `load` of a test agent returning 0 exits 0, returning 7 exits 4
# naming 7; a missing library exits 3 with the JVM's text.  JDK 24+: protocol
# v2 is used and a 1500-byte jcmd argument arrives whole; JDK <= 23: the same
# argument is refused locally (exit 2, names the v1 limit), without a hang.
# Then every other command of the contract (threaddump, agentProperties,
# printflag, setflag, inspectheap, dumpheap, datadump) and --json; a library
# without Agent_OnAttach (exit 3); a JVM with -XX:-EnableDynamicAgentLoading
# (load: exit 3 with the JVM's text; JDK 21+ answer those with result 0) and,
# JDK 24+, -Djdk.attach.compat=true (v1 only: the long argument is refused).
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/integration/lib-attach.bash"
la_init
t_need_root
la_need_jvm

agent=$(la_test_agent) || t_skip "test agent not built ($JSYM_BUILD/tests/integration/libjsymtestagent.so): run make"
# A library without Agent_OnAttach.
noattach=$LA_TMP/libjsymnoattach.so
echo 'int jsym_no_onattach;' | gcc -x c -shared -fPIC -o "$noattach" - ||
	t_skip "cannot compile a shared library with gcc"
pad=$(printf '%1500s' '')
# Thread.print with -l after 1500 spaces: the "Locked ownable synchronizers"
# sections appear only if the whole argument reached the JVM.
long_arg="Thread.print${pad}-l"

# sigquit_sent: a -v line says a SIGQUIT was sent (not "no SIGQUIT needed").
sigquit_sent() {
	la_vlines 'sigquit' | grep -viqE "\bno\b|not |without|skip|already|unneeded"
}

njdk=0
while read -r home v <&3; do
	njdk=$((njdk + 1))
	full=$(sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' "$home/release")
	name=host$v
	t_case "$name-start"
	la_jvm_start "$name" "$home" || continue
	pid=$LA_PID

	t_case "$name-properties-cold"
	la_jsym exec -v "$pid" properties
	t_expect_rc 0
	t_expect_out -i "java\.version=$full" "jsym\.test\.mark=$name"
	t_check "-v reports the trigger file" la_vlines 'trigger|attach_pid'
	t_check "-v reports the SIGQUIT of a cold attach" sigquit_sent
	t_check "-v reports when the socket appeared" la_vlines 'socket'
	if [ "$v" -ge 24 ]; then
		t_check "-v says protocol v2 on JDK $v" la_vlines 'v2|version 2|protocol 2'
	fi
	t_check "no trigger file left in the JVM's cwd or /tmp" \
		test ! -e "$LA_TMP/.attach_pid$pid" -a ! -e "/tmp/.attach_pid$pid"

	t_case "$name-jcmd-warm"
	la_jsym exec -v "$pid" jcmd VM.version
	t_expect_rc 0
	t_expect_out -i "$full"
	t_check "second call sends no SIGQUIT" eval '! sigquit_sent'
	t_check "JVM printed no thread dump" test "$(la_dumps "$name")" = 0

	t_case "$name-load-ok"
	mark=$LA_TMP/$name.mark
	la_jsym exec "$pid" load "$agent" true "0,$mark"
	t_expect_rc 0
	t_check "Agent_OnAttach ran in the JVM" grep -q 'attached 0' "$mark"

	t_case "$name-load-agent-fails"
	la_jsym exec "$pid" load "$agent" true "7,$mark"
	t_expect_rc 4
	t_check "the agent's code 7 is printed" grep -qE '\b7\b' <<<"$T_OUT$T_ERR"
	t_check "Agent_OnAttach ran again" grep -q 'attached 7' "$mark"

	t_case "$name-load-missing"
	la_jsym exec "$pid" load /nonexistent/libjsym-nope.so true ""
	t_expect_rc 3
	# The JVM's own text: "<lib> was not loaded." + the dlerror line.
	t_check "the JVM's text is printed" grep -qiE 'libjsym-nope.*(not loaded|cannot open|no such file)' <<<"$T_OUT$T_ERR"

	t_case "$name-protocol-option"
	if [ "$v" -ge 24 ]; then
		# v1 forced by the user: the refusal must name --protocol, not the JVM.
		LA_LIMIT=20 la_jsym exec --protocol 1 "$pid" jcmd "$long_arg"
		t_expect_rc 2
		t_expect_err -i '1024' '--protocol|protocol 1 was'
		la_jsym exec --protocol 2 "$pid" jcmd VM.version
		t_expect_rc 0
	else
		la_jsym exec --protocol 2 "$pid" jcmd VM.version
		t_expect_rc 2
		t_expect_err -i 'v2'
	fi

	t_case "$name-load-no-onattach"
	la_jsym exec "$pid" load "$noattach" true ""
	t_expect_rc 3
	t_check "the JVM's text names Agent_OnAttach" grep -q 'Agent_OnAttach' <<<"$T_OUT$T_ERR"

	t_case "$name-long-arg"
	LA_LIMIT=20 la_jsym exec -v "$pid" jcmd "$long_arg"
	if [ "$v" -ge 24 ]; then
		t_expect_rc 0
		t_check "the whole 1500-byte argument arrived (-l honoured)" \
			grep -q 'Locked ownable synchronizers' <<<"$T_OUT"
	else
		t_expect_rc 2
		t_expect_err -i '1024|v1|limit|too long'
	fi

	t_case "$name-commands"
	la_jsym exec "$pid" threaddump
	t_expect_rc 0
	t_expect_out -i 'Full thread dump' '"main"'
	la_jsym exec "$pid" jcmd Thread.print -l
	t_expect_rc 0
	t_check "jcmd words joined into one command line (-l honoured)" \
		grep -q 'Locked ownable synchronizers' <<<"$T_OUT"
	la_jsym exec "$pid" agentProperties
	t_expect_rc 0
	t_expect_out -i 'sun\.'
	la_jsym exec "$pid" printflag MaxHeapSize
	t_expect_rc 0
	t_expect_out -i 'MaxHeapSize=67108864'
	la_jsym exec "$pid" setflag HeapDumpOnOutOfMemoryError 1
	t_expect_rc 0
	la_jsym exec "$pid" printflag HeapDumpOnOutOfMemoryError
	t_expect_out -i '\+HeapDumpOnOutOfMemoryError'
	la_jsym exec "$pid" setflag MaxHeapSize 1
	t_expect_rc 3
	t_check "the JVM's refusal text is shown" grep -qiE 'cannot be (changed|set)|not.*(writeable|manageable)' <<<"$T_OUT$T_ERR"
	la_jsym exec "$pid" inspectheap
	t_expect_rc 0
	t_expect_out -i 'java\.lang\.String'
	la_jsym exec "$pid" dumpheap "$LA_TMP/$name.hprof"
	t_expect_rc 0
	t_check "heap dump written" test -s "$LA_TMP/$name.hprof"
	rm -f "$LA_TMP/$name.hprof"

	t_case "$name-json"
	la_jsym exec --json "$pid" printflag MaxHeapSize
	t_expect_rc 0
	t_check "--json output parses" eval 'python3 -m json.tool <<<"$T_OUT" >/dev/null'
	la_jsym exec --json "$pid" load "$agent" true "7,$mark"
	t_expect_rc 4
	t_check "--json output of a failed load parses" eval 'python3 -m json.tool <<<"$T_OUT" >/dev/null'
	t_check "--json carries the agent code 7" grep -qE '"[a-z_]*": *7\b' <<<"$T_OUT"

	t_case "$name-alive"
	t_check "JVM still alive" la_alive "$pid"
	t_check "JVM printed no thread dump at all" test "$(la_dumps "$name")" = 0

	t_case "$name-datadump"
	# datadump makes the JVM print a thread dump on its own stdout: one.
	la_jsym exec "$pid" datadump
	t_expect_rc 0
	sleep 0.3
	t_check "exactly one thread dump on the JVM's stdout" test "$(la_dumps "$name")" = 1
	la_jvm_stop "$pid"

	# A second JVM that refuses dynamic agents (and, JDK 24+, keeps protocol v1).
	t_case "$name-restricted"
	opts=(-XX:-EnableDynamicAgentLoading)
	[ "$v" -ge 24 ] && opts+=(-Djdk.attach.compat=true)
	la_jvm_start "$name-restricted" "$home" "${opts[@]}" || continue
	pid=$LA_PID
	la_jsym exec "$pid" load "$agent" true "0,$mark.r"
	t_expect_rc 3
	t_check "the JVM's text says dynamic loading is off" \
		grep -qi 'dynamic agent loading is not enabled' <<<"$T_OUT$T_ERR"
	t_check "Agent_OnAttach did not run" test ! -e "$mark.r"
	if [ "$v" -ge 24 ]; then
		LA_LIMIT=20 la_jsym exec -v "$pid" jcmd "$long_arg"
		t_expect_rc 2
		t_expect_err -i '1024|v1'
		t_check "-v: protocol v1 under jdk.attach.compat" la_vlines 'protocol v1|v1 only|version: 1'
	fi
	t_check "JVM alive" la_alive "$pid"
	la_jvm_stop "$pid"
done 3< <(t_jdks)

[ $njdk -gt 0 ] || t_skip "no HotSpot JDK found"
t_finish
