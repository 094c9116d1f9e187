#!/usr/bin/env bash
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
source "$(dirname "$0")/lib-attach.bash"
la_init
la_need_root
la_need_jvm

agent=$(la_compile_agent) || la_skip "cannot compile testagent.c with gcc"
# A library without Agent_OnAttach.
noattach=$LA_TMP/libjsymnoattach.so
echo 'int jsym_no_onattach;' | gcc -x c -shared -fPIC -o "$noattach" - ||
	la_skip "cannot compile a shared library with gcc"
pad=$(printf '%1500s' '')
# Thread.print with -l after 1500 spaces: the "Locked ownable synchronizers"
# sections appear only if the whole argument reached the JVM.
long_arg="Thread.print${pad}-l"

# sigquit_sent: a -v line says a SIGQUIT was sent (not "no SIGQUIT needed").
sigquit_sent() {
	la_vlines 'sigquit' | grep -viqE "\bno\b|not |without|skip|already|unneeded"
}

njdk=0
while read -r home <&3; do
	[ -n "$home" ] || continue
	njdk=$((njdk + 1))
	v=$(la_jdk_feature "$home")
	full=$(sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' "$home/release")
	name=host$v
	la_case "$name-start"
	la_jvm_start "$name" "$home" || continue
	pid=$LA_PID

	la_case "$name-properties-cold"
	la_jsym exec -v "$pid" properties
	la_expect_rc 0
	la_expect_out "java\.version=$full" "jsym\.test\.mark=$name"
	la_check "-v reports the trigger file" la_vlines 'trigger|attach_pid'
	la_check "-v reports the SIGQUIT of a cold attach" sigquit_sent
	la_check "-v reports when the socket appeared" la_vlines 'socket'
	if [ "$v" -ge 24 ]; then
		la_check "-v says protocol v2 on JDK $v" la_vlines 'v2|version 2|protocol 2'
	fi
	la_check "no trigger file left in the JVM's cwd or /tmp" \
		test ! -e "$LA_TMP/.attach_pid$pid" -a ! -e "/tmp/.attach_pid$pid"

	la_case "$name-jcmd-warm"
	la_jsym exec -v "$pid" jcmd VM.version
	la_expect_rc 0
	la_expect_out "$full"
	la_check "second call sends no SIGQUIT" eval '! sigquit_sent'
	la_check "JVM printed no thread dump" test "$(la_dumps "$name")" = 0

	la_case "$name-load-ok"
	mark=$LA_TMP/$name.mark
	la_jsym exec "$pid" load "$agent" true "0,$mark"
	la_expect_rc 0
	la_check "Agent_OnAttach ran in the JVM" grep -q 'attached 0' "$mark"

	la_case "$name-load-agent-fails"
	la_jsym exec "$pid" load "$agent" true "7,$mark"
	la_expect_rc 4
	la_check "the agent's code 7 is printed" grep -qE '\b7\b' <<<"$LA_OUT$LA_ERR"
	la_check "Agent_OnAttach ran again" grep -q 'attached 7' "$mark"

	la_case "$name-load-missing"
	la_jsym exec "$pid" load /nonexistent/libjsym-nope.so true ""
	la_expect_rc 3
	# The JVM's own text: "<lib> was not loaded." + the dlerror line.
	la_check "the JVM's text is printed" grep -qiE 'libjsym-nope.*(not loaded|cannot open|no such file)' <<<"$LA_OUT$LA_ERR"

	la_case "$name-protocol-option"
	if [ "$v" -ge 24 ]; then
		# v1 forced by the user: the refusal must name --protocol, not the JVM.
		LA_LIMIT=20 la_jsym exec --protocol 1 "$pid" jcmd "$long_arg"
		la_expect_rc 2
		la_expect_err '1024' '--protocol|protocol 1 was'
		la_jsym exec --protocol 2 "$pid" jcmd VM.version
		la_expect_rc 0
	else
		la_jsym exec --protocol 2 "$pid" jcmd VM.version
		la_expect_rc 2
		la_expect_err 'v2'
	fi

	la_case "$name-load-no-onattach"
	la_jsym exec "$pid" load "$noattach" true ""
	la_expect_rc 3
	la_check "the JVM's text names Agent_OnAttach" grep -q 'Agent_OnAttach' <<<"$LA_OUT$LA_ERR"

	la_case "$name-long-arg"
	LA_LIMIT=20 la_jsym exec -v "$pid" jcmd "$long_arg"
	if [ "$v" -ge 24 ]; then
		la_expect_rc 0
		la_check "the whole 1500-byte argument arrived (-l honoured)" \
			grep -q 'Locked ownable synchronizers' <<<"$LA_OUT"
	else
		la_expect_rc 2
		la_expect_err '1024|v1|limit|too long'
	fi

	la_case "$name-commands"
	la_jsym exec "$pid" threaddump
	la_expect_rc 0
	la_expect_out 'Full thread dump' '"main"'
	la_jsym exec "$pid" jcmd Thread.print -l
	la_expect_rc 0
	la_check "jcmd words joined into one command line (-l honoured)" \
		grep -q 'Locked ownable synchronizers' <<<"$LA_OUT"
	la_jsym exec "$pid" agentProperties
	la_expect_rc 0
	la_expect_out 'sun\.'
	la_jsym exec "$pid" printflag MaxHeapSize
	la_expect_rc 0
	la_expect_out 'MaxHeapSize=67108864'
	la_jsym exec "$pid" setflag HeapDumpOnOutOfMemoryError 1
	la_expect_rc 0
	la_jsym exec "$pid" printflag HeapDumpOnOutOfMemoryError
	la_expect_out '\+HeapDumpOnOutOfMemoryError'
	la_jsym exec "$pid" setflag MaxHeapSize 1
	la_expect_rc 3
	la_check "the JVM's refusal text is shown" grep -qiE 'cannot be (changed|set)|not.*(writeable|manageable)' <<<"$LA_OUT$LA_ERR"
	la_jsym exec "$pid" inspectheap
	la_expect_rc 0
	la_expect_out 'java\.lang\.String'
	la_jsym exec "$pid" dumpheap "$LA_TMP/$name.hprof"
	la_expect_rc 0
	la_check "heap dump written" test -s "$LA_TMP/$name.hprof"
	rm -f "$LA_TMP/$name.hprof"

	la_case "$name-json"
	la_jsym exec --json "$pid" printflag MaxHeapSize
	la_expect_rc 0
	la_check "--json output parses" eval 'python3 -m json.tool <<<"$LA_OUT" >/dev/null'
	la_jsym exec --json "$pid" load "$agent" true "7,$mark"
	la_expect_rc 4
	la_check "--json output of a failed load parses" eval 'python3 -m json.tool <<<"$LA_OUT" >/dev/null'
	la_check "--json carries the agent code 7" grep -qE '"[a-z_]*": *7\b' <<<"$LA_OUT"

	la_case "$name-alive"
	la_check "JVM still alive" la_alive "$pid"
	la_check "JVM printed no thread dump at all" test "$(la_dumps "$name")" = 0

	la_case "$name-datadump"
	# datadump makes the JVM print a thread dump on its own stdout: one.
	la_jsym exec "$pid" datadump
	la_expect_rc 0
	sleep 0.3
	la_check "exactly one thread dump on the JVM's stdout" test "$(la_dumps "$name")" = 1
	la_jvm_stop "$pid"

	# A second JVM that refuses dynamic agents (and, JDK 24+, keeps protocol v1).
	la_case "$name-restricted"
	opts=(-XX:-EnableDynamicAgentLoading)
	[ "$v" -ge 24 ] && opts+=(-Djdk.attach.compat=true)
	la_jvm_start "$name-restricted" "$home" "${opts[@]}" || continue
	pid=$LA_PID
	la_jsym exec "$pid" load "$agent" true "0,$mark.r"
	la_expect_rc 3
	la_check "the JVM's text says dynamic loading is off" \
		grep -qi 'dynamic agent loading is not enabled' <<<"$LA_OUT$LA_ERR"
	la_check "Agent_OnAttach did not run" test ! -e "$mark.r"
	if [ "$v" -ge 24 ]; then
		LA_LIMIT=20 la_jsym exec -v "$pid" jcmd "$long_arg"
		la_expect_rc 2
		la_expect_err '1024|v1'
		la_check "-v: protocol v1 under jdk.attach.compat" la_vlines 'protocol v1|v1 only|version: 1'
	fi
	la_check "JVM alive" la_alive "$pid"
	la_jvm_stop "$pid"
done 3< <(la_jdks)

[ $njdk -gt 0 ] || la_skip "no HotSpot JDK found"
la_finish
