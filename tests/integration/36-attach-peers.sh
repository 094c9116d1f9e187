#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 36-attach-peers.sh - jsym against attach sockets and peers it must not trust.
#
# A listening socket at /tmp/.java_pid<pid> of another uid, or of the JVM's
# uid but another process (jsym must not talk to either); a stale socket
# file; then the real attach to a uid-1000 JVM as root, as that user and as a
# third user; a JVM in its own user namespace; and fake JVMs serving their own
# socket that hang, never accept, close (as a JVM does on a peer-credential
# mismatch), send garbage or a 4 MiB error.  Exit codes are checked exactly,
# messages by key words; docs/faults.md lists what a user sees.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/integration/lib-attach.bash"
source "$JSYM_ROOT/tests/integration/lib-attach-peers.bash"
la_init
t_need_root
la_need_jvm

home=$(la_fault_home)

# ---------------------------------------------------------------- foreign socket
t_case foreign-socket
# -XX:-UsePerfData: a uid-1000 JVM would leave /tmp/hsperfdata_<user> (uid
# 1000 may have no passwd entry on a CI machine).
cwd=$LA_TMP/cwd1000
mkdir -p "$cwd"
chown 1000:1000 "$cwd"
la_jvm_start u1000 "$home" --uid 1000 --cwd "$cwd" -XX:-UsePerfData && {
	pid=$LA_PID
	sock=/tmp/.java_pid$pid
	# A listener of uid 4321 at the JVM's socket path, before the JVM's own
	# listener exists, answering like a JVM.
	la_fake_listener 4321 "$sock" reply && {
		ls -l "$sock"
		la_jsym exec --timeout 3000 -v "$pid" properties
		t_expect_rc 2
		t_expect_err -i 'own|uid|4321'
		t_check "jsym never connected to the impostor" test "$(la_fake_connections)" = 0
		t_check "impostor's reply not printed" eval '! grep -q talked-to-impostor <<<"$T_OUT"'
		la_fake_stop "$sock"
	}
	t_check "uid-1000 JVM alive" la_alive "$pid"

	t_case same-uid-impostor
	# A listener of the JVM's own uid but another process: only the peer's
	# pid tells it from the JVM's.
	la_fake_listener 1000 "$sock" reply && {
		la_jsym exec --timeout 3000 -v "$pid" properties
		t_expect_rc 2
		t_expect_err -i 'served by|impostor|not by the JVM'
		t_check "impostor's reply not printed" eval '! grep -q talked-to-impostor <<<"$T_OUT"'
		la_fake_stop "$sock"
	}
	t_check "uid-1000 JVM alive" la_alive "$pid"

	t_case other-uid-jvm
	# The fakes gone, root attaches to the uid-1000 JVM for real.
	la_jsym exec -v "$pid" properties
	t_expect_rc 0
	t_expect_out -i 'java\.version='

	t_case non-root-same-user
	# A developer attaching to their own JVM: no privileges at all.
	JSYM_REAL=$JSYM
	JSYM=$LA_TMP/jsym-as-1000
	printf '#!/bin/sh\nexec setpriv --reuid=1000 --regid=1000 --clear-groups %s "$@"\n' "$JSYM_REAL" >"$JSYM"
	chmod 0755 "$JSYM"
	la_jsym exec -v "$pid" jcmd VM.version
	t_expect_rc 0
	t_expect_out -i 'JDK|VM version'

	t_case non-root-other-user
	printf '#!/bin/sh\nexec setpriv --reuid=4321 --regid=4321 --clear-groups %s "$@"\n' "$JSYM_REAL" >"$JSYM"
	la_jsym exec "$pid" properties
	t_expect_rc 2
	t_expect_err -i 'permission|not permitted|uid|CAP_'
	JSYM=$JSYM_REAL
	la_jvm_stop "$pid"
}

# ---------------------------------------------------------------- stale socket
t_case stale-socket
# A socket file nobody listens on (left by a crashed process with this pid).
la_jvm_start stale "$home" && {
	pid=$LA_PID
	/usr/bin/python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.close()' "/tmp/.java_pid$pid"
	la_jsym_strace exec --timeout 3000 "$pid" properties
	t_expect_rc 2
	t_expect_err -i 'nobody listens|stale|left over' 'remove'
	t_check "no signal sent" eval '! la_signalled '"$pid"
	rm -f "/tmp/.java_pid$pid"
	la_jsym exec "$pid" properties
	t_expect_rc 0
	la_jvm_stop "$pid"
}

# ---------------------------------------------------------------- user namespace
t_case user-namespace-jvm
# A rootless container: the JVM is uid 0 of its own user namespace, uid 1000
# on the host.  jsym must act as host uid 1000 (= the JVM's euid inside).
if setpriv --reuid=1000 --regid=1000 --clear-groups unshare --user --map-root-user true 2>/dev/null; then
	la_jvm_start userns "$home" --uid 1000 --userns --cwd "$cwd" -XX:-UsePerfData && {
		pid=$LA_PID
		la_jsym exec -v "$pid" properties
		t_expect_rc 0
		t_expect_out -i 'user\.name=root' 'jsym\.test\.mark=userns'
		la_jvm_stop "$pid"
	}
else
	t_log "unprivileged user namespaces are disabled: case not run"
fi

# ---------------------------------------------------------------- broken JVM side
# A fake JVM serving its own socket: jsym talks to it (it is "the JVM") and
# must neither hang nor misreport when the reply is missing or malformed.
t_case hung-listener
la_fake_jvm silent && {
	la_jsym_bg exec --timeout 3000 --read-timeout 2000 -v "$LA_PID" properties
	la_jsym_wait
	t_expect_rc 2
	t_expect_err -i 'time(d)? ?out|no reply|silen|answer'
	t_check "jsym gave up near its 2 s read timeout (${LA_SECS}s)" test "$LA_SECS" -le 8
	la_fake_stop "/tmp/.java_pid$LA_PID"
}

t_case listener-never-accepts
la_fake_jvm noaccept && {
	la_jsym_bg exec --timeout 2000 --read-timeout 2000 -v "$LA_PID" properties
	la_jsym_wait
	t_expect_rc 2
	t_expect_err -i 'time(d)? ?out|no reply|silen|answer'
	t_check "jsym gave up within its timeouts (${LA_SECS}s)" test "$LA_SECS" -le 10
	la_fake_stop "/tmp/.java_pid$LA_PID"
}

t_case listener-closes
# What a JVM does to a client whose uid/gid it rejects (docs/protocols.md A4): close
# without reading.  The message must say so, not just "connection reset".
la_fake_jvm close && {
	la_jsym exec --timeout 3000 -v "$LA_PID" properties
	t_expect_rc 2
	t_expect_err -i 'closed|no reply|without|EOF|empty'
	la_fake_stop "/tmp/.java_pid$LA_PID"
}

t_case listener-eof
la_fake_jvm eof && {
	la_jsym exec --timeout 3000 -v "$LA_PID" properties
	t_expect_rc 2
	t_expect_err -i 'closed|no reply|without|EOF|empty'
	la_fake_stop "/tmp/.java_pid$LA_PID"
}

t_case listener-garbage
la_fake_jvm garbage && {
	la_jsym exec --timeout 3000 -v "$LA_PID" properties
	t_check "exit 2 or 3 (got $T_RC)" test "$T_RC" = 2 -o "$T_RC" = 3
	t_expect_err -i 'HELLO|unexpected|invalid|malformed|not a|garbage|result'
	la_fake_stop "/tmp/.java_pid$LA_PID"
}

t_case listener-4mib-error
la_fake_jvm bigerror && {
	la_jsym exec --timeout 3000 -v "$LA_PID" properties
	t_expect_rc 3
	n=$(wc -c <<<"$T_OUT$T_ERR")
	t_log "jsym printed $n bytes of the 4 MiB error text"
	# the refusal text is capped (64 KiB) and the cut is said
	t_check "error text capped (printed $n bytes)" test "$n" -lt 100000
	t_expect_err -i 'more bytes of the JVM.s message not shown'
	t_expect_err -i 'refused properties'

	la_fake_stop "/tmp/.java_pid$LA_PID"
}

t_finish
