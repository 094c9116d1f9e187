# SPDX-License-Identifier: Apache-2.0
# tests/emu/openj9_kit.sh - helpers of the 40-openj9-*.sh scenarios (bash library).
#
#   source "$JSYM_ROOT/tests/emu/openj9_kit.sh"; j9_init
#
# The OpenJ9 emulator runs as PID 1 of a kit container (debian rootfs, own
# mount with a private /tmp, own ipc, net and pid namespaces) as uid 1000,
# with the build tree bound read-only at /opt/jsym.  The attacher runs on
# the host as root: `jsym exec` (j9_jsym) and the client driver with its
# in-process leak check (j9_client, `openj9_client -C`).  Checks, cases and
# the summary are tests/lib's (t_check, t_expect_rc, t_case, t_finish...).
#
#   j9_init                      root + kit + built artifacts, or skip (77)
#   j9_start NAME [kit opts] -- [emu args]   start; sets J9_PID, waits for "ready"
#   j9_jsym ARGS...  j9_client ARGS...       run; T_RC, T_OUT, T_ERR (t_run)
#   j9_emu_log PID               the emulator's log
#   j9_clean PID COMMONDIR       nothing of the attacher left (files, sem, locks)

source "$JSYM_ROOT/tests/lib/lib.sh"

J9_EMU=/opt/jsym/tests/emu/openj9_emu
J9_AGENT=/opt/jsym/tests/emu/libtest_agent.so

j9_init() {
	local f
	t_need_root "namespaces, pivot_root"
	for f in jsym tests/emu/openj9_emu tests/emu/libtest_agent.so tests/emu/libj9vm29.so \
		tests/emu/openj9_client kit/jsym-kit; do
		if [ ! -x "$JSYM_BUILD/$f" ] && [ ! -f "$JSYM_BUILD/$f" ]; then
			t_skip "$JSYM_BUILD/$f not built (run make first)"
		fi
	done
	J9_ROOTFS=$(kit_rootfs debian) || t_abort "no debian rootfs"
}

# j9_start NAME [kit_start options] -- [emulator args]
j9_start() {
	local name=$1 kopts=() i
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		kopts+=("$1")
		shift
	done
	shift
	J9_PID=$(kit_start "$name" "${J9_ROOTFS_OVERRIDE:-$J9_ROOTFS}" --net --uid 1000 --gid 1000 \
		--bind "${J9_BIND:-$JSYM_BUILD}:/opt/jsym:ro" "${kopts[@]}" -- \
		"$J9_EMU" "$@" --log /tmp/emu.log) || t_abort "cannot start $name"
	for ((i = 0; i < 200; i++)); do
		grep -q '^ready' "/proc/$J9_PID/root/tmp/emu.log" 2>/dev/null && return 0
		sleep 0.05
	done
	cat "/proc/$J9_PID/root/tmp/emu.log" 2>/dev/null
	t_abort "emulator $name (pid $J9_PID) not ready after 10 s"
}

j9_jsym() {
	t_run --as "jsym exec $*" timeout 60 "$JSYM_BUILD/jsym" exec "$@"
}

j9_client() {
	t_run --as "openj9_client -C $*" timeout 60 "$JSYM_BUILD/tests/emu/openj9_client" -C "$@"
}

j9_emu_log() {
	cat "/proc/$1/root/tmp/emu.log" 2>/dev/null
}

# Value of semaphore #0 of the set the emulator logged, in its ipc ns.
j9_semval() {
	local pid=$1 id
	id=$(j9_emu_log "$pid" | sed -n 's/^semaphore .*semid=\([0-9]*\) .*/\1/p' | head -n 1)
	[ -n "$id" ] || return 1
	nsenter --target "$pid" --ipc -- ipcs -s -i "$id" |
		awk '/^semnum/ {t = 1; next} t && $1 == "0" {print $2; exit}'
}

# Are there POSIX locks on the inode of FILE (host view of the container)?
_j9_locked() {
	local ino
	ino=$(stat -c %i "$1" 2>/dev/null) || return 1
	grep -qE "POSIX .*:$ino " /proc/locks
}

# j9_clean PID COMMONDIR [EXTRA_ALLOWED_REGEX]: only the VM's own files in
# the common dir, semaphore #0 at 0, no lock left on _attachlock or any
# attachNotificationSync.
j9_clean() {
	local pid=$1 common=/proc/$1/root$2 allow=${3:-^$} extra f v
	extra=$(cd "$common" 2>/dev/null && find . -mindepth 1 \( -type d -printf '%P/\n' \) -o -printf '%P\n' |
		grep -vE '^(_attachlock|_controller|_notifier|[^/]+/|[^/]+/attachInfo|[^/]+/attachNotificationSync)$' |
		grep -vE "$allow")
	t_check "nothing but the VMs' files in $2 (${extra//$'\n'/ })" test -z "$extra"
	t_check "no replyInfo left" test -z "$(find "$common" -name replyInfo 2>/dev/null)"
	v=$(j9_semval "$pid")
	t_check "semaphore #0 back to 0 (is ${v:-?})" test "$v" = 0
	for f in "$common/_attachlock" "$common"/*/attachNotificationSync; do
		[ -e "$f" ] || continue
		t_check "no lock left on ${f#"$common"/}" eval '! _j9_locked "$f"'
	done
}
