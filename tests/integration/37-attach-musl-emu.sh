#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 37-attach-musl-emu.sh - the musl agent inside a musl process playing HotSpot.
#
# No musl JDK can be installed here, so tests/emu/hs_emu plays a JDK 17
# HotSpot (attach listener, JavaVM/JNI/JVMTI, a synthetic JIT with unloads
# and address reuse) and writes the truth: every live code range with the
# name the agent must print (docs/emulators.md).
#
#  1 host, glibc hs_emu as uid 1000 + the glibc agent by `jsym exec ... load`:
#    return code 0; after the generator idles, perf-<pid>.map equals the
#    truth within flush_ms + 500 ms (+ slack); replies as JDK 17 (getversion,
#    unknown operation, version 2 -> 101, short and over-long requests and a
#    peer of our uid with another gid closed without a byte, the two load
#    failure texts, a second load re-runs Agent_OnAttach); SIGQUIT with a
#    trigger of another uid or with the socket there: a thread dump; socket
#    deleted plus a valid trigger: a new listener; no JVMTI function missing;
#    at SIGTERM no JVMTI memory left and the socket removed.
#  2 alpine container (musl only), musl hs_emu as PID 1 at uid 1000, musl
#    agent bound in: jsym sees HotSpot 17.0.99 on musl; load (unfold) ->
#    exit 0 and `return code: 0`; /tmp/perf-1.map (uid 1000, 0644) equals
#    the truth, with loads into freed slots and late unloads behind it; the
#    journal holds the inlined ranges; a second load keeps the map equal.
#  3 the glibc agent loaded the same way into the musl emulator (own dir):
#    what happens is recorded, not asserted (see docs/emulators.md).
set -u
: "${JSYM_ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
source "$JSYM_ROOT/tests/lib/lib.sh"
t_need_root
JSYM=$JSYM_BUILD/jsym
EMU_G=$JSYM_BUILD/tests/emu/hs_emu
EMU_M=$JSYM_MUSL_BUILD/tests/emu/hs_emu
for f in "$JSYM" "$EMU_G" "$EMU_M" "$JSYM_BUILD/libjsym-agent.so" \
	"$JSYM_MUSL_BUILD/libjsym-agent.so"; do
	[ -e "$f" ] || t_skip "not built: $f (run make)"
done
# python3 for uid 1000 too (a pyenv shim under /root is not readable there)
PY=/usr/bin/python3
[ -x "$PY" ] || t_skip "needs /usr/bin/python3"
command -v setpriv >/dev/null || t_skip "needs setpriv"

FLUSH_MS=50
# docs/perf-map.md: an unload leaves the map within 500 ms + flush_ms; 1.5 s
# more for a machine shared with other builds.
SETTLE_MS=$((FLUSH_MS + 500 + 1500))
T=$(mktemp -d /tmp/jsym-hsemu.XXXXXX)
chmod 755 "$T"
HOST_PID=

cleanup() {
	if [ -n "$HOST_PID" ]; then
		kill -KILL "$HOST_PID" 2>/dev/null
		wait "$HOST_PID" 2>/dev/null
		rm -f "/tmp/.java_pid$HOST_PID" "/tmp/.attach_pid$HOST_PID"
	fi
	rm -rf "$T"
}
kit_on_exit cleanup

# agent_code: jsym's reading of the JVM's `return code: N` (exec --json)
agent_code() {
	sed -n 's/.*"agent_code":\(-\{0,1\}[0-9]*\).*/\1/p' <<<"$OUT"
}

# jsym_run ARGS...: $JSYM under a hang guard; RC, OUT, ERR.
jsym_run() {
	timeout -k 3 30 "$JSYM" "$@" </dev/null >"$T/jsym.out" 2>"$T/jsym.err"
	RC=$?
	OUT=$(cat "$T/jsym.out")
	ERR=$(cat "$T/jsym.err")
	echo "    jsym $* -> exit $RC; stdout: ${OUT//$'\n'/ | }"
	[ -z "$ERR" ] || echo "    stderr: ${ERR//$'\n'/ | }"
}



# settled TRUTH MAP: equal within SETTLE_MS of the generator's idle line.
settled() {
	local i
	for ((i = 0; i < SETTLE_MS / 100; i++)); do
		t_same_ranges "$1" "$2" >/dev/null && break
		sleep 0.1
	done
	echo "    compared after $((i * 100)) ms"
	t_same_ranges "$1" "$2"
}

# stat_is FILE "UID MODE"
stat_is() {
	[ "$(stat -c '%u %a' "$1" 2>/dev/null)" = "$2" ]
}

# idle_counts LOG: "reuses late" from the generator's idle line
idle_counts() {
	sed -n 's/.*generator: idle.*reuses \([0-9]*\), late unloads \([0-9]*\).*/\1 \2/p' "$1"
}

echo "=== 1: host, glibc emulator at uid 1000, glibc agent"
mkdir -p "$T/host/out"
chown -R 1000:1000 "$T/host"
(cd "$T/host" && exec setpriv --reuid 1000 --regid 1000 --clear-groups "$EMU_G" \
	--truth "$T/host/truth" --log "$T/host/emu.log" --events 1300 --rate 1500 \
	--seed 7 >"$T/host/emu.out" 2>&1) &
HOST_PID=$!
t_wait_log "$T/host/emu.log" 'started:' 10 || kit_fail "host emulator did not start"
t_check "SigCgt has SIGQUIT (bit 3)" \
	bash -c "(( 0x$(awk '/^SigCgt:/ {print $2}' /proc/$HOST_PID/status) & 4 ))"
dumps() {
	grep -c 'Full thread dump' "$T/host/emu.out"
}
touch "/tmp/.attach_pid$HOST_PID"
chown 1234:1234 "/tmp/.attach_pid$HOST_PID"
kill -QUIT "$HOST_PID"
t_wait_log "$T/host/emu.log" 'owned by uid 1234: ignored' 5
t_check "host: a trigger of another uid gets a thread dump, no socket" \
	eval '[ "$(dumps)" = 1 ] && [ ! -e "/tmp/.java_pid$HOST_PID" ]'
rm -f "/tmp/.attach_pid$HOST_PID"
jsym_run exec --json "$HOST_PID" load "$JSYM_BUILD/libjsym-agent.so" true \
	"dir=$T/host/out,flush_ms=$FLUSH_MS"
t_check "host: jsym exit 0" [ "$RC" = 0 ]
t_check "host: return code: 0 (agent_code 0)" [ "$(agent_code)" = 0 ]
t_wait_log "$T/host/emu.log" 'generator: idle' 30
t_check "host: map equals the truth" settled "$T/host/truth" "$T/host/out/perf-$HOST_PID.map"
sed 1d "$T/host/truth" >"$T/host/truth-1"
t_check "host: the comparison notices a dropped range" \
	eval '! t_same_ranges "$T/host/truth-1" "$T/host/out/perf-$HOST_PID.map" >/dev/null'

echo "--- attach protocol as JDK 17 (docs/protocols.md A4-A8, D)"
t_check "host: replies" setpriv --reuid 1000 --regid 1000 --clear-groups "$PY" - \
	"/tmp/.java_pid$HOST_PID" "$JSYM_BUILD/libjsym-agent.so" \
	"$JSYM_BUILD/tests/emu/hsjdk/lib/server/libjvm.so" "dir=$T/host/out,flush_ms=$FLUSH_MS" <<'EOF'
import socket, sys
sock, agent, nolib, opts = sys.argv[1:5]
bad = 0
def ask(raw, shut=False):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(sock)
    s.sendall(raw)
    if shut:
        s.shutdown(socket.SHUT_WR)
    got = b""
    while True:
        b = s.recv(4096)
        if not b:
            return got
        got += b
def v1(*words):
    words = list(words) + [""] * (4 - len(words))
    return b"1\0" + b"".join(w.encode() + b"\0" for w in words)
def expect(what, got, want, prefix=False):
    global bad
    ok = got.startswith(want) if prefix else got == want
    print("    %s %s: %r" % ("ok  " if ok else "FAIL", what, got[:120]))
    bad += not ok
expect("getversion", ask(v1("getversion")), b"-1\nOperation getversion not recognized!")
expect("unknown op", ask(v1("bogus")), b"-1\nOperation bogus not recognized!")
expect("version 2", ask(b"2\0load\0x\0\0\0"), b"101\n")
expect("short request", ask(b"1\0load\0x\0", shut=True), b"")
expect("arg over 1024", ask(v1("jcmd", "V" * 1500)), b"")
expect("name over 16", ask(v1("x" * 17)), b"")
expect("properties", ask(v1("properties")), b"0\n#", prefix=True)
expect("jcmd VM.version", ask(v1("jcmd", "VM.version")), b"0\nOpenJDK", prefix=True)
expect("load: no such file", ask(v1("load", "/nonexistent/libx.so", "true")),
       b"-1\n/nonexistent/libx.so was not loaded.\n", prefix=True)
expect("load: no Agent_OnAttach", ask(v1("load", nolib, "true")),
       b"-1\nAgent_OnAttach is not available in %s\n" % nolib.encode())
expect("load again", ask(v1("load", agent, "true", opts)), b"0\nreturn code: 0\n")
sys.exit(1 if bad else 0)
EOF
t_check "host: peer of uid 1000 with gid 1001: closed without a byte" \
	setpriv --reuid 1000 --regid 1001 --clear-groups "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1])
try:
    s.sendall(b"1\0properties\0\0\0\0")   # may find the socket closed already
except (BrokenPipeError, ConnectionResetError):
    pass
try:
    got = s.recv(100)
except ConnectionResetError:     # closed with our request unread: no byte either
    got = b""
sys.exit(0 if got == b"" else 1)' "/tmp/.java_pid$HOST_PID"
t_check "host: the second load ran Agent_OnAttach again" \
	grep -q 'attached again' "$T/host/out/jsym-$HOST_PID.log"
t_check "host: no JVMTI function or event missing" eval '! grep -q MISSING "$T/host/emu.log"'
kill -QUIT "$HOST_PID"
for ((i = 0; i < 50; i++)); do
	[ "$(dumps)" = 2 ] && break
	sleep 0.1
done
t_check "host: SIGQUIT with the socket there: a thread dump" [ "$(dumps)" = 2 ]
rm "/tmp/.java_pid$HOST_PID"
setpriv --reuid 1000 --regid 1000 --clear-groups touch "/tmp/.attach_pid$HOST_PID"
kill -QUIT "$HOST_PID"
t_wait_log "$T/host/emu.log" 'is gone: restarting' 5
for ((i = 0; i < 50; i++)); do
	[ -S "/tmp/.java_pid$HOST_PID" ] && break
	sleep 0.1
done
t_check "host: socket deleted + valid trigger: the listener restarts, no dump" \
	eval '[ -S "/tmp/.java_pid$HOST_PID" ] && [ "$(dumps)" = 2 ]'
t_check "host: the socket is 0600, owned by uid 1000" \
	stat_is "/tmp/.java_pid$HOST_PID" "1000 600"
rm -f "/tmp/.attach_pid$HOST_PID"
jsym_run exec --json "$HOST_PID" properties
t_check "host: the restarted listener answers" grep -q 'java.version=17.0.99' <<<"$OUT"
kill -TERM "$HOST_PID"
wait "$HOST_PID"
t_check "host: exit 0 at SIGTERM" [ $? = 0 ]
t_check "host: no JVMTI memory left by the agent" \
	grep -q 'exit: 0 JVMTI allocations not deallocated' "$T/host/emu.log"
t_check "host: socket removed at exit" [ ! -e "/tmp/.java_pid$HOST_PID" ]
rm -f "/tmp/.attach_pid$HOST_PID"
HOST_PID=

echo "=== 2: alpine container (musl only), musl emulator as PID 1, uid 1000"
alp=$(kit_rootfs alpine) || kit_fail "no alpine rootfs"
ct=$(kit_start hsemu "$alp" --uid 1000 --gid 1000 --cwd /tmp \
	--bind "$JSYM_MUSL_BUILD:/opt/jsym-musl:ro" --bind "$JSYM_BUILD:/opt/jsym-glibc:ro" \
	--log "$T/ct.out" -- /opt/jsym-musl/tests/emu/hs_emu --truth /tmp/hs_emu.truth \
	--log /tmp/hs_emu.log --events 2600 --rate 1500 --seed 37 --inline-info) ||
	kit_fail "kit_start hsemu"
r=/proc/$ct/root/tmp
t_wait_log "$r/hs_emu.log" 'started:' 10 || kit_fail "container emulator did not start: $(cat "$T/ct.out")"
t_check "alpine: no glibc where its loader looks" eval '[ -z "$(cd "/proc/$ct/root" &&
	find lib lib64 usr/lib usr/lib64 usr/local/lib \( -name "libc.so.6" -o -name "ld-linux*" \) \
	2>/dev/null)" ]'
t_check "alpine: the emulator runs on musl's loader" grep -q 'ld-musl-x86_64.so.1' "/proc/$ct/maps"
jsym_run list --json
t_check "jsym list: HotSpot 17.0.99, libc musl, nspid 1" python3 -c '
import json, sys
e = [x for x in json.loads(sys.argv[2]) if x["pid"] == int(sys.argv[1])]
sys.exit(0 if e and (e[0]["kind"], e[0]["version"], e[0]["libc"], e[0]["nspid"]) ==
         ("HotSpot", "17.0.99", "musl", 1) else 1)' "$ct" "$OUT"
jsym_run exec --json "$ct" load /opt/jsym-musl/libjsym-agent.so true "dir=/tmp,flush_ms=$FLUSH_MS,unfold"
t_check "alpine: jsym exit 0" [ "$RC" = 0 ]
t_check "alpine: return code: 0 (agent_code 0)" [ "$(agent_code)" = 0 ]
t_wait_log "$r/hs_emu.log" 'generator: idle' 30
grep 'generator: idle' "$r/hs_emu.log"
t_check "alpine: /tmp/perf-1.map equals the truth" settled "$r/hs_emu.truth" "$r/perf-1.map"
read -r reuses lates <<<"$(idle_counts "$r/hs_emu.log")"
t_check "alpine: loads at freed addresses ($reuses) and late unloads ($lates) happened" \
	eval '[ "${reuses:-0}" -gt 0 ] && [ "${lates:-0}" -gt 0 ]'
t_check "alpine: perf-1.map owned by uid 1000, mode 0644" stat_is "$r/perf-1.map" "1000 644"
t_check "alpine: agent log says started" grep -q 'started: dir=/tmp' "$r/jsym-1.log"
journal_check=$JSYM_ROOT/tests/integration/agent_check.py
if [ -f "$journal_check" ]; then
	jout=$("$PY" "$journal_check" journal "$r/jsym-1.journal" 2>&1)
	echo "    $jout"
	t_check "alpine: journal valid, with the inline chains of --inline-info" \
		grep -Eq "journal ok: pid 1, .* [1-9][0-9]* FRAMES" <<<"$jout"
fi
jsym_run exec --json "$ct" load /opt/jsym-musl/libjsym-agent.so true "dir=/tmp,flush_ms=$FLUSH_MS,unfold"
t_check "alpine: second load: return code: 0" [ "$(agent_code)" = 0 ]
t_check "alpine: map still equals the truth after the second load" \
	settled "$r/hs_emu.truth" "$r/perf-1.map"
t_check "alpine: no JVMTI function or event missing" eval '! grep -q MISSING "$r/hs_emu.log"'

echo "=== 3: the glibc agent in the musl emulator (recorded, not asserted)"
kit_exec "$ct" --uid 1000 --gid 1000 -- /bin/mkdir -p /tmp/glibc-agent
jsym_run exec --json "$ct" load /opt/jsym-glibc/libjsym-agent.so true \
	"dir=/tmp/glibc-agent,flush_ms=$FLUSH_MS"
if ! kill -0 "$ct" 2>/dev/null; then
	echo "RECORD: the glibc agent killed the musl emulator (jsym exit $RC)"
	tail -n 5 "$T/ct.out"
elif [ "$RC" != 0 ]; then
	echo "RECORD: the glibc agent failed to load cleanly (jsym exit $RC): $ERR"
else
	sleep "$((SETTLE_MS / 1000 + 1))"
	echo "RECORD: the glibc agent loaded into the musl emulator (musl's loader takes"
	echo "        libc.so.6 for itself), return code $(agent_code); its map:"
	t_same_ranges "$r/hs_emu.truth" "$r/glibc-agent/perf-1.map" || true
	grep -h 'replay\|failed' "$r/glibc-agent/jsym-1.log" | sed 's/^/        /'
fi
t_check "alpine: the musl agent's map still equals the truth" \
	eval 'kill -0 "$ct" 2>/dev/null && t_same_ranges "$r/hs_emu.truth" "$r/perf-1.map"'

t_finish
