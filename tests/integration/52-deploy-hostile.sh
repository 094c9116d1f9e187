#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 52-deploy-hostile.sh - `jsym attach` against a container whose /tmp was
# prepared by an attacker, and against a /tmp that cannot take the agents.
#
# jsym's directory name is predictable (jsym-<hash of the builds>-<start
# time>), so the container plants, at every name jsym will use: an absolute
# symlink to a host directory, a directory of another uid, a symlink inside
# jsym's own directory, a FIFO and a hard link where the agent goes; and a
# TMPDIR that is an absolute symlink.  Each copy (--delivery copy) must fail
# with a message naming what was found, without hanging, and no host file
# may change (content and mtime of a victim file, the listing of its
# directory, the host's /tmp).  A full and a read-only /tmp get a clear
# error and nothing written.  Then the default delivery gets around each
# refusal with a memfd (54-deploy-memfd has the details), still touching
# nothing; a read-only /tmp stays impossible (HotSpot's socket lives there).
# A flock of the container's / held by its uid 65534 delays an attach by a
# second, no more.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, chown"
J=$JSYM_BUILD/jsym
[ -x "$J" ] || t_skip "jsym not built (make)"
classes=$(kit_java_build)
rootfs=$(kit_rootfs debian)

# The victim: a host directory an attacker would like jsym to write into.
victim=$(mktemp -d /tmp/jsym-victim.XXXXXX)
kit_on_exit "rm -rf '$victim'"
echo "host secret" >"$victim/file"
touch -d '2020-01-01 00:00:00' "$victim/file"
victim_state() { ls -A "$victim"; stat -c '%n %s %Y %h' "$victim" "$victim/file"; sha256sum <"$victim/file"; }
victim_before=$(victim_state)
hostlist() { ls -a /tmp | grep '^jsym-[0-9a-f]\{12\}-' || true; }
host_before=$(hostlist)

# The name jsym will use: FNV-1a 64 of the four build files, 12 hex digits.
hash=$(python3 - "$JSYM_ROOT" <<'PY'
import sys
h = 0xcbf29ce484222325
for l in ("glibc", "musl"):
    for f in ("libjsym-agent.so", "jsym-probe"):
        for b in open(f"{sys.argv[1]}/{l}-build/{f}", "rb").read():
            h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
print(f"{h:016x}"[:12])
PY
)
start() {
	local name=$1 pid
	shift
	pid=$(kit_start "$name" "$rootfs" --uid 1000 --gid 1000 --bind "$classes:/opt/jsym-java:ro" \
		"$@" -- "$KIT_CT_JAVA" -Xmx96m -cp /opt/jsym-java Workload 0)
	kit_wait_jvm "$pid" 60 || t_abort "container JVM $name did not start: $(cat "$KIT_DIR/$name.log")"
	echo "$pid"
}
# jsym-<hash>-<pid in its namespace>-<start time in clock ticks>
dirname_of() {
	echo "jsym-$hash-$(awk '/^NSpid:/ {print $NF}' "/proc/$1/status")-$(sed 's/.*) //' "/proc/$1/stat" | awk '{print $20}')"
}
# attempt CT EXPECTED-ERE...: jsym attach --delivery copy fails (exit 2) in
# bounded time, saying what it found; no agent is mapped; the host is
# untouched.
attempt() {
	local ct=$1
	shift
	t_run timeout 30 "$J" attach --delivery copy "$ct"
	t_expect_rc 2
	t_expect_err "$@"
	t_check "no agent mapped" test -z "$(awk '/libjsym-agent/' "/proc/$ct/maps")"
	t_eq "$(victim_state)" "$victim_before" "the host victim is untouched"
	t_eq "$(hostlist)" "$host_before" "nothing new in the host's /tmp"
}
# by_memfd CT: the default delivery loads the agent from a memfd instead,
# nothing copied, the host untouched.
by_memfd() {
	local ct=$1
	t_run timeout 30 "$J" attach "$ct"
	t_expect_rc 0
	t_expect_out 'memfd /proc/[0-9]+/fd/[0-9]+' 'delivered from a memfd'
	t_check "no agent file mapped" test -z "$(awk '/libjsym-agent/' "/proc/$ct/maps")"
	t_check "the memfd agent mapped" grep -q '/memfd:jsym-agent-glibc' "/proc/$ct/maps"
	t_eq "$(victim_state)" "$victim_before" "the host victim is untouched"
	t_eq "$(hostlist)" "$host_before" "nothing new in the host's /tmp"
}

t_case symlink-at-the-directory
ct=$(start h1)
ln -s "$victim" "/proc/$ct/root/tmp/$(dirname_of "$ct")"
attempt "$ct" "is a symlink, not a directory: refusing"
by_memfd "$ct"
kit_stop h1

t_case directory-of-another-uid
ct=$(start h2)
d=/proc/$ct/root/tmp/$(dirname_of "$ct")
mkdir "$d" && chown 2000:2000 "$d"
attempt "$ct" "belongs to uid 2000, not to the JVM's uid 1000"
by_memfd "$ct"
kit_stop h2

t_case symlink-inside
ct=$(start h3)
d=/proc/$ct/root/tmp/$(dirname_of "$ct")
mkdir "$d" && ln -s "$victim" "$d/glibc" && chown -h 1000:1000 "$d" "$d/glibc"
attempt "$ct" "glibc in the container is a symlink"
by_memfd "$ct"
kit_stop h3

t_case fifo-as-agent
ct=$(start h4)
d=/proc/$ct/root/tmp/$(dirname_of "$ct")
mkdir -p "$d/glibc" && mkfifo "$d/glibc/libjsym-agent.so" && chown -R 1000:1000 "$d"
attempt "$ct" "libjsym-agent\.so in the container is a FIFO"
by_memfd "$ct"
kit_stop h4

t_case hard-link-as-agent
ct=$(start h5)
d=/proc/$ct/root/tmp/$(dirname_of "$ct")
mkdir -p "$d/glibc" && cp "$JSYM_ROOT/glibc-build/libjsym-agent.so" "/proc/$ct/root/tmp/other"
ln "/proc/$ct/root/tmp/other" "$d/glibc/libjsym-agent.so" && chown -R 1000:1000 "$d" "/proc/$ct/root/tmp/other"
attempt "$ct" "has 2 hard links: refusing"
by_memfd "$ct"
kit_stop h5

t_case tmpdir-is-a-symlink
# TMPDIR names where the copy goes; an absolute symlink there must not be
# followed (it would resolve against the host's root from /proc/PID/root).
ct=$(start h6 --env TMPDIR=/var/tmp/evil)
ln -s "$victim" "/proc/$ct/root/var/tmp/evil"
attempt "$ct" "/var/tmp/evil is not a directory \(a symlink\?\): refusing"
by_memfd "$ct"
kit_stop h6

t_case tmp-too-small
ct=$(start h7 --tmp-size 600k)
attempt "$ct" "has [0-9]+ KiB free of [0-9]+ KiB; jsym needs [0-9]+ KiB" "nothing was written"
t_eq "$(ls -a "/proc/$ct/root/tmp" | grep -c '^jsym-[0-9a-f]' || true)" 0 "no directory left in the container"
by_memfd "$ct"
kit_stop h7

t_case tmp-read-only
ct=$(start h8 --tmp-ro)
attempt "$ct" "/tmp is read-only"
t_run timeout 30 "$J" attach "$ct"
t_expect_rc 2
t_expect_err "/tmp is read-only: HotSpot creates the socket there"
kit_stop h8

t_case flock-of-the-root
# Any user of the container can flock its /: uid 65534 holding it made
# every attach of the container give up ("another jsym has been attaching
# this JVM's container", issue 24 row 6).  jsym's own lock is outside the
# container now; the container's / is waited for a second at most.
ct=$(start h9)
ino=$(stat -c %i "/proc/$ct/root/")
kit_exec "$ct" --uid 65534 --gid 65534 -- flock / sleep 300 >/dev/null 2>&1 &
holder=$!
for _ in $(seq 50); do
	grep -q "FLOCK .*:$ino " /proc/locks && break
	sleep 0.1
done
t_check "uid 65534 holds a flock of the container's /" grep -q "FLOCK .*:$ino " /proc/locks
t_run timeout 30 "$J" attach -v --timeout 5000 "$ct"
t_expect_rc 0
t_expect_out 'agent loaded'
t_expect_err "locked /run/jsym/root-[0-9a-f]+-[0-9a-f]+\\.lock against concurrent jsyms" \
	"the container's / stayed locked for 1000 ms"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
kit_stop h9

t_finish
