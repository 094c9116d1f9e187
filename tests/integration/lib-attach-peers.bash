# SPDX-License-Identifier: Apache-2.0
# tests/integration/lib-attach-peers.bash - fake attach peers for the attach
# scenarios: listeners and "JVMs" that lie, hang, close or send garbage.
#
# Sourced after lib-attach.bash (uses LA_TMP, LA_PIDS; failures are t_fail).  Named
# .bash: the runner runs every *.sh in tests/integration.

# The misbehaving peer of la_fake_listener and la_fake_jvm, in Python.
# Arguments: LIB (a library to map first, or -), PATH (socket path, or - for
# /tmp/.java_pid<own pid>), LOG, MODE.
LA_FAKE_PY='
import ctypes, os, socket, sys, time
lib, path, log, mode = sys.argv[1:5]
if lib != "-":
    ctypes.CDLL(lib)
if path == "-":
    path = "/tmp/.java_pid%d" % os.getpid()
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
s.listen(5)
os.chmod(path, 0o600)
open(log, "a").write("listening\n")
if mode == "noaccept":
    time.sleep(3600)
while True:
    c, _ = s.accept()
    open(log, "a").write("connected\n")
    if mode == "close":
        time.sleep(0.3)
        c.close()
        continue
    c.settimeout(2)
    try:
        open(log, "a").write("request %r\n" % c.recv(65536))
    except OSError:
        pass
    if mode == "silent":
        time.sleep(3600)
    elif mode == "garbage":
        c.sendall(b"HELLO\n")
    elif mode == "eof":
        pass
    elif mode == "bigerror":
        c.sendall(b"-1\n" + b"E" * (4 << 20) + b"\n")
    else:
        c.sendall(b"0\njsym.test.evil=talked-to-impostor\n")
    c.close()
'

# la_fake_run LOG [PREFIX...] -- LIB PATH MODE: start LA_FAKE_PY in the
# background; sets LA_FAKE and waits until it listens.
la_fake_run() {
	local log=$1 pre=() i
	shift
	while [ "$1" != -- ]; do
		pre+=("$1")
		shift
	done
	shift
	LA_FAKE_LOG=$log
	env --default-signal=INT,QUIT "${pre[@]}" /usr/bin/python3 -c "$LA_FAKE_PY" \
		"$1" "$2" "$log" "$3" </dev/null >/dev/null 2>"$log.err" &
	LA_FAKE=$!
	LA_PIDS+=("$LA_FAKE")
	for i in $(seq 50); do
		grep -q listening "$log" 2>/dev/null && return 0
		sleep 0.1
	done
	t_fail "fake listener did not start: $(cat "$log.err")"
	return 1
}

# la_fake_listener UID SOCK MODE: a listener at SOCK run as UID that plays a
# hostile or broken JVM; it logs "listening" and one "connected" per
# connection to $LA_FAKE_LOG.  MODE:
#   reply    read the request, answer "0\n" + a property that must not be shown
#   silent   read the request, never answer (a hung listener)
#   noaccept listen, never accept
#   close    close after 0.3 s without reading: the client's request is
#            unread, so it sees a reset (what a JVM does on a peer-uid mismatch)
#   eof      read the request, close without a byte (the client sees EOF)
#   garbage  answer "HELLO\n" (no result code)
#   bigerror answer "-1\n" + 4 MiB of text
# Sets LA_FAKE (its pid; stopped by la_fake_stop or at exit).
la_fake_listener() {
	local uid=$1 dir=$LA_TMP/fake-$1-$3
	mkdir -p "$dir"
	chown "$uid:$uid" "$dir"
	la_fake_run "$dir/log" setpriv --reuid="$uid" --regid="$uid" --clear-groups -- - "$2" "$3"
}

# la_fake_jvm MODE: a process that looks like a HotSpot JVM to jsym (a dummy
# <home>/lib/server/libjvm.so mapped, <home>/release saying 17) and serves
# /tmp/.java_pid<its pid> itself, misbehaving per MODE.  Sets LA_PID (the
# target) and LA_FAKE_LOG.
la_fake_jvm() {
	local home=$LA_TMP/fakejdk
	mkdir -p "$home/lib/server"
	echo 'JAVA_VERSION="17.0.99"' >"$home/release"
	[ -e "$home/lib/server/libjvm.so" ] ||
		echo 'int jsym_fake_jvm;' | gcc -x c -shared -fPIC -o "$home/lib/server/libjvm.so" - ||
		{ t_fail "cannot build the dummy libjvm.so"; return 1; }
	la_fake_run "$LA_TMP/fakejvm-$1.log" -- "$home/lib/server/libjvm.so" - "$1" || return 1
	LA_PID=$LA_FAKE
}

la_fake_stop() {
	kill "$LA_FAKE" 2>/dev/null
	wait "$LA_FAKE" 2>/dev/null
	rm -f "$1"
}

la_fake_connections() {
	grep -c connected "$LA_FAKE_LOG" 2>/dev/null || true
}
