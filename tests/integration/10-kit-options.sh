#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 10-kit-options: kit_start's options take effect (--tmp-size, --tmp-ro,
# --net, --env, --cwd, --bind :ro), and teardown leaves nothing behind when
# the script using the kit fails or is interrupted.
set -euo pipefail
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, pivot_root"
rootfs=$(kit_rootfs debian)

# --tmp-size: writing past the limit fails with ENOSPC.  (fd 7 is open in
# this shell: PID 1 must inherit only stdin, stdout and stderr.)
exec 7>"$KIT_DIR/fd7"
pid=$(kit_start small "$rootfs" --tmp-size 1m -- sleep 300)
exec 7>&-
t_eq "$(kit_exec "$pid" -- ls /proc/1/fd | tr '\n' ' ')" "0 1 2 " "PID 1's descriptors"
t_eq "$(kit_exec "$pid" -- df -k --output=size /tmp | tail -n 1 | tr -d ' ')" 1024 \
	"--tmp-size 1m"
if kit_exec "$pid" -- dd if=/dev/zero of=/tmp/fill bs=64k count=32 2>"$KIT_DIR/dd.err"; then
	t_abort "--tmp-size 1m: wrote 2 MiB into /tmp"
fi
t_contains "$(cat "$KIT_DIR/dd.err")" "No space left on device" "--tmp-size 1m"
kit_stop small

# --tmp-ro: /tmp is mounted read-only, so the JVM's attach files cannot exist.
pid=$(kit_start ro "$rootfs" --tmp-ro --uid 1000 --gid 1000 -- sleep 300)
t_contains "$(kit_exec "$pid" -- findmnt -n -o OPTIONS /tmp)" "ro," "--tmp-ro"
if kit_exec "$pid" -- touch /tmp/x 2>/dev/null; then
	t_abort "--tmp-ro: /tmp is writable"
fi
kit_stop ro

# --net: its own network namespace, only lo, and lo is up.
pid=$(kit_start net "$rootfs" --net -- sleep 300)
[ "$(readlink "/proc/$pid/ns/net")" != "$(readlink /proc/self/ns/net)" ] ||
	t_abort "--net: shares the host's network namespace"
t_eq "$(kit_exec "$pid" -- sh -c "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '")" \
	lo "--net: interfaces"
t_contains "$(nsenter --target "$pid" --net ip -o link show lo)" "UP" "--net: lo up"
kit_stop net
pid=$(kit_start nonet "$rootfs" -- sleep 300)
t_eq "$(readlink "/proc/$pid/ns/net")" "$(readlink /proc/self/ns/net)" \
	"without --net: the host's network namespace"
kit_stop nonet

# --env, --cwd, --bind :ro, and a uid with no passwd entry.
mkdir "$KIT_DIR/share"
echo shared >"$KIT_DIR/share/file"
kit_start envs "$rootfs" --uid 4242 --gid 4343 --env JSYM_X=1 --env PATH=/bin:/usr/bin \
	--cwd /opt/share --bind "$KIT_DIR/share:/opt/share:ro" \
	-- sh -c 'echo "$JSYM_X|$PATH|$(pwd)|$(id -u):$(id -g)|$(cat file)"; touch x 2>/dev/null || echo ro' \
	>/dev/null
t_eq "$(kit_wait_exit envs)" 0 "env container exit"
t_eq "$(cat "$KIT_DIR/envs.log")" "$(printf '1|/bin:/usr/bin|/opt/share|4242:4343|shared\nro')" \
	"--env --cwd --bind:ro --uid --gid"

# Teardown: a script that starts a container and then fails, and one that is
# interrupted, leave no process, mount or state directory.
for how in fail term; do
	info=$KIT_DIR/teardown-$how
	JSYM_ROOT=$JSYM_ROOT bash -c '
		source "$JSYM_ROOT/tests/kit/kit.sh"
		pid=$(kit_start doomed debian -- sleep 300)
		echo "$pid $KIT_DIR $(cat "$KIT_DIR/doomed/keeper")" >"$1"
		[ "$2" = fail ] && kit_fail "deliberate failure"
		sleep 300 &
		kit_on_exit "kill $!"
		wait
	' teardown "$info" "$how" 2>"$info.err" &
	child=$!
	for ((i = 0; i < 200; i++)); do
		[ -s "$info" ] && break
		sleep 0.05
	done
	[ -s "$info" ] || t_abort "teardown-$how: container did not start: $(cat "$info.err")"
	[ "$how" = term ] && kill -TERM "$child"
	rc=0
	wait "$child" || rc=$?
	read -r dpid ddir dkeeper <"$info"
	[ "$how" = fail ] && t_eq "$rc" 1 "teardown-fail: script status"
	[ "$how" = term ] && t_eq "$rc" 143 "teardown-term: script status"
	_kit_alive "$dpid" && t_abort "teardown-$how: container pid $dpid still runs"
	_kit_alive "$dkeeper" && t_abort "teardown-$how: keeper $dkeeper still runs"
	[ ! -e "$ddir" ] || t_abort "teardown-$how: $ddir left behind"
	if findmnt -rn -o TARGET,SOURCE | grep -q jsym; then
		t_abort "teardown-$how: mounts left: $(findmnt -rn | grep jsym)"
	fi
done
t_log "pass: --tmp-size --tmp-ro --net --env --cwd --bind, teardown"
t_finish
