#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/kit/rootfs.sh KIND DEST [BASE] - build one container root filesystem.
#
# Called by kit_rootfs (tests/kit/kit.sh), which runs it inside a private mount
# namespace (`unshare --mount --propagation private`), so the /proc this
# script mounts for chroot'ed apt and java runs vanishes with the namespace
# and nothing ever appears in the host's mount table.  DEST is a fresh
# temporary directory; the caller renames it into the cache only when this
# script succeeds, so a half-built tree is never taken as valid.  BASE is the
# finished tree a derived KIND starts from: `debian-minbase` for debian,
# `debian` for debian-musl.
#
# KINDs:
#   debian-minbase  debootstrap --variant=minbase bookworm and nothing else
#   debian          a copy of debian-minbase + openjdk-17-jre-headless, procps
#   debian-build    a copy of debian-minbase + what `mk/deps.sh build` installs
#                   (deploy/Dockerfile's build stage in CI: nothing to download)
#   debian-musl     a copy of debian + Debian's musl package
#   alpine          musl as the only libc, Alpine's layout, busybox-static
#   alpine-gcompat  alpine + a libc.so.6 shim (needs $KIT_GCOMPAT_SHIM, built by make)
#   debian11        debootstrap --variant=minbase bullseye (glibc 2.31) + its own
#                   openjdk-17-jre-headless, procps
#   jdks            debootstrap --variant=minbase of the suite in tests/kit/jdks.list
#                   + openjdk-N-jdk-headless for every N listed there, procps
#   debian-arm64    debootstrap --arch=arm64 --variant=minbase bookworm +
#                   openjdk-17-jdk-headless, procps: an arm64 JVM (and its jcmd)
#                   run under qemu-user through binfmt_misc (tests/kit/kit_qemu.sh)
set -euo pipefail

kind=$1
dest=$2
base=${3:-}

say() { echo "kit: rootfs $kind: $*" >&2; }

# The Debian mirror the host itself uses (deb822 or one-line sources), so the
# container gets the same archive the machine can reach; KIT_DEBIAN_MIRROR
# overrides it.
host_mirror() {
	local m
	if [ -n "${KIT_DEBIAN_MIRROR:-}" ]; then
		echo "$KIT_DEBIAN_MIRROR"
		return
	fi
	m=$(grep -hoE 'https?://[^ ]*/debian/?( |$)' /etc/apt/sources.list \
		/etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
		head -n 1 | tr -d ' ' || true)
	echo "${m:-http://deb.debian.org/debian}"
}

# The security archive next to the mirror: the host's own debian-security
# line, else deb.debian.org's; KIT_DEBIAN_SECURITY_MIRROR overrides it.
host_security_mirror() {
	local m
	if [ -n "${KIT_DEBIAN_SECURITY_MIRROR:-}" ]; then
		echo "$KIT_DEBIAN_SECURITY_MIRROR"
		return
	fi
	m=$(grep -hoE 'https?://[^ ]*/debian-security/?( |$)' /etc/apt/sources.list \
		/etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
		head -n 1 | tr -d ' ' || true)
	echo "${m:-http://deb.debian.org/debian-security}"
}

# Expired Release files: a machine that reaches Debian through a dated
# snapshot sets Acquire::Check-Valid-Until "false", and the trees' apt must
# see that archive the same way.  sid's Release file only stays valid for a
# week, so the jdks tree (tests/kit/jdks.list's suite) needs it on every
# machine, whatever the host says: a new machine whose apt had no such
# setting failed there ("Release file ... is expired").  Signatures are
# still checked.
apt_opts=()
if [ "$kind" = jdks ] ||
	apt-config dump 2>/dev/null | grep -qi '^Acquire::Check-Valid-Until "\(false\|0\|no\)"'; then
	apt_opts=(-o Acquire::Check-Valid-Until=false)
fi

# Run a command chroot'ed into DEST with /proc mounted (private namespace).
in_root() {
	if ! mountpoint -q "$dest/proc"; then
		mount -t proc proc "$dest/proc"
	fi
	chroot "$dest" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive HOME=/root "$@"
}

apt_install() {
	cp /etc/resolv.conf "$dest/etc/resolv.conf"
	in_root apt-get "${apt_opts[@]}" -q update >&2
	in_root apt-get -q install -y --no-install-recommends "$@" >&2
	in_root apt-get clean
	rm -rf "$dest"/var/lib/apt/lists/*
	: >"$dest/etc/resolv.conf"
}

# A fresh minimal Debian 12 machine, before anything of jsym's is installed:
# what `debootstrap --variant=minbase bookworm` gives, shaped like the
# `debian:12` image a user starts a container from.  Like that image it has
# no `make`, no `git`, no `ca-certificates`, no package lists and no resolver
# configuration of its own (a container runtime binds one in); like it, it
# has a policy-rc.d that keeps services from starting.  Nothing is added: a
# scenario that needs `make` installs it the way a user must
# (tests/integration/05-first-run.sh).
build_debian_minbase() {
	local mirror
	mirror=$(host_mirror)
	say "debootstrap --variant=minbase bookworm from $mirror (first build takes minutes)"
	debootstrap --variant=minbase bookworm "$dest" "$mirror" >&2
	# Services must never start inside a build chroot or a container.
	printf '#!/bin/sh\nexit 101\n' >"$dest/usr/sbin/policy-rc.d"
	chmod 755 "$dest/usr/sbin/policy-rc.d"
	rm -rf "$dest"/var/lib/apt/lists/* "$dest"/var/cache/apt/archives/*.deb
	: >"$dest/etc/resolv.conf"
	if [ ! -x "$dest/usr/bin/apt-get" ] || [ -e "$dest/usr/bin/make" ] || [ -e "$dest/usr/bin/gcc" ]; then
		say "not a minbase tree: apt-get missing, or make/gcc already there"
		exit 1
	fi
}

# The containers' JVM root: debian-minbase plus a JRE and procps.
build_debian() {
	[ -d "$base" ] || { say "missing base tree $base"; exit 1; }
	say "copying $base"
	cp -a "$base/." "$dest/"
	say "installing procps openjdk-17-jre-headless"
	apt_install procps openjdk-17-jre-headless
	say "sanity: the container's own JRE runs"
	in_root /usr/lib/jvm/java-17-openjdk-amd64/bin/java -Xshare:auto -version >&2
	umount "$dest/proc"
}

# deploy/Dockerfile's build image in CI (tests/integration/93-runc-image.sh):
# a fresh Debian 12 on which mk/deps.sh has installed what building needs,
# so the Dockerfile's own `mk/deps.sh build` finds it all (and a user's
# build from debian:12 downloads the same packages).
build_debian_build() {
	[ -d "$base" ] || { say "missing base tree $base"; exit 1; }
	say "copying $base"
	cp -a "$base/." "$dest/"
	say "mk/deps.sh build, chrooted"
	cp /etc/resolv.conf "$dest/etc/resolv.conf"
	cp "$JSYM_ROOT/mk/deps.sh" "$dest/tmp/jsym-deps.sh"
	in_root bash /tmp/jsym-deps.sh build >&2
	in_root apt-get clean
	rm -rf "$dest"/var/lib/apt/lists/* "$dest/tmp/jsym-deps.sh"
	: >"$dest/etc/resolv.conf"
	umount "$dest/proc"
}

build_debian_musl() {
	[ -d "$base" ] || { say "missing base tree $base"; exit 1; }
	say "copying $base"
	cp -a "$base/." "$dest/"
	say "installing musl"
	apt_install musl
	[ -e "$dest/lib/ld-musl-x86_64.so.1" ] || { say "musl loader missing after install"; exit 1; }
	umount "$dest/proc"
}

# An older Debian for the glibc build's oldest target: Debian 11's glibc 2.31
# keeps libpthread and libdl as separate libraries (2.34 merged them into
# libc), and its loader is /lib64/ld-linux-x86-64.so.2 -> the versioned
# ld-2.31.so.  The JDK is bullseye's own openjdk-17 package: a point release
# put 17.0.12 into bullseye main, newer builds come through bullseye-security,
# so all three suites are configured and apt takes the newest; the build log
# keeps `apt-cache policy` and the installed version.
build_debian11() {
	local mirror security glibc
	mirror=$(host_mirror)
	security=$(host_security_mirror)
	say "debootstrap --variant=minbase bullseye from $mirror"
	debootstrap --variant=minbase bullseye "$dest" "$mirror" >&2
	printf '#!/bin/sh\nexit 101\n' >"$dest/usr/sbin/policy-rc.d"
	chmod 755 "$dest/usr/sbin/policy-rc.d"
	cat >"$dest/etc/apt/sources.list" <<-EOF
		deb ${mirror%/} bullseye main
		deb ${mirror%/} bullseye-updates main
		deb ${security%/} bullseye-security main
	EOF
	rm -rf "$dest"/var/cache/apt/archives/*.deb
	cp /etc/resolv.conf "$dest/etc/resolv.conf"
	in_root apt-get "${apt_opts[@]}" -q update >&2
	say "where bullseye's openjdk-17-jre-headless comes from:"
	in_root apt-cache policy openjdk-17-jre-headless >&2
	say "installing procps openjdk-17-jre-headless"
	in_root apt-get -q install -y --no-install-recommends procps openjdk-17-jre-headless >&2
	in_root apt-get clean
	rm -rf "$dest"/var/lib/apt/lists/*
	: >"$dest/etc/resolv.conf"
	# shellcheck disable=SC2016 # dpkg-query's own ${field} syntax
	say "installed: $(in_root dpkg-query -W -f '${Package} ${Version}' openjdk-17-jre-headless)"
	# (2.31's loader has no --version; getconf asks the C library itself.)
	glibc=$(in_root getconf GNU_LIBC_VERSION)
	say "C library: $glibc"
	[ "$glibc" = "glibc 2.31" ] || { say "expected glibc 2.31 in bullseye"; exit 1; }
	say "sanity: the container's own JRE runs"
	in_root /usr/lib/jvm/java-17-openjdk-amd64/bin/java -Xshare:auto -version >&2
	umount "$dest/proc"
}

# Alpine's layout with nothing from glibc: the musl loader is the real file
# (on Debian it is a symlink into /usr/lib/x86_64-linux-musl), libc.musl-*
# points at it, and busybox provides every command.
build_alpine() {
	local musl_libc=/usr/lib/x86_64-linux-musl/libc.so app
	[ -f "$musl_libc" ] || { say "$musl_libc missing (apt-get install musl)"; exit 1; }
	[ -x /bin/busybox ] || { say "/bin/busybox missing (apt-get install busybox-static)"; exit 1; }
	if ! file -L /bin/busybox | grep -q 'statically linked'; then
		say "/bin/busybox is not static (apt-get install busybox-static)"
		exit 1
	fi
	mkdir -p "$dest"/{bin,sbin,lib,etc,proc,dev,tmp,root,usr/bin,usr/sbin,usr/lib,var/tmp,sys}
	chmod 1777 "$dest/tmp" "$dest/var/tmp"
	chmod 700 "$dest/root"
	install -m 755 "$musl_libc" "$dest/lib/ld-musl-x86_64.so.1"
	ln -s ld-musl-x86_64.so.1 "$dest/lib/libc.musl-x86_64.so.1"
	install -m 755 /bin/busybox "$dest/bin/busybox"
	for app in $(/bin/busybox --list); do
		[ "$app" = busybox ] && continue
		[ -e "$dest/bin/$app" ] || ln -s busybox "$dest/bin/$app"
	done
	echo 'root:x:0:0:root:/root:/bin/sh' >"$dest/etc/passwd"
	echo 'root:x:0:root' >"$dest/etc/group"
	echo 'jsym-kit-alpine' >"$dest/etc/hostname"
	printf 'NAME="jsym kit alpine-like"\nID=alpine\n' >"$dest/etc/os-release"
	echo '3.19.0' >"$dest/etc/alpine-release"
	say "sanity: busybox sh runs in the tree"
	[ "$(chroot "$dest" /bin/sh -c 'echo ok')" = ok ]
	# A musl-linked program finds its loader at the Alpine path.
	[ "$(chroot "$dest" /lib/ld-musl-x86_64.so.1 2>&1 | head -n 1)" != "" ]
}

build_alpine_gcompat() {
	build_alpine
	local shim=${KIT_GCOMPAT_SHIM:-}
	[ -f "$shim" ] || { say "libc.so.6 shim not built (make musl-build/kit/libc.so.6)"; exit 1; }
	install -m 755 "$shim" "$dest/lib/libc.so.6"
	ln -s ld-musl-x86_64.so.1 "$dest/lib/ld-linux-x86-64.so.2"
	mkdir -p "$dest/lib64"
	ln -s ../lib/ld-musl-x86_64.so.1 "$dest/lib64/ld-linux-x86-64.so.2"
}

# The JDK matrix: one tree with every JDK of tests/kit/jdks.list, each
# Debian's own package (the JDK, not only the JRE: jcmd is the independent
# reference the scenarios compare jsym with).  The tree's .jsym-jdks lists
# `MAJOR HOME VERSION` for each, as `java -version` says it.
build_jdks() {
	local mirror list suite majors=() pkgs=() n home v arch
	list=$(dirname "$0")/jdks.list
	suite=$(sed -n 's/^# suite \([a-z]*\)$/\1/p' "$list")
	mapfile -t majors < <(grep -E '^[0-9]+$' "$list")
	[ -n "$suite" ] && [ ${#majors[@]} -gt 0 ] || { say "no suite or JDK in $list"; exit 1; }
	arch=$(dpkg --print-architecture)
	mirror=$(host_mirror)
	say "debootstrap --variant=minbase $suite from $mirror (first build takes minutes)"
	debootstrap --variant=minbase "$suite" "$dest" "$mirror" >&2
	printf '#!/bin/sh\nexit 101\n' >"$dest/usr/sbin/policy-rc.d"
	chmod 755 "$dest/usr/sbin/policy-rc.d"
	echo "deb ${mirror%/} $suite main" >"$dest/etc/apt/sources.list"
	rm -f "$dest"/etc/apt/sources.list.d/*
	for n in "${majors[@]}"; do pkgs+=("openjdk-$n-jdk-headless"); done
	say "installing procps ${pkgs[*]}"
	apt_install procps "${pkgs[@]}"
	: >"$dest/.jsym-jdks"
	for n in "${majors[@]}"; do
		home=/usr/lib/jvm/java-$n-openjdk-$arch
		v=$(in_root "$home/bin/java" -version 2>&1 | sed -n '1s/.*version "\([^"]*\)".*/\1/p')
		[ -n "$v" ] || { say "JDK $n at $home does not run"; exit 1; }
		say "JDK $n: $home $v"
		echo "$n $home $v" >>"$dest/.jsym-jdks"
	done
	umount "$dest/proc"
}

# An arm64 Debian with a JDK (jcmd is the reference the arm64 scenarios
# compare jsym with).  Every program in it is an aarch64 ELF: debootstrap's
# second stage, apt's maintainer scripts and java run through the qemu-user
# handler registered in binfmt_misc with the F flag (the interpreter is
# opened at registration, so it works inside the chroot, which has no qemu).
build_debian_arm64() {
	local mirror
	if [ "$(cat /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null | head -n 1)" != enabled ]; then
		say "no enabled qemu-aarch64 handler in /proc/sys/fs/binfmt_misc (kit_qemu_ready registers it)"
		exit 1
	fi
	mirror=$(host_mirror)
	say "debootstrap --arch=arm64 --variant=minbase bookworm from $mirror (under qemu: about 6 minutes)"
	debootstrap --arch=arm64 --variant=minbase bookworm "$dest" "$mirror" >&2
	printf '#!/bin/sh\nexit 101\n' >"$dest/usr/sbin/policy-rc.d"
	chmod 755 "$dest/usr/sbin/policy-rc.d"
	rm -rf "$dest"/var/cache/apt/archives/*.deb
	say "installing procps openjdk-17-jdk-headless"
	apt_install procps openjdk-17-jdk-headless
	say "sanity: the arm64 JDK runs under qemu"
	in_root /usr/lib/jvm/java-17-openjdk-arm64/bin/java -Xshare:auto -version >&2
	umount "$dest/proc"
}

case $kind in
debian-minbase) build_debian_minbase ;;
debian-arm64) build_debian_arm64 ;;
jdks) build_jdks ;;
debian) build_debian ;;
debian-build) build_debian_build ;;
debian-musl) build_debian_musl ;;
alpine) build_alpine ;;
alpine-gcompat) build_alpine_gcompat ;;
debian11) build_debian11 ;;
*)
	echo "kit: unknown rootfs kind '$kind' (debian-minbase, debian, debian-build, debian-musl, alpine, alpine-gcompat, debian11, jdks, debian-arm64)" >&2
	exit 2
	;;
esac
