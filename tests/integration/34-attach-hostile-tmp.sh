#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 34-attach-hostile-tmp.sh - jsym against a container whose /tmp is hostile or unusable.
#
# The container user (uid 1000, the JVM's uid) controls its /tmp, so the
# trigger path /tmp/.attach_pid1 may already be:
#   - a symlink to an absolute host path (which /proc/<pid>/root resolution
#     would follow on the host), to a missing host path, or to a file in the
#     container: jsym must not follow it; every symlink target stays untouched
#   - a FIFO: jsym must not block opening it
#   - a device node (mknod is in a runtime's default capabilities): jsym,
#     as host root and outside the container's device cgroup, must not even
#     open it (issue 17 row 1); it replaces it with its own trigger
#   - a file some process holds an flock on: jsym gives up at its --timeout
#   - a directory: refused or worked around, never a hang
# and /tmp may be read-only (clear error naming the read-only /tmp, exit 2,
# no SIGQUIT) or full (the trigger is an empty file: recorded, 0 or a clear
# exit 2).  Never a hang: every call runs under --timeout and a guard.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/integration/lib-attach.bash"
la_init
t_need_root
la_need_jvm

LA_LIMIT=25

# plant CT KIND ARG: put a hostile object at the container's trigger path.
plant() {
	local p=/proc/$1/root/tmp/.attach_pid1
	rm -f "$p"
	case $2 in
	symlink) ln -s "$3" "$p" ;;
	fifo) mkfifo -m 0666 "$p" ;;
	esac
	chown -h 1000:1000 "$p"
	ls -l "$p" | sed 's/^/  planted| /'
}

# reset_listener CT: if an attach succeeded, remove the socket so the next
# sub-case goes through the trigger path again (the JVM restarts its
# listener on the next valid trigger).
reset_listener() {
	rm -f "/proc/$1/root/tmp/.java_pid1"
}

fingerprint() { stat -c '%u:%g:%a:%s:%Y' "$1" 2>/dev/null; md5sum <"$1" 2>/dev/null; }

t_case symlink-start
la_ct_start sym --uid 1000 --gid 1000 --cwd /tmp || t_finish
ct=$LA_PID

# Host victim: an existing root file outside the container.
victim=$LA_TMP/victim-host
echo untouched >"$victim"
chmod 0600 "$victim"
touch -d '2020-01-01' "$victim"
before=$(fingerprint "$victim")

t_case symlink-to-host-file
plant "$ct" symlink "$victim"
la_jsym exec --timeout 4000 -v "$ct" properties
t_log "symlink to host file: exit $T_RC"
t_check "exit is 0 or 2 (got $T_RC)" test "$T_RC" = 0 -o "$T_RC" = 2
t_check "host victim untouched (content, owner, mode, mtime)" test "$(fingerprint "$victim")" = "$before"
[ "$T_RC" = 2 ] && t_expect_err -i 'attach_pid|symlink|exists|refus|link'
t_check "JVM alive" la_alive "$ct"
reset_listener "$ct"

t_case symlink-to-missing-host-path
absent=$LA_TMP/victim-absent
plant "$ct" symlink "$absent"
la_jsym exec --timeout 4000 -v "$ct" properties
t_check "exit is 0 or 2 (got $T_RC)" test "$T_RC" = 0 -o "$T_RC" = 2
t_check "nothing created at the symlink's host target" test ! -e "$absent"
t_check "nothing created at that path inside the container" test ! -e "/proc/$ct/root$absent"
reset_listener "$ct"

t_case symlink-to-container-file
ctvictim=/proc/$ct/root/tmp/victim-ct
echo untouched >"$ctvictim"
chown 1000:1000 "$ctvictim"
chmod 0600 "$ctvictim"
touch -d '2020-01-01' "$ctvictim"
cbefore=$(fingerprint "$ctvictim")
plant "$ct" symlink /tmp/victim-ct
la_jsym exec --timeout 4000 -v "$ct" properties
t_check "exit is 0 or 2 (got $T_RC)" test "$T_RC" = 0 -o "$T_RC" = 2
t_check "container victim untouched" test "$(fingerprint "$ctvictim")" = "$cbefore"
reset_listener "$ct"

t_case fifo-at-trigger
plant "$ct" fifo
la_jsym exec --timeout 4000 -v "$ct" properties
t_check "exit is 0 or 2 (got $T_RC)" test "$T_RC" = 0 -o "$T_RC" = 2
[ "$T_RC" = 2 ] && t_expect_err -i 'attach_pid|fifo|not a regular|exists|refus'
t_check "JVM alive" la_alive "$ct"
t_log "thread dumps printed by the hostile-/tmp JVM: $(la_dumps sym)"
rm -f "/proc/$ct/root/tmp/.attach_pid1"

# A device node where jsym makes its trigger.  The kit's /tmp is nodev (the
# kernel refuses a device's open there anyway), so this JVM's cwd, where
# the trigger goes first, is a bind of a host directory that allows
# devices, as an image's own directories do under a real runtime.
t_case device-at-trigger
cwd=$LA_TMP/devcwd
mkdir -p "$cwd"
chown 1000:1000 "$cwd"
mknod -m 0666 "$cwd/.attach_pid1" c 1 3   # /dev/null's numbers: harmless if opened
chown -h 1000:1000 "$cwd/.attach_pid1"
if la_ct_start devcwd --uid 1000 --gid 1000 --cwd /work --bind "$cwd:/work"; then
	t_watch_open "$cwd/.attach_pid1"
	la_jsym exec --timeout 4000 -v "$LA_PID" properties
	t_eq "$(t_watch_result)" unopened "the device node at the trigger path was not opened"
	t_expect_err 'trigger /work/.attach_pid1'
	t_check "exit 0 (got $T_RC)" test "$T_RC" = 0
	t_check "JVM alive" la_alive "$LA_PID"
fi

t_case locked-trigger
# The container user holds an flock on a trigger file of the JVM's uid (what
# a concurrent jsym does): jsym waits its --timeout, then says why.
reset_listener "$ct"
rm -f "/proc/$ct/root/tmp/.attach_pid1"
mkdir -p "$LA_TMP/lockdir"
chown 1000:1000 "$LA_TMP/lockdir"
env --default-signal=INT,QUIT setpriv --reuid=1000 --regid=1000 --clear-groups \
	/usr/bin/python3 -c 'import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
open(sys.argv[2], "w").write("locked\n")
time.sleep(60)' "/proc/$ct/root/tmp/.attach_pid1" "$LA_TMP/lockdir/locked" </dev/null &
locker=$!
LA_PIDS+=("$locker")
for _ in $(seq 50); do [ -e "$LA_TMP/lockdir/locked" ] && break; sleep 0.1; done
la_jsym_bg exec --timeout 2000 -v "$ct" properties
la_jsym_wait
t_expect_rc 2
t_expect_err -i 'another attach|held|lock'
t_check "gave up near its 2 s timeout (${LA_SECS}s)" test "$LA_SECS" -le 8
kill "$locker"
wait "$locker" 2>/dev/null
rm -f "/proc/$ct/root/tmp/.attach_pid1"

t_case directory-at-trigger
reset_listener "$ct"
mkdir "/proc/$ct/root/tmp/.attach_pid1"
chown 1000:1000 "/proc/$ct/root/tmp/.attach_pid1"
la_jsym exec --timeout 3000 -v "$ct" properties
t_check "exit is 0 or 2 (got $T_RC)" test "$T_RC" = 0 -o "$T_RC" = 2
[ "$T_RC" = 2 ] && t_expect_err -i 'directory of that name.*remove that directory'
t_check "JVM alive" la_alive "$ct"
rmdir "/proc/$ct/root/tmp/.attach_pid1" 2>/dev/null
reset_listener "$ct"

# ---------------------------------------------------------------- sidecar
# From a sidecar without CAP_SYS_ADMIN jsym works through /proc/1/root, where
# an absolute symlink would resolve against the *sidecar's* root: plant links
# to a directory bound into the sidecar and check nothing there is touched.
if declare -F kit_sidecar >/dev/null; then
	t_case sidecar-symlink-to-existing
	mkdir -p "$LA_TMP/victims"
	echo untouched >"$LA_TMP/victims/v"
	chmod 0600 "$LA_TMP/victims/v"
	touch -d '2020-01-01' "$LA_TMP/victims/v"
	sbefore=$(fingerprint "$LA_TMP/victims/v")
	LA_SIDECAR_BINDS=(--bind "$LA_TMP/victims:/victims")
	reset_listener "$ct"
	plant "$ct" symlink /victims/v
	la_sidecar_jsym "$ct" -- exec --timeout 4000 -v 1 properties
	t_check "exit is 0 or 2 (got $T_RC)" test "$T_RC" = 0 -o "$T_RC" = 2
	t_check "-v: the /proc/1/root fallback was used" la_vlines '/proc/1/root'
	t_check "sidecar-side victim untouched" test "$(fingerprint "$LA_TMP/victims/v")" = "$sbefore"
	t_check "nothing new in the sidecar-side directory" test "$(ls -A "$LA_TMP/victims")" = v

	t_case sidecar-symlink-to-missing
	reset_listener "$ct"
	plant "$ct" symlink /victims/absent
	la_sidecar_jsym "$ct" -- exec --timeout 4000 -v 1 properties
	t_check "exit is 0 or 2 (got $T_RC)" test "$T_RC" = 0 -o "$T_RC" = 2
	t_check "nothing created through the symlink" test ! -e "$LA_TMP/victims/absent"

	t_case sidecar-fifo
	reset_listener "$ct"
	plant "$ct" fifo
	la_sidecar_jsym "$ct" -- exec --timeout 4000 -v 1 properties
	t_check "exit is 0 or 2 (got $T_RC)" test "$T_RC" = 0 -o "$T_RC" = 2
	t_check "JVM alive" la_alive "$ct"
	rm -f "/proc/$ct/root/tmp/.attach_pid1"
	LA_SIDECAR_BINDS=()

	t_case sidecar-tmp-is-symlink
	# The container's /tmp itself is an absolute symlink (/tmp -> /victims).
	# Walked naively from a sidecar through /proc/1/root, it would land in the
	# sidecar's own /victims; jsym must resolve it inside the container.
	la_ct_start symtmp --uid 1000 --gid 1000 --cwd / && {
		t=$LA_PID
		if nsenter -t "$t" -m -p -r /bin/sh -c 'umount -l /tmp && mv /tmp /tmp.old &&
			mkdir -m 1777 /victims && ln -s /victims /tmp'; then
			mkdir -p "$LA_TMP/victims2"
			LA_SIDECAR_BINDS=(--bind "$LA_TMP/victims2:/victims")
			la_sidecar_jsym "$t" -- exec --timeout 4000 -v 1 properties
			# The JVM itself uses that /tmp, so the attach must work: a trigger
			# or socket looked up in the sidecar's /victims would make it fail.
			t_expect_rc 0
			t_expect_out -i 'jsym\.test\.mark=symtmp'
			t_check "nothing created in the sidecar's /victims ($(ls -A "$LA_TMP/victims2"))" \
				test -z "$(ls -A "$LA_TMP/victims2")"
			t_check "JVM alive" la_alive "$t"
			LA_SIDECAR_BINDS=()
		else
			t_log "cannot replace the container's /tmp by a symlink: case not run"
		fi
	}
fi

# ---------------------------------------------------------------- read-only /tmp
t_case readonly-tmp
la_ct_start ro --uid 1000 --gid 1000 --cwd /tmp --tmp-ro && {
	t=$LA_PID
	la_jsym exec --timeout 3000 -v "$t" properties
	t_expect_rc 2
	t_expect_err -i 'read-only|EROFS'
	t_expect_err -i '/tmp'
	t_check "no SIGQUIT: no thread dump" test "$(la_dumps ro)" = 0
	t_check "JVM alive" la_alive "$t"
	left=$(ls -a "/proc/$t/root/" "/proc/$t/root/tmp" 2>/dev/null | grep '^\.attach_pid')
	t_check "no trigger left anywhere in the container ($left)" test -z "$left"
}

# ---------------------------------------------------------------- full /tmp
t_case full-tmp
la_ct_start full --uid 1000 --gid 1000 --cwd /tmp --tmp-size 64k && {
	t=$LA_PID
	dd if=/dev/zero of="/proc/$t/root/tmp/fill" bs=4k 2>/dev/null
	stat -f -c '  df| free %a of %b blocks of %S bytes' "/proc/$t/root/tmp"
	la_jsym exec --timeout 4000 -v "$t" properties
	t_log "full /tmp: exit $T_RC"
	t_check "exit is 0 or 2 (got $T_RC)" test "$T_RC" = 0 -o "$T_RC" = 2
	if [ "$T_RC" = 0 ]; then
		t_expect_out -i 'jsym\.test\.mark=full'
	else
		t_expect_err -i 'space|full|ENOSPC'
	fi
	t_check "JVM alive" la_alive "$t"
	left=$(ls -a "/proc/$t/root/tmp" 2>/dev/null | grep '^\.attach_pid')
	t_check "no trigger left ($left)" test -z "$left"
}

t_finish
