#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 25-resolve-container.sh - `jsym resolve --pid` from the host for a JVM in a
# container (tests/kit): JDK 17 as PID 1 of a Debian container, uid 1000, its
# own /tmp, the agent loaded at startup.  The host never sees the JVM's /tmp
# or its pid 1 directly: jsym must go through /proc/PID/root/tmp and the last
# NStgid value, i.e. read /proc/PID/root/tmp/jsym-1.journal.  Then the same
# from a kubectl-debug-style sidecar (Docker's capabilities, no
# CAP_SYS_PTRACE), and without any capability (exit 2, names the fix).  Then
# files planted in the container's /tmp: a symlink journal (even one pointing
# at a file inside the container) and a FIFO are refused, never followed or
# waited on; a symlink in the path resolves inside the container's root, the
# same without openat2 (old kernels): the confined open walks it itself.
set -u
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces for the containers"
source "$JSYM_ROOT/tests/integration/agent_lib.bash"
ag_init
JSYM=$JSYM_BUILD/jsym
[ -x "$JSYM" ] || t_skip "jsym not built: $JSYM (run make)"
"$JSYM" resolve --help >/dev/null 2>&1 || t_skip "this jsym has no resolve (attach/lookup/lookup.mk not linked)"
host_script() { bash "$JSYM_ROOT/tests/integration/25-resolve-host.sh" "$@"; }
# exit_and_says RC WANT ERE FILE: the command exited WANT and said ERE
exit_and_says() { [ "$1" = "$2" ] && grep -Eq "$3" "$4"; }

rootfs=$(kit_rootfs debian)
java=$(kit_java_build)
ct=$(kit_start resolvedeb "$rootfs" --uid 1000 --gid 1000 --cwd /tmp \
	--bind "$java:/opt/jsym-java:ro" --bind "$JSYM_BUILD:/opt/jsym:ro" \
	--log "$AG_TMP/ct.out" -- \
	/usr/lib/jvm/java-17-openjdk-amd64/bin/java -Xmx64m -XX:+UseSerialGC \
	-agentpath:/opt/jsym/libjsym-agent.so -cp /opt/jsym-java AgentBusy 60) ||
	t_abort "kit_start resolvedeb"
kit_wait_jvm "$ct" 60 || t_abort "container JVM did not start"
for i in $(seq 1 150); do
	grep -q 'agent-busy: started' "$AG_TMP/ct.out" && break
	sleep 0.2
done
sleep 2
r=/proc/$ct/root/tmp
t_check "agent wrote /tmp/perf-1.map and /tmp/jsym-1.journal in the container" \
	bash -c "[ -s '$r/perf-1.map' ] && [ -s '$r/jsym-1.journal' ]"
t_check "nothing for pid 1 or $ct in the host /tmp" \
	bash -c "[ ! -e /tmp/jsym-1.journal ] && [ ! -e /tmp/jsym-$ct.journal ]"
cp "$r/perf-1.map" "$AG_TMP/m1"
sleep 0.4
host_script addrs "$AG_TMP/m1" >"$AG_TMP/addrs"
"$JSYM" resolve --pid "$ct" -v <"$AG_TMP/addrs" >"$AG_TMP/out" 2>"$AG_TMP/err"
rc=$?
cat "$AG_TMP/err"
cp "$r/perf-1.map" "$AG_TMP/m2"
t_check "jsym resolve --pid $ct exit 0" [ $rc = 0 ]
t_check "it read the container's /tmp/jsym-1.journal (NStgid 1)" \
	grep -q "/proc/$ct/root/tmp/jsym-1.journal: [0-9]* records" "$AG_TMP/err"
t_check "names equal the container's map (first/middle/last byte), ?? outside" \
	host_script verdict "$AG_TMP/m1" "$AG_TMP/m2" "$AG_TMP/out" container 150

# A kubectl-debug-style sidecar: the JVM's pid namespace (the JVM is pid 1
# there), its own mount namespace and root, root with Docker's default
# capabilities: no CAP_SYS_PTRACE, so /proc/1/root (uid 1000) is refused to
# root and jsym borrows the JVM's uid for that open.
if declare -F kit_sidecar >/dev/null; then
	cp "$r/perf-1.map" "$AG_TMP/s1"
	sleep 0.4
	head -20 "$AG_TMP/addrs" >"$AG_TMP/addrs-s"
	# shellcheck disable=SC2046 # one argument per address
	kit_sidecar "$ct" --bind "$JSYM_BUILD:/opt/jsym:ro" -- \
		/opt/jsym/jsym resolve --pid 1 -v $(cat "$AG_TMP/addrs-s") >"$AG_TMP/out-s" 2>"$AG_TMP/err-s"
	rc=$?
	cat "$AG_TMP/err-s"
	cp "$r/perf-1.map" "$AG_TMP/s2"
	t_check "sidecar (Docker caps): jsym resolve --pid 1 exit 0" [ $rc = 0 ]
	t_check "sidecar: -v says it opened /proc/1/root as the JVM's uid" \
		grep -q "opened it as the JVM's uid 1000" "$AG_TMP/err-s"
	t_check "sidecar: names equal the map" \
		host_script verdict "$AG_TMP/s1" "$AG_TMP/s2" "$AG_TMP/out-s" sidecar 40
	kit_sidecar "$ct" --caps none --bind "$JSYM_BUILD:/opt/jsym:ro" -- \
		/opt/jsym/jsym resolve --pid 1 10 >/dev/null 2>"$AG_TMP/err-n"
	rc=$?
	cat "$AG_TMP/err-n"
	t_check "sidecar without capabilities: exit 2 naming CAP_SYS_PTRACE" \
		exit_and_says $rc 2 "cannot open /proc/1/root: .*CAP_SYS_PTRACE" "$AG_TMP/err-n"
fi

# Hostile files in the container's /tmp (the JVM's user owns that directory).
mkdir -p "$r/lnk" "$r/fifo"
ln -s /tmp/jsym-1.journal "$r/lnk/jsym-1.journal"
mkfifo "$r/fifo/jsym-1.journal"
timeout 10 "$JSYM" resolve --pid "$ct" --dir /tmp/lnk 10 >/dev/null 2>"$AG_TMP/err-l"
rc=$?
cat "$AG_TMP/err-l"
t_check "symlink journal: refused (exit 2), not followed" \
	exit_and_says $rc 2 "cannot open /proc/$ct/root/tmp/lnk/jsym-1.journal: Too many levels" "$AG_TMP/err-l"
timeout 10 "$JSYM" resolve --pid "$ct" --dir /tmp/fifo 10 >/dev/null 2>"$AG_TMP/err-f"
rc=$?
cat "$AG_TMP/err-f"
t_check "FIFO journal: refused at once (exit 2, no hang)" \
	exit_and_says $rc 2 "not a regular file" "$AG_TMP/err-f"
# Kernels before 5.6 have no openat2: strace makes it fail with ENOSYS; jsym
# walks every path itself anyway (common/confine.c), so nothing changes.
if command -v strace >/dev/null; then
	head -5 "$AG_TMP/addrs" | tr ' ' '\n' >"$AG_TMP/addrs-w"
	"$JSYM" resolve --pid "$ct" <"$AG_TMP/addrs-w" >"$AG_TMP/out-w1"
	strace -f -qq -o /dev/null -e inject=openat2:error=ENOSYS \
		"$JSYM" resolve --pid "$ct" <"$AG_TMP/addrs-w" >"$AG_TMP/out-w2"
	t_check "no openat2: the walk finds the same journal, same answers" \
		cmp "$AG_TMP/out-w1" "$AG_TMP/out-w2"
	# a symlink to /tmp at the container's root: it resolves inside the root
	ln -s /tmp "/proc/$ct/root/tmplink"
	"$JSYM" resolve --pid "$ct" --dir /tmplink <"$AG_TMP/addrs-w" >"$AG_TMP/out-w3"
	t_check "openat2: a symlink inside the container resolves inside it" \
		cmp "$AG_TMP/out-w1" "$AG_TMP/out-w3"
	# the confined open walks the path itself on every kernel: a symlink
	# in the path resolves inside the root with or without openat2
	strace -f -qq -o /dev/null -e inject=openat2:error=ENOSYS \
		"$JSYM" resolve --pid "$ct" --dir /tmplink <"$AG_TMP/addrs-w" >"$AG_TMP/out-w4"
	t_check "no openat2: a symlink inside the container resolves inside it too" \
		cmp "$AG_TMP/out-w1" "$AG_TMP/out-w4"
	rm -f "/proc/$ct/root/tmplink"
fi
rm -rf "$r/lnk" "$r/fifo"
t_check "container JVM still alive" kill -0 "$ct"
t_finish
