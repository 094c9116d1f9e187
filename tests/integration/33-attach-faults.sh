#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 33-attach-faults.sh - jsym exec against targets that must be refused or
# survive: usage errors, a non-JVM (never signalled, still alive), an unknown
# PID, -XX:+DisableAttachMechanism (command line, JAVA_TOOL_OPTIONS,
# JDK_JAVA_OPTIONS, @argfile), -Xrs (eager listener: works; listener gone:
# refused before any SIGQUIT, which would kill it), a SIGSTOPped JVM
# (--timeout honoured, trigger removed, JVM fine after SIGCONT), a worker
# stalled where jsym has no deadline (ended at its hard limit), jsym itself
# interrupted (no trigger left), a JVM killed during the attach (no hang, the
# right diagnosis), a v1 argument over 1024 bytes, JVM-side failures, missing
# arguments, a thread id given as pid, four concurrent cold attaches,
# attaching at JVM start-up.  Untrusted sockets and peers: 36-attach-peers.
# Exit codes are checked exactly, messages by key words.  docs/faults.md
# lists what a user sees for each.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/integration/lib-attach.bash"
la_init
t_need_root
la_need_jvm

home=$(la_fault_home)
feature=$(t_jdk_major "$home")

# ---------------------------------------------------------------- usage
t_case usage-no-args
la_jsym exec
t_expect_rc 1
t_case usage-bad-pid
la_jsym exec notapid properties
t_expect_rc 1
t_case usage-bad-timeout
la_jsym exec --timeout soon 1 properties
t_expect_rc 1
t_case usage-bad-protocol
la_jsym exec --protocol 3 1 properties
t_expect_rc 1
t_case usage-unknown-command
la_jsym exec 1 frobnicate
t_expect_rc 1
t_case usage-too-many-arguments
# More arguments than the command takes: a usage error before any attach
# (pid 1 is never contacted), not a protocol limit or a silently sent word.
la_jsym exec 1 load a b c d e
t_expect_rc 1
t_expect_err -i 'too many arguments'
la_jsym exec 1 properties extra
t_expect_rc 1

# ---------------------------------------------------------------- non-JVM
t_case non-jvm-sleep
la_bg sleep 1000
spid=$LA_PID
la_jsym_strace exec -v "$spid" properties
t_expect_rc 2
t_expect_err -i 'not a (java|jvm|hotspot)|no jvm|not.*jvm'
t_check "sleep is still alive" la_alive "$spid"
t_check "jsym sent no signal to the non-JVM" eval '! la_signalled '"$spid"
t_check "no trigger file was created for it" eval '! la_trigger_left '"$spid"
kill "$spid"

# ---------------------------------------------------------------- unknown PID
t_case unknown-pid
nopid=$(($(cat /proc/sys/kernel/pid_max) - 7))
while [ -e "/proc/$nopid" ]; do nopid=$((nopid - 1)); done
la_jsym exec "$nopid" properties
t_expect_rc 2
t_expect_err -i "$nopid" 'no such process|not found|does not exist|no process'
la_jsym exec --json "$nopid" properties
t_expect_rc 2
t_check "--json reports the failure as JSON with exit 2 and the error" python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
sys.exit(0 if d.get("exit") == 2 and "no process" in json.dumps(d) and
         d.get("jvm", "missing") is None else 1)' <<<"$T_OUT"

# ---------------------------------------------------------------- DisableAttachMechanism
t_case disable-attach-mechanism
la_jvm_start dam "$home" -XX:+DisableAttachMechanism && {
	pid=$LA_PID
	la_jsym exec --timeout 3000 -v "$pid" properties
	t_expect_rc 2
	t_expect_err -i 'DisableAttachMechanism'
	sleep 0.5
	t_check "JVM alive" la_alive "$pid"
	n=$(la_dumps dam)
	t_check "at most one thread dump ($n)" test "$n" -le 1
	la_jsym exec --timeout 3000 "$pid" properties
	sleep 0.5
	n=$(la_dumps dam)
	t_check "still at most one thread dump after a second try ($n)" test "$n" -le 1
	t_check "no trigger file left" eval '! la_trigger_left '"$pid"
	la_jvm_stop "$pid"
}

t_case disable-attach-via-env-and-argfile
# The flag can hide in JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS or an @argfile:
# same refusal, and never a SIGQUIT (which would only make the JVM print a
# thread dump).
echo '-XX:+DisableAttachMechanism' >"$LA_TMP/dam.args"
for var in JAVA_TOOL_OPTIONS JDK_JAVA_OPTIONS; do
	declare -x "$var=-XX:+DisableAttachMechanism"
	la_jvm_start "dam$var" "$home"
	ok=$?
	unset "$var"
	[ $ok = 0 ] || continue
	pid=$LA_PID
	la_jsym_strace exec --timeout 3000 "$pid" properties
	t_expect_rc 2
	t_expect_err -i 'DisableAttachMechanism'
	t_check "no signal sent ($var)" eval '! la_signalled '"$pid"
	sleep 0.3
	t_check "no thread dump ($var)" test "$(la_dumps "dam$var")" = 0
	la_jvm_stop "$pid"
done
la_jvm_start damarg "$home" "@$LA_TMP/dam.args" && {
	pid=$LA_PID
	la_jsym_strace exec --timeout 3000 "$pid" properties
	t_expect_rc 2
	t_expect_err -i 'DisableAttachMechanism'
	t_check "no signal sent (@argfile)" eval '! la_signalled '"$pid"
	sleep 0.3
	t_check "no thread dump (@argfile)" test "$(la_dumps damarg)" = 0
	la_jvm_stop "$pid"
}

# ---------------------------------------------------------------- -Xrs
t_case xrs-eager-listener
la_jvm_start xrs "$home" -Xrs && {
	pid=$LA_PID
	# -Xrs starts the listener at VM start: the socket is there, no signal needed.
	la_jsym_strace exec -v "$pid" properties
	t_expect_rc 0
	t_check "no signal sent to the -Xrs JVM" eval '! la_signalled '"$pid"
	t_check "-Xrs JVM alive" la_alive "$pid"

	t_case xrs-no-listener
	# Without its socket the listener cannot be started by a signal: SIGQUIT
	# would terminate an -Xrs JVM, so jsym must refuse before signalling.
	rm -f "/tmp/.java_pid$pid"
	la_jsym_strace exec --timeout 3000 -v "$pid" properties
	t_expect_rc 2
	t_expect_err -i 'Xrs|SIGQUIT|signal'
	t_check "no signal sent to the -Xrs JVM" eval '! la_signalled '"$pid"
	sleep 0.3
	t_check "-Xrs JVM alive" la_alive "$pid"
	t_check "no trigger file left" eval '! la_trigger_left '"$pid"
	la_jvm_stop "$pid"
}

t_case xrs-via-argfile-and-env
# -Xrs hidden in an @argfile or JAVA_TOOL_OPTIONS: whatever jsym reads from
# the command line, the missing SIGQUIT handler (SigCgt) must stop it.
echo '-Xrs' >"$LA_TMP/xrs.args"
for how in argfile env; do
	if [ $how = argfile ]; then
		la_jvm_start "xrs$how" "$home" "@$LA_TMP/xrs.args"
	else
		JAVA_TOOL_OPTIONS=-Xrs la_jvm_start "xrs$how" "$home"
	fi || continue
	pid=$LA_PID
	rm -f "/tmp/.java_pid$pid"
	la_jsym_strace exec --timeout 3000 "$pid" properties
	t_expect_rc 2
	t_check "no signal sent (-Xrs via $how)" eval '! la_signalled '"$pid"
	sleep 0.3
	t_check "-Xrs JVM alive (via $how)" la_alive "$pid"
	la_jvm_stop "$pid"
done

# ---------------------------------------------------------------- SIGSTOP
t_case stopped-jvm-timeout
la_jvm_start stopped "$home" && {
	pid=$LA_PID
	kill -STOP "$pid"
	la_jsym_bg exec --timeout 2000 -v "$pid" properties
	la_jsym_wait
	t_expect_rc 2
	t_expect_err -i 'time(d)? ?out|stopped'
	t_check "jsym gave up near its 2 s timeout (took ${LA_SECS}s)" test "$LA_SECS" -le 8
	t_check "no trigger file left" eval '! la_trigger_left '"$pid"
	kill -CONT "$pid"
	sleep 1
	t_check "JVM alive after SIGCONT" la_alive "$pid"
	t_log "thread dumps after SIGCONT: $(la_dumps stopped) (a SIGQUIT without trigger dumps once)"
	t_case stopped-jvm-after-cont
	la_jsym exec "$pid" properties
	t_expect_rc 0
	t_expect_out -i 'java\.version='
	la_jvm_stop "$pid"
}

# ---------------------------------------------------------------- worker limit
t_case attach-one-jvm-worker-limit
# A step with no deadline of its own (hang_shim.c: connect() to the attach
# socket never returns) must still end at the worker's hard limit,
# 4 x --timeout + --read-timeout + 10 s, for `jsym attach PID` with one JVM
# as for --all (issue 17 row 2: one JVM ran outside the pool and hung).
shim=$JSYM_BUILD/tests/integration/libjsymhang.so
if [ ! -f "$shim" ]; then
	t_skip_case "$shim not built: run make"
else
	la_jvm_start limit "$home" && {
		pid=$LA_PID
		LA_LIMIT=60
		t_run --as "jsym attach (connect stalled)" timeout -k 3 "$LA_LIMIT" \
			env LD_PRELOAD="$shim" "$JSYM_BUILD/jsym" attach --timeout 500 --read-timeout 500 "$pid"
		la_hung
		unset LA_LIMIT
		t_expect_rc 2
		t_expect_err 'ended without a result: it was stopped after 12500 ms'
		t_check "the JVM is alive" la_alive "$pid"
		la_jsym exec "$pid" properties
		t_expect_rc 0
		la_jvm_stop "$pid"
	}
fi

# ---------------------------------------------------------------- interrupted
t_case interrupted-attach
# Ctrl-C or a kill while jsym waits for the socket: the trigger must not stay
# behind (the JVM never deletes it, and a stale valid trigger turns the next
# operator's `kill -3` into a listener start instead of a thread dump).
la_jvm_start intr "$home" && {
	pid=$LA_PID
	kill -STOP "$pid"
	for sig in INT TERM KILL; do
		env --default-signal=INT "$JSYM" exec --timeout 30000 "$pid" properties \
			</dev/null >/dev/null 2>"$LA_TMP/intr.err" &
		j=$!
		sleep 0.5
		kill -"$sig" "$j"
		wait "$j"
		rc=$?
		echo "  jsym killed by SIG$sig: exit $rc $(head -c 200 "$LA_TMP/intr.err")"
		# A helper process may do the cleanup just after jsym died: 2 s.
		for _ in $(seq 20); do la_trigger_left "$pid" || break; sleep 0.1; done
		t_check "no trigger left after SIG$sig" eval '! la_trigger_left '"$pid"
		rm -f "$LA_TMP/.attach_pid$pid" "/tmp/.attach_pid$pid"
	done
	kill -CONT "$pid"
	t_check "JVM alive" la_alive "$pid"
	la_jvm_stop "$pid"
}

# ---------------------------------------------------------------- JVM exits mid-attach
t_case jvm-exits-during-attach
la_jvm_start dying "$home" && {
	pid=$LA_PID
	# Stopped, the JVM cannot answer: jsym is waiting for the socket when the
	# JVM dies.  It must notice and fail, not wait for its 30 s timeout.
	kill -STOP "$pid"
	la_jsym_bg exec --timeout 30000 -v "$pid" properties
	sleep 0.8
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	la_jsym_wait
	t_expect_rc 2
	t_expect_err -i 'exit|gone|died|no such process|terminated|vanished|disappeared'
	t_check "jsym noticed the death well before its 30 s timeout (${LA_SECS}s)" test "$LA_SECS" -le 10
	t_check "no trigger file left" eval '! la_trigger_left '"$pid"
}

t_case jvm-killed-right-after-start-of-attach
# Unsynchronised: the JVM dies a few ms into the attach, wherever jsym is.
for d in 0.01 0.04 0.08; do
	la_jvm_start "race$d" "$home" || continue
	pid=$LA_PID
	la_jsym_bg exec --timeout 20000 --read-timeout 20000 "$pid" properties
	sleep "$d"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	la_jsym_wait
	t_check "exit 0 or 2 after a kill at ${d}s (got $T_RC)" test "$T_RC" = 0 -o "$T_RC" = 2
	# The JVM is dead: a failure must say so, not blame a stale socket or
	# the peer credentials.
	[ "$T_RC" = 2 ] && t_expect_err -i 'exited|died|gone|terminated|no longer'
	t_check "no wait for the 20 s timeouts (${LA_SECS}s)" test "$LA_SECS" -le 10
	t_check "no trigger file left" eval '! la_trigger_left '"$pid"
done

# ---------------------------------------------------------------- v1 limits
t_case v1-long-argument
if [ "$feature" -lt 24 ]; then
	la_jvm_start v1 "$home" && {
		pid=$LA_PID
		LA_LIMIT=20 la_jsym exec "$pid" jcmd "VM.version$(printf '%1500s' '')"
		t_expect_rc 2
		t_expect_err -i '1024|v1|limit|too long'
		t_case jcmd-unknown-command
		la_jsym exec "$pid" jcmd No.such_command
		t_expect_rc 3
		t_check "the JVM's text is shown" grep -qiE 'unknown diagnostic command|No.such_command' <<<"$T_OUT$T_ERR"
		t_check "JVM alive" la_alive "$pid"

		t_case usage-missing-arguments
		# Required arguments missing: a usage error (1) before anything is
		# sent, not whatever the JVM makes of empty strings.
		for cmd in load jcmd printflag dumpheap; do
			# shellcheck disable=SC2086
			la_jsym exec "$pid" $cmd
			t_expect_rc 1
		done
		la_jvm_stop "$pid"
	}
else
	t_log "no pre-24 JDK: v1 limit case not run"
fi

# ---------------------------------------------------------------- thread id
t_case thread-id-as-pid
# perf samples and `top -H` show thread ids: jsym must either attach to the
# thread's process or say that it got a thread id - never blame the JVM's
# own socket as an impostor.
la_jvm_start tid "$home" && {
	pid=$LA_PID
	tid=$(ls "/proc/$pid/task" | grep -vx "$pid" | sort -n | tail -n 1)
	t_log "thread $tid of JVM $pid"
	la_jsym exec --timeout 3000 -v "$tid" properties
	t_check "exit 0 or 2 (got $T_RC)" test "$T_RC" = 0 -o "$T_RC" = 2
	if [ "$T_RC" = 2 ]; then
		t_expect_err -i 'thread'
		t_expect_not_err -i 'impostor|remove'
	else
		t_expect_out -i 'jsym\.test\.mark=tid'
	fi
	# Warm: the listener runs now (if the first call started it).
	la_jsym exec --timeout 3000 -v "$tid" properties
	t_check "warm: exit 0 or 2 (got $T_RC)" test "$T_RC" = 0 -o "$T_RC" = 2
	[ "$T_RC" = 2 ] && t_expect_not_err -i 'impostor|remove'
	t_check "JVM alive" la_alive "$pid"
	la_jvm_stop "$pid"
}

# ---------------------------------------------------------------- concurrency
t_case concurrent-cold-attach
# Four jsym at once on a JVM whose listener is not started: they share one
# trigger path; all must succeed (or fail cleanly), the JVM must not dump.
la_jvm_start conc "$home" && {
	pid=$LA_PID
	jobs_=()
	for i in 1 2 3 4; do
		(timeout -k 3 30 "$JSYM" exec --timeout 8000 "$pid" properties \
			>"$LA_TMP/conc$i.out" 2>"$LA_TMP/conc$i.err"
			echo $? >"$LA_TMP/conc$i.rc") &
		jobs_+=($!)
	done
	wait "${jobs_[@]}"
	for i in 1 2 3 4; do
		rc=$(cat "$LA_TMP/conc$i.rc")
		echo "  jsym #$i: exit $rc $(head -c 300 "$LA_TMP/conc$i.err")"
		t_check "concurrent jsym #$i exit 0 (got $rc)" test "$rc" = 0
	done
	sleep 0.3
	t_check "no thread dump from the races ($(la_dumps conc))" test "$(la_dumps conc)" = 0
	t_check "no trigger file left" eval '! la_trigger_left '"$pid"
	la_jvm_stop "$pid"
}

# ---------------------------------------------------------------- startup
t_case attach-at-startup
# Attach the moment the JVM process exists, before it installed its SIGQUIT
# handler: jsym must refuse or succeed, never kill it.
for i in 1 2 3; do
	(cd "$LA_TMP" && exec env --default-signal=INT,QUIT "$home/bin/java" -Xmx64m \
		-XX:TieredStopAtLevel=1 -cp "$(kit_java_build)" AttachTarget 300 "early$i") \
		</dev/null >"$LA_TMP/early$i.out" 2>&1 &
	pid=$!
	LA_PIDS+=("$pid")
	sleep "0.0$((i * 3))"
	la_jsym exec --timeout 5000 "$pid" properties
	t_check "exit 0 or 2 (got $T_RC)" test "$T_RC" = 0 -o "$T_RC" = 2
	sleep 0.5
	t_check "JVM $i alive after an attach at startup" la_alive "$pid"
	la_jvm_stop "$pid"
done

t_finish
