# SPDX-License-Identifier: Apache-2.0
# tests/kit/kit_chroot.sh - processes whose root is a chroot, not the root of
# their mount namespace.  Sourced by tests/kit/kit.sh.
#
# runc chroots instead of pivot_root'ing when the root is a ramdisk
# (--no-pivot, Docker's DOCKER_RAMDISK, minikube's VM), and systemd's
# RootDirectory= chroots a service inside its own mount namespace.  In both
# the kernel names the process's files from the namespace's root
# (/proc/PID/maps, /proc/PID/root), while the process names them from its
# chroot.  kit_chroot makes exactly that: a new mount namespace whose tmpfs
# (the "ramdisk") holds an overlay of a cached root, and CMD chrooted into it.
# Its state is a container's ($KIT_DIR/NAME/{keeper,pid}), so kit_stop and
# the kit's exit trap end it, and every mount goes with its namespace.

# kit_chroot NAME ROOTFS [--uid U --gid G] [--bind HOST:CT[:ro]]... -- CMD...
#   Start CMD (its path taken inside the chroot) as uid U, gid G (default
#   0:0) with a clean environment; print its pid (the same in the host's
#   pid namespace: only the mount namespace is new).  ROOTFS: a directory
#   or a kind name (kit_rootfs).  Inside: /proc of the host's pid namespace,
#   /dev bound from the host, /tmp a tmpfs (1777).  The chroot's path from
#   the namespace's root is $KIT_DIR/NAME/ramdisk/root.
kit_chroot() {
	local name=${1:-} rootfs=${2:-} uid=0 gid=0 d log keeper pid i b host ct ro
	local binds=()
	[ $# -ge 2 ] || kit_fail "usage: kit_chroot NAME ROOTFS [options] -- CMD..."
	shift 2
	[[ $name =~ ^[A-Za-z0-9_.-]+$ ]] || kit_fail "kit_chroot: bad name '$name'"
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		case $1 in
		--uid) uid=$2; shift 2 ;;
		--gid) gid=$2; shift 2 ;;
		--bind) binds+=("$2"); shift 2 ;;
		*) kit_fail "kit_chroot: unknown option '$1'" ;;
		esac
	done
	[ "${1:-}" = -- ] && [ $# -ge 2 ] || kit_fail "kit_chroot $name: no command after --"
	shift
	rootfs=$(_kit_rootfs_arg "$rootfs") || exit 1
	d=$KIT_DIR/$name
	mkdir "$d" 2>/dev/null || kit_fail "kit_chroot: '$name' already exists"
	mkdir "$d/ramdisk"
	log=$KIT_DIR/$name.log
	# The mounts, as one script run by the new namespace's shell; every
	# path is quoted by printf %q, so names with blanks stay whole.
	{
		echo 'set -e'
		printf 'r=%q\n' "$d/ramdisk"
		echo 'mount --make-rprivate /'
		echo 'mount -t tmpfs -o mode=0755 jsym-ramdisk "$r"'
		echo 'mkdir "$r/up" "$r/work" "$r/root"'
		printf 'mount -t overlay overlay -o lowerdir=%q,upperdir="$r/up",workdir="$r/work" "$r/root"\n' \
			"$rootfs"
		echo 'mkdir -p "$r/root/proc" "$r/root/dev" "$r/root/tmp"'
		echo 'mount -t proc proc "$r/root/proc"'
		echo 'mount --rbind /dev "$r/root/dev"'
		echo 'mount -t tmpfs -o mode=1777 tmp "$r/root/tmp"'
		for b in "${binds[@]}"; do
			IFS=: read -r host ct ro <<<"$b"
			printf 'mkdir -p "$r/root"%q\n' "$ct"
			printf 'mount --bind %q "$r/root"%q\n' "$host" "$ct"
			[ "$ro" = ro ] && printf 'mount -o remount,bind,ro "$r/root"%q\n' "$ct"
		done
		printf 'exec env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/ '
		printf 'chroot --userspec=%q:%q "$r/root"' "$uid" "$gid"
		printf ' %q' "$@"
		echo
	} >"$d/setup.sh"
	# unshare --fork stays outside as the keeper that reaps CMD, in a
	# session of its own (as jsym-kit's keeper): callers run this in $(...),
	# whose end would otherwise leave CMD to an init that reaps it late.
	setsid unshare --mount --fork bash "$d/setup.sh" >"$log" 2>&1 </dev/null &
	keeper=$!
	echo "$keeper" >"$d/keeper"
	# Started once the chroot's exec has replaced the shell: its root is
	# then the chroot (/proc/PID/root ends in ramdisk/root).
	for ((i = 0; i < 200; i++)); do
		_kit_alive "$keeper" || kit_fail "kit_chroot $name: $(cat "$log")"
		# (the file has no final newline: read would say it failed)
		pid=$(cat "/proc/$keeper/task/$keeper/children" 2>/dev/null)
		pid=${pid%% *}
		if [ -n "$pid" ] && [ "$(readlink "/proc/$pid/root" 2>/dev/null)" = "$d/ramdisk/root" ] &&
			[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" != "$(readlink -f "$(command -v chroot)")" ]; then
			echo "$pid" >"$d/pid"
			echo "$pid"
			return 0
		fi
		sleep 0.05
	done
	kit_fail "kit_chroot $name: not running after 10 s: $(cat "$log")"
}

# kit_in_chroot PID [--uid U --gid G] -- CMD... : run CMD in the mount
# namespace and chroot of PID (a kit_chroot process), as root by default,
# with a clean environment, in its cwd (the chroot's / for kit_chroot's CMD),
# as a user who typed `chroot DIR CMD` there would.
kit_in_chroot() {
	local pid=${1:-} args=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		case $1 in
		--uid) args+=(--setuid "$2"); shift 2 ;;
		--gid) args+=(--setgid "$2"); shift 2 ;;
		*) kit_fail "kit_in_chroot: unknown option '$1'" ;;
		esac
	done
	[ "${1:-}" = -- ] && [ $# -ge 2 ] || kit_fail "kit_in_chroot $pid: no command after --"
	shift
	env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/ \
		nsenter --target "$pid" --mount --root --wd "${args[@]}" -- "$@"
}
