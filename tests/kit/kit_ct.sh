# SPDX-License-Identifier: Apache-2.0
# tests/kit/kit_ct.sh - start, enter, stop containers; sidecars.
# Sourced by tests/kit/kit.sh; not meant to be sourced alone.
#
# State of container NAME: $KIT_DIR/NAME/ holds `keeper` (pid of the
# jsym-kit process that reaps it), `pid` (host pid of its PID 1, written once
# CMD has been exec'd), `exit` (its status once it ended), and the mountpoint
# directories used inside its mount namespace.  Files, not variables, because
# callers run kit_start in $(...) subshells.

# A ROOTFS argument may be a directory or a kind name (then kit_rootfs).
_kit_rootfs_arg() {
	if [ -d "$1" ]; then
		echo "$1"
	else
		kit_rootfs "$1"
	fi
}

# kit_start NAME ROOTFS [options] -- CMD [ARGS...]
#   Start CMD as PID 1 of a new container; print its host PID (only that).
#   ROOTFS: a directory (from kit_rootfs) or a kind name.
#   Options: --uid U --gid G (numeric, no passwd entry needed; default 0:0)
#            --cwd DIR  --bind HOST:CT[:ro] (repeatable)  --env K=V (repeatable)
#            --log FILE (default $KIT_DIR/NAME.log)  --net (own net ns, lo up)
#            --tmp-size SIZE (tmpfs size=, e.g. 1m)  --tmp-ro  --tmp-noexec
#            --userns 0:HOST:COUNT (rootless: a new user namespace owns the
#              others, container ids 0.. are host ids HOST..; --uid/--gid
#              are the container's ids)
#   Returns once CMD runs after pivot_root and the uid switch.
kit_start() {
	local name=${1:-} rootfs=${2:-} log="" d keeper i pid alive
	local args=()
	[ $# -ge 2 ] || kit_fail "usage: kit_start NAME ROOTFS [options] -- CMD..."
	shift 2
	[[ $name =~ ^[A-Za-z0-9_.-]+$ ]] || kit_fail "kit_start: bad container name '$name'"
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		case $1 in
		--uid | --gid | --cwd | --bind | --env | --tmp-size | --userns)
			[ $# -ge 2 ] || kit_fail "kit_start: $1 needs a value"
			args+=("$1" "$2")
			shift 2
			;;
		--log)
			log=$2
			shift 2
			;;
		--tmp-ro | --tmp-noexec | --net)
			args+=("$1")
			shift
			;;
		*) kit_fail "kit_start: unknown option '$1'" ;;
		esac
	done
	[ "${1:-}" = -- ] && [ $# -ge 2 ] || kit_fail "kit_start $name: no command after --"
	shift
	rootfs=$(_kit_rootfs_arg "$rootfs") || exit 1
	_kit_make "$KIT_HELPER"
	d=$KIT_DIR/$name
	mkdir "$d" 2>/dev/null || kit_fail "kit_start: container '$name' already exists"
	log=${log:-$KIT_DIR/$name.log}
	"$KIT_HELPER" start --name "$name" --rootfs "$rootfs" --state "$d" --log "$log" \
		--pid-file "$d/pid" "${args[@]}" -- "$@" >"$d/keeper.log" 2>&1 </dev/null &
	keeper=$!
	echo "$keeper" >"$d/keeper"
	for ((i = 0; i < 600; i++)); do
		# Liveness first: a short CMD may have run and ended (keeper gone)
		# between two looks, but then the pid file is already there.
		alive=0
		_kit_alive "$keeper" && alive=1
		if [ -s "$d/pid" ]; then
			read -r pid <"$d/pid"
			echo "$pid"
			return 0
		fi
		[ $alive = 1 ] || kit_fail "kit_start $name: $(cat "$d/keeper.log")"
		sleep 0.05
	done
	kit_fail "kit_start $name: not running after 30 s"
}

# kit_stop NAME : SIGKILL the container's PID 1 (which ends its pid
# namespace, hence every process in it) and wait until it is reaped.
kit_stop() {
	local d=$KIT_DIR/${1:-} keeper pid="" i child
	[ -f "$d/keeper" ] || return 0
	read -r keeper <"$d/keeper"
	[ -s "$d/pid" ] && read -r pid <"$d/pid"
	if [ -n "$pid" ]; then
		kill -KILL "$pid" 2>/dev/null
	elif _kit_alive "$keeper"; then
		# Still being set up: end the keeper's child (not yet PID 1 of
		# anything visible), then the keeper.
		for child in $(cat "/proc/$keeper/task/$keeper/children" 2>/dev/null); do
			kill -KILL "$child" 2>/dev/null
		done
		kill -KILL "$keeper" 2>/dev/null
	fi
	for ((i = 0; i < 200; i++)); do
		if ! _kit_alive "$keeper" && { [ -z "$pid" ] || ! _kit_alive "$pid"; }; then
			rm -rf "$d"
			return 0
		fi
		sleep 0.05
	done
	echo "kit: container ${1:-} (pid ${pid:-?}, keeper $keeper) did not end" >&2
	return 1
}

# kit_wait_exit NAME [TIMEOUT_S=30] : wait until container NAME's PID 1 has
# ended on its own; print its exit status (128+N for signal N).  1 on timeout.
kit_wait_exit() {
	local d=$KIT_DIR/${1:-} timeout=${2:-30} i
	[ -f "$d/keeper" ] || kit_fail "kit_wait_exit: no container '${1:-}'"
	for ((i = 0; i < timeout * 20; i++)); do
		if [ -s "$d/exit" ]; then
			cat "$d/exit"
			return 0
		fi
		sleep 0.05
	done
	return 1
}

# kit_exec TARGET_HOSTPID [--uid U --gid G] [--env K=V]... -- CMD...
#   Run CMD in all namespaces of the target container (mnt, pid, uts, ipc,
#   and net and user if it has its own), as root by default, with a clean
#   environment.  In a rootless container, U and G are its own ids and root
#   is its root, so CMD sees ids as the container does.
kit_exec() {
	local pid=${1:-} ns_args=(--mount --pid --uts --ipc) envs=() uid="" gid=""
	[ -n "$pid" ] || kit_fail "usage: kit_exec PID [--uid U --gid G] -- CMD..."
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		case $1 in
		--uid) uid=$2; shift 2 ;;
		--gid) gid=$2; shift 2 ;;
		--env) envs+=("$2"); shift 2 ;;
		*) kit_fail "kit_exec: unknown option '$1'" ;;
		esac
	done
	[ "${1:-}" = -- ] && [ $# -ge 2 ] || kit_fail "kit_exec $pid: no command after --"
	shift
	[ -e "/proc/$pid/ns/mnt" ] || kit_fail "kit_exec: no process $pid"
	if [ "$(readlink "/proc/$pid/ns/net")" != "$(readlink /proc/self/ns/net)" ]; then
		ns_args+=(--net)
	fi
	# nsenter joins the user namespace first and becomes its root (0:0)
	# unless --setuid/--setgid say otherwise.
	if [ "$(readlink "/proc/$pid/ns/user")" != "$(readlink /proc/self/ns/user)" ]; then
		ns_args+=(--user)
	fi
	if [ -n "$gid" ]; then
		ns_args+=(--setgid "$gid")
	fi
	if [ -n "$uid" ]; then
		ns_args+=(--setuid "$uid")
	fi
	env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/ \
		"${envs[@]}" nsenter --target "$pid" "${ns_args[@]}" -- "$@"
}

# kit_sidecar TARGET_HOSTPID [--caps LIST] [--rootfs ROOTFS] [--bind H:C[:ro]]...
#             [--env K=V]... -- CMD...
#   Like `kubectl debug --target`: CMD joins the target's pid, net, ipc (and
#   uts: a pod shares it) namespaces, has its own mount namespace and root (default rootfs debian,
#   fresh /proc of the shared pid ns, private /tmp), runs as root with
#   exactly the capabilities LIST (default Docker's: no sys_admin, no
#   sys_ptrace) in all five sets.  LIST replaces the default ("none" for
#   nothing); "+sys_ptrace,..." adds to it.  Foreground; returns CMD's status.
kit_sidecar() {
	local target=${1:-} rootfs=debian caps="" d rc
	local args=()
	[ -n "$target" ] || kit_fail "usage: kit_sidecar PID [options] -- CMD..."
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		case $1 in
		--caps) caps=$2; shift 2 ;;
		--rootfs) rootfs=$2; shift 2 ;;
		--bind | --env) args+=("$1" "$2"); shift 2 ;;
		*) kit_fail "kit_sidecar: unknown option '$1'" ;;
		esac
	done
	[ "${1:-}" = -- ] && [ $# -ge 2 ] || kit_fail "kit_sidecar $target: no command after --"
	shift
	rootfs=$(_kit_rootfs_arg "$rootfs") || exit 1
	_kit_make "$KIT_HELPER"
	[ -n "$caps" ] && args+=(--caps "$caps")
	d=$(mktemp -d "$KIT_DIR/sidecar.XXXXXX")
	"$KIT_HELPER" sidecar --target "$target" --rootfs "$rootfs" --state "$d" \
		"${args[@]}" -- "$@"
	rc=$?
	rm -rf "$d"
	return $rc
}
