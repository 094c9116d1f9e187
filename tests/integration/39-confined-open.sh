#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 39-confined-open.sh - issue 24 rows 1 to 3: what a fake JVM or any local
# user plants at a path jsym reads is refused before it is opened, and no
# read from a target can hang jsym.  Every path a target names goes through
# one confined open (common/confine.h); this drives it from the commands.
#
#   row 1  a fake JVM maps .../lib/server/libjvm.so, which is then replaced
#          by a character device (mknod c 1 3), by a FIFO, or (as uid 1000
#          with unshare -Urm) has a device bound over it: `jsym list`,
#          `jsym map` and `jsym attach` must not open it (inotify IN_OPEN),
#          and the FIFO must not block attach
#   row 2  uid 1000, unshare -Urmu, an empty host name and a device bound
#          over /etc/hostname: `jsym list` must not open it
#   row 3  a FUSE file system that never answers open or read, mounted
#          over the fake JVM's release file: `jsym list`, `exec` and
#          `attach` end within their limit, the fake is still listed, and
#          no jsym is left in D state; the same FUSE file system, a
#          directory, as the lower layer of an overlay (mountinfo says
#          "overlay") over a fake JVM's JDK and over a real JVM's /tmp:
#          list, attach, exec, map (--stdout, --follow) and resolve --pid
#          each end by themselves
#   budget `jsym list` gives each process a time budget: one whose /proc
#          read never returns (an LD_PRELOAD shim) is listed as stalled
#
# Every case fails with the jsym of main before issue 24 (d4c7e2f): the
# planted files opened, attach blocked on the FIFO, list hung on the FUSE
# file and on the stalled /proc read, a killed jsym left in D state until
# the cleanup killed the FUSE server.  The two overlay cases fail with
# 7b82d44 (exec, map, resolve --pid killed after 150 s, in D state).
#
# Fast: no container, and no JDK but for the /tmp overlay case (fakes:
# sleep with a copy of libm preloaded as libjvm.so, as 37-cli-no-jvm
# does).  Each command runs under a hang guard of LA_LIMIT seconds (the
# overlay cases: STALL_KILL, their fourteen commands at once).  The FUSE
# servers are unmounted and killed in the cleanup, which also ends any
# request a hung jsym still waits on.
source "$(dirname "$0")/lib-attach.bash"
la_init
t_need_root "mknod, mount namespaces, FUSE"
LA_LIMIT=20

libm=$(ldconfig -p | awk '/libm\.so\.6 .*x86-64/ {print $NF; exit}')
[ -n "$libm" ] || t_skip "no x86-64 libm.so.6 to stand in for libjvm.so"

# make_jdk DIR: DIR/lib/server/libjvm.so, no release (so jsym reads the
# version from libjvm.so itself: target.c's read_libjvm_version)
make_jdk() {
	mkdir -p "$1/lib/server"
	cp "$libm" "$1/lib/server/libjvm.so"
	chmod -R a+rX "$1"
}

# fake_root JDK: a root-owned fake JVM in a private mount namespace, its
# pid in $fake (not run in $(...): LA_PIDS must keep it for the cleanup).
fake_root() {
	(exec env LD_PRELOAD="$1/lib/server/libjvm.so" unshare -m sleep 600) \
		</dev/null >/dev/null 2>&1 &
	fake=$!
	LA_PIDS+=("$fake")
	wait_maps "$fake" "$1/lib/server/libjvm.so"
}

# wait_maps PID PATH: until PID maps PATH
wait_maps() {
	local i
	for i in $(seq 50); do
		grep -qF "$2" "/proc/$1/maps" 2>/dev/null && return 0
		sleep 0.1
	done
	t_abort "the fake JVM $1 did not map $2"
}

# fake_user JDK SCRIPT: as uid 1000 in a user, mount and UTS namespace of
# its own (unshare -Urmu), start the fake JVM, then run SCRIPT there (with
# $lib set): what any local user can do.  The fake's pid in $fake.
shared=$LA_TMP/shared
mkdir -m 1777 "$shared"
fake_user() {
	local pidfile=$shared/fake.$RANDOM
	setpriv --reuid 1000 --regid 1000 --clear-groups unshare -Urmu sh -c '
		lib=$1/lib/server/libjvm.so
		LD_PRELOAD=$lib sleep 600 </dev/null >/dev/null 2>&1 &
		echo $! >"$2.tmp" && mv "$2.tmp" "$2"
		i=0; until grep -qF "$lib" /proc/$!/maps 2>/dev/null || [ $i -gt 50 ]; do sleep 0.1; i=$((i+1)); done
		eval "$3" || echo "plant failed: $3" >&2
		echo planted >"$2.done"
		wait' sh "$1" "$pidfile" "$2" </dev/null >"$LA_TMP/fake_user.log" 2>&1 &
	LA_PIDS+=("$!")
	for _ in $(seq 100); do [ -f "$pidfile.done" ] && break; sleep 0.1; done
	[ -f "$pidfile.done" ] || t_abort "the uid 1000 fake JVM did not start: $(cat "$LA_TMP/fake_user.log")"
	fake=$(cat "$pidfile")
	LA_PIDS+=("$fake")
}

# no_open WHAT: the watched file was not opened by what ran since t_watch_open
no_open() {
	t_eq "$(t_watch_result)" unopened "$1"
}

# A device node of our own (/dev/null's numbers: harmless even if opened),
# where no other process on the machine opens it, so IN_OPEN is jsym's.
node=$LA_TMP/node
mknod -m 0666 "$node" c 1 3

# ------------------------------------------- row 1: libjvm.so replaced
t_case libjvm-replaced-by-device
jdk=$LA_TMP/jdk-dev
make_jdk "$jdk"
fake_root "$jdk"
rm "$jdk/lib/server/libjvm.so"
mknod -m 0666 "$jdk/lib/server/libjvm.so" c 1 3
for cmd in "list" "map $fake" "attach --agent-dir $JSYM_ROOT $fake"; do
	t_watch_open "$jdk/lib/server/libjvm.so"
	# shellcheck disable=SC2086 # cmd is words
	la_jsym $cmd
	no_open "jsym $cmd does not open the device at libjvm.so"
done
la_jvm_stop "$fake"

t_case libjvm-replaced-by-fifo
jdk=$LA_TMP/jdk-fifo
make_jdk "$jdk"
fake_root "$jdk"
rm "$jdk/lib/server/libjvm.so"
mkfifo -m 0666 "$jdk/lib/server/libjvm.so"
for cmd in "list" "map $fake" "attach --agent-dir $JSYM_ROOT $fake"; do
	t_watch_open "$jdk/lib/server/libjvm.so"
	# shellcheck disable=SC2086
	la_jsym $cmd
	t_check "jsym $cmd ends within ${LA_LIMIT}s (a FIFO's open blocks)" \
		test "$T_RC" != 124 -a "$T_RC" != 137
	no_open "jsym $cmd does not open the FIFO at libjvm.so"
done
la_jvm_stop "$fake"

t_case libjvm-device-bound-by-uid-1000
jdk=$LA_TMP/jdk-bind
make_jdk "$jdk"
fake_user "$jdk" "mount --bind '$node' \"\$lib\""
t_check "uid 1000 bound the device over libjvm.so (in its namespace)" \
	test "$(stat -c %t:%T "/proc/$fake/root$jdk/lib/server/libjvm.so")" = 1:3
for cmd in "list" "map $fake" "attach --agent-dir $JSYM_ROOT $fake"; do
	t_watch_open "$node"
	# shellcheck disable=SC2086
	la_jsym $cmd
	no_open "jsym $cmd does not open the device bound over libjvm.so"
done
la_jvm_stop "$fake"

# A regular file renamed over the libjvm.so the fake maps (a package
# upgrade does that; so can a target that wants another file read as its
# libjvm.so), or bound over it by uid 1000 in a mount namespace of its own
# (maps then shows the path unchanged, not "(deleted)"): not the mapped
# file, so list (the version) and map (the symbols) never open it, and map
# says why; attach (the ELF machine) stops earlier with these fakes.  Main
# before this case (fd9952e) opened it in both (list showed 99.0.1).
other=$LA_TMP/other-libjvm.so
cp "$libm" "$other"
printf 'OpenJDK 64-Bit Server VM (99.0+1) for linux-amd64 JRE (99.0.1+1), built\0' >>"$other"
chmod a+r "$other"
# not_the_mapped WHAT WATCHED: list and map do not open WATCHED
not_the_mapped() {
	local cmd
	for cmd in "list" "map $fake" "attach --agent-dir $JSYM_ROOT $fake"; do
		t_watch_open "$2"
		# shellcheck disable=SC2086
		la_jsym $cmd
		no_open "jsym $cmd does not open the file $1 libjvm.so"
		case $cmd in
		list) t_check "list shows no version read from the other file" \
			bash -c "! grep -E '^$fake ' '$KIT_DIR/t_run.out' | grep -q '99\.0\.1'" ;;
		map*) t_check "map, as root, reads the mapping itself (map_files/), not the path" \
			bash -c "! grep -q 'is not the file it mapped' '$KIT_DIR/t_run.err'" ;;
		esac
	done
	# without CAP_SYS_ADMIN and CAP_CHECKPOINT_RESTORE (a DaemonSet, a
	# sidecar) map_files/ is closed: by path, and the other file refused
	t_watch_open "$2"
	t_run --as "jsym map $fake (no CAP_SYS_ADMIN)" timeout -k 3 30 \
		setpriv --bounding-set -sys_admin,-checkpoint_restore "$JSYM" map "$fake"
	no_open "jsym map without CAP_SYS_ADMIN does not open the file $1 libjvm.so"
	t_contains "$(cat "$KIT_DIR/t_run.err")" "is not the file it mapped" \
		"map without CAP_SYS_ADMIN names the cause"
}

t_case libjvm-replaced-by-another-file
jdk=$LA_TMP/jdk-renamed
make_jdk "$jdk"
fake_root "$jdk"
cp "$other" "$jdk/lib/server/libjvm.so.new"
mv "$jdk/lib/server/libjvm.so.new" "$jdk/lib/server/libjvm.so"
not_the_mapped "renamed over" "$jdk/lib/server/libjvm.so"
la_jvm_stop "$fake"

t_case libjvm-other-file-bound-by-uid-1000
jdk=$LA_TMP/jdk-bound-file
make_jdk "$jdk"
fake_user "$jdk" "mount --bind '$other' \"\$lib\""
t_check "uid 1000 bound another file over libjvm.so (in its namespace)" \
	cmp -s "$other" "/proc/$fake/root$jdk/lib/server/libjvm.so"
not_the_mapped "bound over" "$other"
la_jvm_stop "$fake"

# ------------------------------------------- row 2: /etc/hostname
t_case hostname-device-bound-by-uid-1000
jdk=$LA_TMP/jdk-host
make_jdk "$jdk"
fake_user "$jdk" "/usr/bin/python3 -c 'import socket; socket.sethostname(\"\")' &&
	mount --bind '$node' /etc/hostname"
t_check "the fake's host name is empty" test -z "$(nsenter -t "$fake" -u uname -n)"
t_check "a device is bound over its /etc/hostname" \
	test "$(stat -c %t:%T "/proc/$fake/root/etc/hostname")" = 1:3
t_watch_open "$node"
la_jsym list
t_expect_rc 0
t_check "the fake JVM is listed" grep -qE "^$fake +" "$KIT_DIR/t_run.out"
no_open "jsym list does not open the device bound over /etc/hostname"
la_jvm_stop "$fake"

# ------------------------------------------- a time budget per process
t_case list-goes-on-past-a-stalled-process
# What the confined open cannot refuse, the kernel's own /proc files, can
# still block (a read of cmdline waits for the process's mmap lock); here a
# shim makes jsym's open of one fake's cmdline never return.  `jsym list`
# gives each process 3 s in a child of its own: the fake is listed as
# stalled, and the other fake JVM is still listed.
shim=$JSYM_BUILD/tests/integration/libjsymstall.so
if [ ! -f "$shim" ]; then
	t_skip_case "no $shim (make)"
else
	jdk=$LA_TMP/jdk-a
	make_jdk "$jdk"
	fake_root "$jdk"
	stalled=$fake
	jdk=$LA_TMP/jdk-b
	make_jdk "$jdk"
	fake_root "$jdk"
	start=$(date +%s)
	t_run --as "jsym list (cmdline of $stalled stalls)" timeout -k 3 "$LA_LIMIT" \
		env LD_PRELOAD="$shim" JSYM_STALL_PID="$stalled" "$JSYM" list
	la_hung
	t_expect_rc 0
	t_check "the stalled process is listed as such" \
		grep -qE "^$stalled +- +- +stalled " "$KIT_DIR/t_run.out"
	t_check "the other fake JVM is listed" grep -qE "^$fake +[0-9]+ +0 +HotSpot" "$KIT_DIR/t_run.out"
	t_check "within the budget and a margin ($(($(date +%s) - start)) s)" \
		test $(($(date +%s) - start)) -lt 10
	t_run --as "jsym list --json (cmdline of $stalled stalls)" timeout -k 3 "$LA_LIMIT" \
		env LD_PRELOAD="$shim" JSYM_STALL_PID="$stalled" "$JSYM" list --json
	la_hung
	t_check "--json: valid, the process has kind stalled" python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))
sys.exit(0 if [r for r in rows if r["pid"] == int(sys.argv[2]) and r["kind"] == "stalled"] else 1)' \
		"$KIT_DIR/t_run.out" "$stalled"
	la_jvm_stop "$stalled"
	la_jvm_stop "$fake"
fi

# ------------------------------------------- row 3: a FUSE file that never answers
t_case release-on-fuse-that-never-answers
if ! /usr/bin/python3 -c 'import fusepy' 2>/dev/null || [ ! -e /dev/fuse ]; then
	t_skip_case "no FUSE here (/dev/fuse, python3-fusepy: bash mk/deps.sh test)"
else
	fusedir=$(mktemp -d /tmp/jsym-fuse-test.XXXXXX)
	chmod 0755 "$fusedir"
	jdk=$fusedir/jdk
	make_jdk "$jdk"
	echo 'JAVA_VERSION="17.0.99"' >"$jdk/release"
	# not a job of this shell (la_cleanup's `wait` would wait for it)
	fuse_pid=$( (/usr/bin/python3 "$JSYM_ROOT/tests/lib/fuse_silent.py" "$jdk/release" open \
		</dev/null >"$LA_TMP/fuse.log" 2>&1 & echo $!) )
	# after the fakes are gone (la_cleanup ran first): lazy unmount, then the
	# server killed, which also fails every request still waiting on it
	kit_on_exit "umount -l '$jdk/release' 2>/dev/null; kill -KILL $fuse_pid 2>/dev/null;
		rm -rf '$fusedir'"
	for _ in $(seq 50); do grep -q ' - fuse jsym-silent ' /proc/self/mountinfo && break; sleep 0.1; done
	t_check "the silent FUSE file system is over the fake's release" \
		grep -qF "$jdk/release ro" /proc/self/mountinfo
	fake_root "$jdk"
	start=$(date +%s)
	la_jsym list
	t_expect_rc 0
	t_check "the fake JVM is still listed" grep -qE "^$fake +" "$KIT_DIR/t_run.out"
	la_jsym exec --timeout 1000 --read-timeout 1000 "$fake" properties
	la_jsym attach --agent-dir "$JSYM_ROOT" --timeout 2000 "$fake"
	end=$(date +%s)
	t_check "the four commands took under 60 s in all ($((end - start)) s)" test $((end - start)) -lt 60
	stuck=$(ps -eo pid,stat,wchan:32,args | awk -v j="$JSYM" '$2 ~ /^D/ && index($0, j)')
	t_eq "$stuck" "" "no jsym left in D state"
	la_jvm_stop "$fake"
fi

# A name jsym only looks at (stat), never opens: HotSpot's socket
# .java_pid<pid> in the JVM's /tmp, here a FUSE file system that answers
# nothing after its start (not even a stat), mounted in the fake's own
# mount namespace.  exec and attach look for the socket with confine_stat,
# which refuses the FUSE mount from mountinfo before any stat reaches it,
# and end at once ("will not signal": the fake does not catch SIGQUIT).
# Main before this case (fd9952e) did fstatat(".java_pid<pid>") and hung
# in the FUSE request until the hang guard killed it.
t_case socket-name-on-fuse-that-never-answers
if ! /usr/bin/python3 -c 'import fusepy' 2>/dev/null || [ ! -e /dev/fuse ]; then
	t_skip_case "no FUSE here (/dev/fuse, python3-fusepy: bash mk/deps.sh test)"
else
	jdk=$LA_TMP/jdk-sockfuse
	make_jdk "$jdk"
	fake_root "$jdk"
	sock=/tmp/.java_pid$fake
	nsenter -t "$fake" -m touch "$sock"
	fuse2_pid=$( (nsenter -t "$fake" -m /usr/bin/python3 "$JSYM_ROOT/tests/lib/fuse_silent.py" \
		"$sock" all </dev/null >"$KIT_DIR/fuse2.log" 2>&1 & echo $!) )
	kit_on_exit "nsenter -t $fake -m umount -l '$sock' 2>/dev/null; kill -KILL $fuse2_pid 2>/dev/null;
		rm -f '$sock'"
	for _ in $(seq 100); do grep -qF " $sock " "/proc/$fake/mountinfo" && break; sleep 0.1; done
	t_check "the silent FUSE file system is over the fake's $sock" \
		grep -qF " $sock ro,nosuid,nodev,relatime - fuse jsym-silent " "/proc/$fake/mountinfo"
	LA_LIMIT=10
	la_jsym exec --timeout 1000 --read-timeout 1000 "$fake" properties
	t_contains "$(cat "$KIT_DIR/t_run.err")" "will not signal it" "exec looked past the FUSE socket name"
	la_jsym attach --agent-dir "$JSYM_ROOT" --timeout 2000 "$fake"
	t_contains "$(cat "$KIT_DIR/t_run.err")" "will not signal it" "attach looked past the FUSE socket name"
	LA_LIMIT=20
	stuck=$(ps -eo pid,stat,wchan:32,args | awk -v j="$JSYM" '$2 ~ /^D/ && index($0, j)')
	t_eq "$stuck" "" "no jsym left in D state"
	kill -KILL "$fuse2_pid" 2>/dev/null
	nsenter -t "$fake" -m umount -l "$sock" 2>/dev/null
	la_jvm_stop "$fake"
	rm -f "$sock"
fi

# ------------------------------------------- row 3: FUSE below an overlay
# A FUSE directory that never answers, as the lower layer of an overlay:
# mountinfo says "overlay", which the confined open allows, and every name
# the overlay's other layer lacks is looked up in the FUSE layer, where
# the request waits in the kernel, past SIGKILL (D state) once the server
# has it.  So no command may do a target's file work in its own process:
# list gives each process a budget, attach a limited worker, and exec,
# map (--stdout, --follow) and resolve --pid a watched child that is
# killed when it overruns ("did not end within"); what it leaves in D
# state must not hold jsym's stdout (`jsym map --stdout PID | ...` would
# not end).  Two traps, seven commands on each (and map --stdout into a
# pipe), all at once, each under `timeout -s KILL`, outside this shell's
# jobs (la_cleanup's wait would hang on one in D state), so the cases
# cost the longest limit once (strace showed where each command first
# reaches the trap):
#   overlay-over-fuse-...      over a fake JVM's JDK: every command looks
#                              up the JDK's release first (target_open)
#   tmp-overlay-over-fuse-...  over a real JVM's /tmp: list and map
#                              --stdout never look there; exec and attach
#                              stop at .java_pid<pid>, map at perf-<pid>.map
#                              after reading the JVM, map --follow at
#                              jsym-<pid>.journal after its first scan,
#                              resolve at jsym-<pid>.journal
# Ending the FUSE servers frees what is still stuck; no jsym is left.
# Main before these cases (7b82d44): exec, map, map --stdout (on the JDK),
# map --follow and resolve --pid killed by the KILL bound, in D state.
STALL_KILL=150
have_ovl_fuse() {
	/usr/bin/python3 -c 'import fusepy' 2>/dev/null && [ -e /dev/fuse ] &&
		grep -qw overlay /proc/filesystems
}
no_ovl_fuse="no FUSE or overlayfs here (/dev/fuse, python3-fusepy: bash mk/deps.sh test; modprobe overlay)"

# silent_overlay TAG PID DIR: in PID's own mount namespace, fuse_silent.py
# dir on $LA_TMP/TAG-silent, and over DIR a read-only overlay of
# $LA_TMP/TAG-empty above it; silent_end's arguments, for the case's own
# end and for the exit cleanup, in $silent_args.
silent_overlay() {
	local tag=$1 pid=$2 dir=$3 ns server
	ns=$(readlink "/proc/$pid/ns/mnt")
	[ "$ns" != "$(readlink /proc/self/ns/mnt)" ] ||
		t_abort "$pid shares this shell's mount namespace: not mounting over $dir"
	mkdir "$LA_TMP/$tag-silent" "$LA_TMP/$tag-empty"
	server=$( (nsenter -t "$pid" -m /usr/bin/python3 "$JSYM_ROOT/tests/lib/fuse_silent.py" \
		"$LA_TMP/$tag-silent" dir </dev/null >"$KIT_DIR/$tag-fuse.log" 2>&1 & echo $!) )
	silent_args="$server '$ns' '$dir' '$LA_TMP/$tag-silent'"
	kit_on_exit "silent_end $silent_args"
	for _ in $(seq 100); do
		grep -qF " $LA_TMP/$tag-silent " "/proc/$pid/mountinfo" && break
		sleep 0.1
	done
	nsenter -t "$pid" -m mount -t overlay jsym-silent-overlay \
		-o "ro,lowerdir=$LA_TMP/$tag-empty:$LA_TMP/$tag-silent" "$dir"
	t_check "over $dir, in $pid's namespace, an overlay with the silent FUSE directory below" \
		grep -qE " $dir [^ ]+ .*- overlay jsym-silent-overlay " "/proc/$pid/mountinfo"
}

# silent_end PID NS DIR SILENT: if the server PID is still in the mount
# namespace NS (never the host's DIR), unmount the overlay DIR and the FUSE
# SILENT there and end the server, which fails every request still waiting
# on it.  The mounts would also go with the namespace, once the server and
# the JVM are gone.
silent_end() {
	[ "$(readlink "/proc/$1/ns/mnt" 2>/dev/null)" = "$2" ] || return 0
	nsenter -t "$1" -m umount -l "$3" 2>/dev/null
	nsenter -t "$1" -m umount -l "$4" 2>/dev/null
	kill -KILL "$1" 2>/dev/null
	return 0
}

# bg_jsym TAG NAME ARGS...: $LA_TMP/jsym-TAG ARGS in the background, under
# `timeout -s KILL $STALL_KILL`, not a job of this shell; its stdout,
# stderr, seconds and status in $KIT_DIR/TAG.NAME.{out,err,secs,rc};
# TAG.NAME added to bg_started
bg_started=()
bg_jsym() {
	local f=$KIT_DIR/$1.$2 bin=$LA_TMP/jsym-$1
	bg_started+=("$1.$2")
	shift 2
	( (t0=$(date +%s)
	   timeout -s KILL "$STALL_KILL" "$bin" "$@" </dev/null >"$f.out" 2>"$f.err"
	   rc=$?
	   echo $(($(date +%s) - t0)) >"$f.secs"
	   echo "$rc" >"$f.rc.tmp" && mv "$f.rc.tmp" "$f.rc") 2>/dev/null & )
}

# bg_jsym_pipe TAG NAME ARGS...: the same with jsym's stdout a pipe, as
# in `jsym map --stdout PID | ...`: the status is written once the reader
# has seen the pipe's end, so never while a process jsym left (in D state,
# say) still holds it
bg_jsym_pipe() {
	local f=$KIT_DIR/$1.$2 bin=$LA_TMP/jsym-$1
	bg_started+=("$1.$2")
	shift 2
	( (t0=$(date +%s)
	   timeout -s KILL "$STALL_KILL" "$bin" "$@" </dev/null 2>"$f.err" | cat >"$f.out"
	   rc=${PIPESTATUS[0]}
	   echo $(($(date +%s) - t0)) >"$f.secs"
	   echo "$rc" >"$f.rc.tmp" && mv "$f.rc.tmp" "$f.rc") 2>/dev/null & )
}

# bg_seven TAG PID: the seven commands on PID
bg_seven() {
	cp "$JSYM" "$LA_TMP/jsym-$1"
	bg_jsym "$1" list list
	bg_jsym "$1" attach attach --agent-dir "$JSYM_ROOT" --timeout 2000 "$2"
	bg_jsym "$1" exec exec --timeout 1000 --read-timeout 1000 "$2" properties
	bg_jsym "$1" map map "$2"
	bg_jsym "$1" map-stdout map --stdout "$2"
	bg_jsym "$1" map-follow map --follow "$2"
	bg_jsym "$1" resolve resolve --pid "$2" 0x1234
}

# bg_collect TAG NAME: T_RC, T_OUT, T_ERR from one background jsym, which
# must have ended by itself (TAG.NAME.unended: not before the servers did)
bg_collect() {
	local f=$KIT_DIR/$1.$2 rc
	rc=$(cat "$f.rc" 2>/dev/null) || rc=none
	[ ! -f "$f.unended" ] || rc=none
	t_collect "$rc" "$f.out" "$f.err" "jsym $2 ($(cat "$f.secs" 2>/dev/null || echo '?') s)"
	t_check "jsym $2 ended by itself (not killed at ${STALL_KILL}s; nothing left holding its output)" \
		test "$T_RC" != 137 -a "$T_RC" != none
}

# bg_watched TAG [map-stdout]: exec, map, map --follow, resolve --pid (and
# map --stdout) exit 2 saying what did not end in time
bg_watched() {
	local tag=$1 n
	shift
	for n in exec map "$@" map-follow resolve; do
		bg_collect "$tag" "$n"
		t_expect_rc 2
		t_contains "$T_ERR" "did not end within" "$n says what did not end in time"
	done
}

# bg_gone TAG: no process of $LA_TMP/jsym-TAG is left
bg_gone() {
	for _ in $(seq 50); do pgrep -f "^$LA_TMP/jsym-$1 " >/dev/null || break; sleep 0.1; done
	t_eq "$(pgrep -af "^$LA_TMP/jsym-$1 ")" "" "no jsym left once the FUSE server is gone"
}

t_case overlay-over-fuse-that-never-answers
# over the fake's JDK, after it mapped libjvm.so (its maps still name the
# file below)
ovl_jdk=
if ! have_ovl_fuse; then
	t_skip_case "$no_ovl_fuse"
else
	jdk=$LA_TMP/jdk-ovl
	make_jdk "$jdk"
	fake_root "$jdk"
	silent_overlay jdk "$fake" "$jdk"
	ovl_jdk=$silent_args
	t_check "the fake's maps still name libjvm.so there" grep -qF "$jdk/lib/server/libjvm.so" "/proc/$fake/maps"
	bg_seven jdk "$fake"
	bg_jsym_pipe jdk map-pipe map --stdout "$fake"
fi

t_case tmp-overlay-over-fuse-that-never-answers
# over the /tmp of a JVM (no hsperfdata, which it would remove there at
# its exit) in a mount namespace of its own, after it started
ovl_tmp=
home=$(t_jdks | awk 'NR == 1 {print $1}')
if ! have_ovl_fuse; then
	t_skip_case "$no_ovl_fuse"
elif [ -z "$home" ] || ! classes=$(kit_java_build 2>/dev/null); then
	t_skip_case "no HotSpot JDK with javac under /usr/lib/jvm"
else
	jvm=$( (cd "$LA_TMP" && exec env --default-signal=INT,QUIT unshare -m "$home/bin/java" \
		-XX:-UsePerfData -Xmx64m -XX:TieredStopAtLevel=1 -Xss512k -XX:+UseSerialGC \
		-cp "$classes" AttachTarget 300 ovl-tmp) </dev/null >"$LA_TMP/ovl-tmp.out" \
		2>"$LA_TMP/ovl-tmp.err" & echo $!)
	kit_on_exit "kill -KILL $jvm 2>/dev/null"
	for _ in $(seq 300); do grep -q '^attach-target: started' "$LA_TMP/ovl-tmp.out" && break; sleep 0.1; done
	if ! grep -q '^attach-target: started' "$LA_TMP/ovl-tmp.out"; then
		t_fail "the JVM did not start: $(tail -n 5 "$LA_TMP/ovl-tmp.err")"
	else
		silent_overlay tmp "$jvm" /tmp
		ovl_tmp=$silent_args
		bg_seven tmp "$jvm"
	fi
fi

# Wait for both sets (150 s with the jsym of 7b82d44, about the 60 s
# map limit once every command has one), then end both servers.
for _ in $(seq $((STALL_KILL + 20))); do
	left=0
	for f in "${bg_started[@]}"; do [ -f "$KIT_DIR/$f.rc" ] || left=1; done
	[ $left = 0 ] && break
	sleep 1
done
for f in "${bg_started[@]}"; do [ -f "$KIT_DIR/$f.rc" ] || : >"$KIT_DIR/$f.unended"; done
stuck=$(ps -eo pid,stat,wchan:32,args | awk -v j="$LA_TMP/jsym-" '$2 ~ /^D/ && index($0, j)')
[ -z "$stuck" ] || t_log "jsym in D state until the FUSE servers end:
$stuck"
[ -z "$ovl_jdk" ] || eval "silent_end $ovl_jdk"
[ -z "$ovl_tmp" ] || eval "silent_end $ovl_tmp"

if [ -n "$ovl_jdk" ]; then
	t_case overlay-over-fuse-that-never-answers
	bg_collect jdk list
	t_expect_rc 0
	t_check "list shows the fake as stalled (its release lookup never returns)" \
		grep -qE "^$fake +- +- +stalled " "$KIT_DIR/jdk.list.out"
	bg_collect jdk attach
	t_check "attach failed" test "$T_RC" != 0
	t_expect_err "^jsym: $fake: .*(stopped after|stalled|did not end within)"
	bg_watched jdk map-stdout
	# what the watch leaves behind in D state must not hold jsym's stdout
	bg_collect jdk map-pipe
	t_expect_rc 2
	t_contains "$T_ERR" "did not end within" "map --stdout into a pipe says what did not end in time"
	bg_gone jdk
	la_jvm_stop "$fake"
fi

if [ -n "$ovl_tmp" ]; then
	t_case tmp-overlay-over-fuse-that-never-answers
	bg_collect tmp list
	t_expect_rc 0
	t_check "list shows the JVM in full (it does not look in /tmp)" \
		grep -qE "^$jvm +[0-9]+ +0 +HotSpot +[0-9]" "$KIT_DIR/tmp.list.out"
	bg_collect tmp map-stdout
	t_expect_rc 0
	t_check "map --stdout printed the map (it does not write in /tmp)" test -s "$KIT_DIR/tmp.map-stdout.out"
	bg_collect tmp attach
	t_check "attach failed" test "$T_RC" != 0
	t_expect_err "^jsym: $jvm: .*(stopped after|stalled|did not end within)"
	bg_watched tmp
	bg_gone tmp
	kill -KILL "$jvm" 2>/dev/null
fi

t_finish
