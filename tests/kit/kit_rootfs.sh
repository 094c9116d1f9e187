# SPDX-License-Identifier: Apache-2.0
# tests/kit/kit_rootfs.sh - kit_rootfs: cached root filesystems.
# Sourced by tests/kit/kit.sh; the trees are built by tests/kit/rootfs.sh.
#
# Cache layout ($JSYM_CACHE, default $JSYM_ROOT/.cache/rootfs, git-ignored,
# untouched by `make clean`):
#   KIND/               the tree; KIND/.jsym-rootfs is written last
#   .KIND.lock          flock(1) held while one process builds KIND
#   .KIND.build.XXXXXX  a build in progress (renamed to KIND when complete)
#   .KIND.build.log     output of the last build of KIND

KIT_ROOTFS_KINDS="debian-minbase debian debian-build debian-musl alpine alpine-gcompat debian11 jdks debian-arm64"

# True if DIR is a complete tree of KIND: marker of this recipe version,
# plus the files a test relies on (cheap: no JVM is started here; the JRE
# ran once when the tree was built).
_kit_rootfs_valid() {
	local kind=$1 dir=$2 f
	[ -f "$dir/.jsym-rootfs" ] || return 1
	[ "$(head -n 1 "$dir/.jsym-rootfs")" = "jsym-kit rootfs $kind v$KIT_ROOTFS_VERSION" ] ||
		return 1
	case $kind in
	debian-minbase)
		# Still the tree of a machine where nothing was installed: a
		# cache someone installed into is rebuilt, not trusted.
		for f in etc/debian_version bin/sh usr/bin/apt-get; do
			[ -e "$dir/$f" ] || return 1
		done
		[ ! -e "$dir/usr/bin/make" ] && [ ! -e "$dir/usr/bin/gcc" ] || return 1
		;;
	debian | debian-musl)
		for f in "${KIT_CT_JAVA#/}" usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so \
			etc/debian_version bin/sh; do
			[ -e "$dir/$f" ] || return 1
		done
		if [ "$kind" = debian-musl ]; then
			[ -e "$dir/lib/ld-musl-x86_64.so.1" ] || return 1
		fi
		;;
	debian-build)
		for f in usr/bin/make usr/bin/gcc usr/bin/musl-gcc etc/debian_version \
			usr/lib/jvm/java-17-openjdk-amd64/include/jvmti.h; do
			[ -e "$dir/$f" ] || return 1
		done
		;;
	debian11)
		# Bullseye's own JDK 17 on glibc 2.31 (libpthread still apart).
		for f in "${KIT_CT_JAVA#/}" usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so \
			lib/x86_64-linux-gnu/libc-2.31.so lib/x86_64-linux-gnu/libpthread-2.31.so bin/sh; do
			[ -e "$dir/$f" ] || return 1
		done
		# An absolute link to the versioned loader: it resolves inside the
		# container only, so look at the link itself.
		[ -L "$dir/lib64/ld-linux-x86-64.so.2" ] || return 1
		grep -q '^11\.' "$dir/etc/debian_version" || return 1
		;;
	jdks)
		# Every JDK of the list, in the order of the list: a JDK added to
		# or dropped from tests/kit/jdks.list rebuilds the tree.
		[ "$(awk '{print $1}' "$dir/.jsym-jdks" 2>/dev/null)" = \
			"$(grep -E '^[0-9]+$' "$JSYM_ROOT/tests/kit/jdks.list")" ] || return 1
		while read -r _ f _; do
			[ -x "$dir$f/bin/java" ] && [ -x "$dir$f/bin/jcmd" ] || return 1
		done <"$dir/.jsym-jdks"
		;;
	debian-arm64)
		for f in "${KIT_ARM64_JDK#/}/bin/java" "${KIT_ARM64_JDK#/}/bin/jcmd" \
			"${KIT_ARM64_JDK#/}/lib/server/libjvm.so" lib/ld-linux-aarch64.so.1 bin/sh; do
			[ -e "$dir/$f" ] || return 1
		done
		;;
	alpine | alpine-gcompat)
		[ -f "$dir/lib/ld-musl-x86_64.so.1" ] && [ ! -L "$dir/lib/ld-musl-x86_64.so.1" ] &&
			[ -x "$dir/bin/busybox" ] && [ -L "$dir/bin/sh" ] || return 1
		if [ "$kind" = alpine-gcompat ]; then
			[ -f "$dir/lib/libc.so.6" ] || return 1
		else
			[ ! -e "$dir/lib/libc.so.6" ] || return 1
		fi
		;;
	*) return 1 ;;
	esac
}

# Build KIND into a temp dir in the cache and rename it into place.  The
# caller holds the kind's lock.
_kit_rootfs_build() {
	local kind=$1 dir=$2 base="" tmp start old log
	case $kind in
	debian | debian-build) base=$(kit_rootfs debian-minbase) || return 1 ;;
	debian-musl) base=$(kit_rootfs debian) || return 1 ;;
	alpine-gcompat) _kit_make "$KIT_SHIM" || return 1 ;;
	esac
	command -v debootstrap >/dev/null || [ "${kind#debian}" = "$kind" ] ||
		kit_fail "debootstrap missing (apt-get install debootstrap, or: bash mk/deps.sh test)"
	# We hold the lock, so any earlier build dir is from an interrupted build.
	rm -rf "$JSYM_CACHE/.$kind.build."?????? "$JSYM_CACHE/.$kind.old."*
	tmp=$(mktemp -d "$JSYM_CACHE/.$kind.build.XXXXXX") || return 1
	# mktemp makes it 0700; a container's unprivileged uid must traverse "/".
	chmod 755 "$tmp"
	start=$(date +%s)
	log=$JSYM_CACHE/.$kind.build.log
	kit_log "building rootfs $kind in $tmp (log: $log)"
	# A private mount namespace: the /proc mounted for chroot'ed apt and
	# java never reaches the host's mount table, even if the build dies.
	if ! KIT_GCOMPAT_SHIM=$KIT_SHIM unshare --mount --propagation private \
		bash "$JSYM_ROOT/tests/kit/rootfs.sh" "$kind" "$tmp" "$base" >"$log" 2>&1; then
		rm -rf "$tmp"
		tail -n 25 "$log" | sed 's/^/  | /' >&2
		kit_log "building rootfs $kind failed (whole log: $log)"
		return 1
	fi
	echo "jsym-kit rootfs $kind v$KIT_ROOTFS_VERSION" >"$tmp/.jsym-rootfs"
	date -u +%Y-%m-%dT%H:%M:%SZ >>"$tmp/.jsym-rootfs"
	if [ -e "$dir" ]; then
		old=$(mktemp -d "$JSYM_CACHE/.$kind.old.XXXXXX")
		mv "$dir" "$old/"
		rm -rf "$old"
	fi
	mv "$tmp" "$dir"
	kit_log "rootfs $kind built in $(($(date +%s) - start))s"
}

# kit_rootfs KIND : print the path of the cached tree of KIND (debian-minbase,
# debian, debian-musl, alpine, alpine-gcompat, debian11), building it first if it is missing
# or incomplete.  Concurrent callers wait for one build (flock).
kit_rootfs() {
	local kind=${1:-} dir
	case " $KIT_ROOTFS_KINDS " in
	*" $kind "*) ;;
	*) kit_fail "kit_rootfs: unknown kind '$kind' (one of: $KIT_ROOTFS_KINDS)" ;;
	esac
	dir=$JSYM_CACHE/$kind
	if _kit_rootfs_valid "$kind" "$dir"; then
		echo "$dir"
		return 0
	fi
	[ "$(id -u)" -eq 0 ] || kit_fail "building rootfs $kind needs root"
	mkdir -p "$JSYM_CACHE"
	(
		exec 9>"$JSYM_CACHE/.$kind.lock"
		flock 9
		_kit_rootfs_valid "$kind" "$dir" || _kit_rootfs_build "$kind" "$dir"
	) || kit_fail "cannot build rootfs $kind (see the log above)"
	_kit_rootfs_valid "$kind" "$dir" || kit_fail "rootfs $kind at $dir is incomplete after a build"
	echo "$dir"
}

# Build one of the kit's own C artifacts if missing or older than its sources
# (the same sources make goes by: kit.mk is not one of them, so a newer
# kit.mk once sent a chroot without make to build it, 38-attach-chroot).
_kit_make() {
	local target=$1 src stale=0
	for src in "$JSYM_ROOT"/tests/kit/*.[ch]; do
		[ "$src" -nt "$target" ] && stale=1
	done
	[ $stale = 0 ] && return 0
	make -s -C "$JSYM_ROOT" "${target#"$JSYM_ROOT"/}" >&2 ||
		kit_fail "cannot build $target (make ${target#"$JSYM_ROOT"/})"
}
