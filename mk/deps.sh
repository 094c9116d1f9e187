#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# mk/deps.sh - check (and, as root, install) the Debian packages jsym needs.
#
#   mk/deps.sh build   what compiling both builds needs
#   mk/deps.sh demo    build + what `make demo` (mk/demo.sh) runs: javac, perf,
#                      debootstrap (the demo's container root filesystem)
#   mk/deps.sh test    demo + what the test suites need (containers, fuzzers)
#   mk/deps.sh bench   test + what the benchmarks need
#   mk/deps.sh LEVEL aarch64
#                      the same plus, on an x86_64 machine, the arm64 cross
#                      toolchains (build: gcc-aarch64-linux-gnu, its glibc,
#                      and with `dpkg --add-architecture arm64` musl, libcap
#                      and Check for arm64) and, from level test on, QEMU's
#                      user-mode emulator >= 8 from bookworm-backports (7.2,
#                      bookworm's own, rejects PR_SET_CHILD_SUBREAPER, which
#                      the deploy path uses; the arm64 scenarios run the JVM
#                      under it).  `make ARCH=aarch64` passes its ARCH here.
#
# Each requirement is a probe (a file or command that must exist) and the
# Debian package that provides it.  Only missing packages are installed, so a
# second run costs a few stat() calls.  Not root: print the exact apt-get line
# and fail, so nothing is half-installed behind the user's back.
set -euo pipefail

level=${1:-build}
arch=${2:-$(uname -m)}
# The build machine's own multiarch names (x86_64-linux-gnu and amd64 here;
# aarch64-linux-gnu and arm64 on an arm64 machine, where nothing is crossed).
host_triplet=$(uname -m)-linux-gnu
host_debarch=$(dpkg --print-architecture)

# probe|package  (probe: an absolute path, or a command name looked up in PATH)
build_reqs=(
	"gcc|gcc"
	"/usr/include/string.h|libc6-dev"
	"make|make"
	"pkg-config|pkg-config"
	"musl-gcc|musl-tools"
	"/usr/lib/$host_triplet/pkgconfig/check.pc|check"
	"/usr/include/sys/capability.h|libcap-dev"
	"/usr/lib/jvm/java-17-openjdk-$host_debarch/include/jvmti.h|openjdk-17-jdk-headless"
)
# mk/demo.sh compiles the sample JVM, runs it in a kit container whose Debian
# root filesystem debootstrap builds (once; tests/kit/rootfs.sh), and samples
# it with perf.  The rest it uses (unshare, nsenter, flock, chroot, mount,
# grep, ...) is in every Debian, minbase included.  bpftrace is not required:
# the demo shows its stacks when it is installed and says how otherwise.
demo_reqs=(
	"/usr/lib/jvm/java-17-openjdk-$host_debarch/bin/javac|openjdk-17-jdk-headless"
	"perf|linux-perf"
	"debootstrap|debootstrap"
)
test_reqs=(
	"/bin/busybox|busybox-static"
	"unshare|util-linux"
	"setpriv|util-linux"
	"findmnt|util-linux"
	"ip|iproute2"
	"clang|clang"
	"/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a|libclang-rt-14-dev"
	"readelf|binutils"
	"python3|python3"
	"/usr/lib/python3/dist-packages/yaml/__init__.py|python3-yaml"
	"ps|procps"
	"file|file"
	"strace|strace"
	# function lengths (tests/lib/funclen.sh, run by 03-layers)
	"ctags-universal|universal-ctags"
	# real OCI containers (tests/kit/podman.sh): podman drives runc; crun,
	# podman's default, refuses a hybrid cgroup v1 host, so runc is named
	"podman|podman"
	"runc|runc"
	# podman kube play (93-runc-image's DaemonSet) builds its pause image
	# around catatonit, which podman only recommends: --no-install-recommends
	# leaves it out, so a machine that never had it failed there
	"catatonit|catatonit"
	# Docker Engine and containerd as a node runs them (tests/kit/docker.sh,
	# 94..96): Debian's, whose /usr/bin/docker is probed by path, as another
	# docker client may come first in PATH; no systemd is needed, the
	# scenarios start the daemons themselves
	"/usr/bin/docker|docker.io"
	"/usr/sbin/dockerd|docker.io"
	"/usr/bin/containerd|containerd"
	"/usr/bin/ctr|containerd"
	# the node's own tracer names Java frames from the agent's map (94)
	"/usr/bin/bpftrace|bpftrace"
	# a FUSE file system that never answers (tests/integration/39-confined-
	# open.sh, 95-audit-opens.sh): fusepy on Debian's /usr/bin/python3
	# (import fusepy), over libfuse2
	"/usr/lib/python3/dist-packages/fusepy.py|python3-fusepy"
	"/usr/lib/$host_triplet/libfuse.so.2|libfuse2"
	# the cgroup v2 guest (tests/kit/guest.sh): this host is cgroup v1, so
	# a Debian kernel boots under QEMU's TCG; SeaBIOS is only a recommend
	# of qemu-system-x86; mkfs.ext4 -d fills the root image and depmod
	# orders the initramfs's modules
	"qemu-system-x86_64|qemu-system-x86"
	"/usr/share/seabios/bios-256k.bin|seabios"
	"mkfs.ext4|e2fsprogs"
	"depmod|kmod"
)
bench_reqs=(
	"valgrind|valgrind"
	"jattach|jattach"
)

# Cross builds (mk/arch.mk).  A package named pkg:arm64 needs that dpkg
# architecture, pkg/SUITE that suite in apt's sources: both are added below
# when missing, and said.  Probe "qemu>=8 CMD": CMD exists and says version
# 8 or newer.
cross_build_reqs=() cross_test_reqs=()
if [ "$arch" != "$(uname -m)" ]; then
	case "$arch" in
	aarch64) deb_arch=arm64 ;;
	*)
		echo "jsym: no cross toolchain known for ARCH=$arch (mk/arch.mk)" >&2
		exit 2
		;;
	esac
	cross_build_reqs=(
		"$arch-linux-gnu-gcc|gcc-$arch-linux-gnu"
		"/usr/$arch-linux-gnu/include/string.h|libc6-dev-$deb_arch-cross"
		"/usr/lib/$arch-linux-musl/libc.so|musl-dev:$deb_arch"
		"/usr/lib/$arch-linux-gnu/libcap.so|libcap-dev:$deb_arch"
		"/usr/lib/$arch-linux-gnu/pkgconfig/check.pc|check:$deb_arch"
		"/usr/lib/$arch-linux-gnu/libsubunit.so|libsubunit-dev:$deb_arch"
	)
	cross_test_reqs=(
		"qemu>=8 qemu-$arch-static|qemu-user-static/bookworm-backports"
	)
fi

reqs=("${build_reqs[@]}" "${cross_build_reqs[@]}")
case "$level" in
build) ;;
demo) reqs+=("${demo_reqs[@]}") ;;
test) reqs+=("${demo_reqs[@]}" "${test_reqs[@]}" "${cross_test_reqs[@]}") ;;
bench) reqs+=("${demo_reqs[@]}" "${test_reqs[@]}" "${cross_test_reqs[@]}" "${bench_reqs[@]}") ;;
*)
	echo "usage: mk/deps.sh build|demo|test|bench" >&2
	exit 2
	;;
esac

have() {
	local v
	case "$1" in
	"qemu>=8 "*)
		v=$("${1#qemu>=8 }" --version 2>/dev/null | sed -n '1s/.*version \([0-9]*\)\..*/\1/p')
		[ -n "$v" ] && [ "$v" -ge 8 ]
		;;
	/*) [ -e "$1" ] ;;
	*) command -v "$1" >/dev/null 2>&1 ;;
	esac
}

missing=()
for r in "${reqs[@]}"; do
	probe=${r%%|*}
	pkg=${r#*|}
	if ! have "$probe"; then
		case " ${missing[*]-} " in
		*" $pkg "*) ;;
		*) missing+=("$pkg") ;;
		esac
	fi
done

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "jsym: missing Debian packages: ${missing[*]}" >&2
	echo "jsym: install them with: sudo apt-get install -y ${missing[*]}" >&2
	exit 1
fi

echo "jsym: installing missing Debian packages: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists yet; refresh them once per day at most
# (and at once after adding an architecture or a suite).
stamp=/var/lib/apt/periodic/jsym-update-stamp
for pkg in "${missing[@]}"; do
	case "$pkg" in
	*:*)
		a=${pkg#*:}
		if ! dpkg --print-foreign-architectures | grep -qx "$a"; then
			echo "jsym: adding the dpkg architecture $a (dpkg --add-architecture $a)" >&2
			dpkg --add-architecture "$a"
			rm -f "$stamp"
		fi
		;;
	*/*)
		suite=${pkg#*/}
		if ! grep -rqsw -- "$suite" /etc/apt/sources.list /etc/apt/sources.list.d/; then
			src=/etc/apt/sources.list.d/jsym-$suite.sources
			echo "jsym: adding $suite to apt's sources ($src) for ${pkg%/*}" >&2
			printf '%s\n' 'Types: deb' 'URIs: http://deb.debian.org/debian' \
				"Suites: $suite" 'Components: main' \
				'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' >"$src"
			rm -f "$stamp"
		fi
		;;
	esac
done
if [ ! -e "$stamp" ] || [ -n "$(find "$stamp" -mmin +1440 2>/dev/null)" ] ||
	! apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
	apt-get update -qq
	mkdir -p "$(dirname "$stamp")" && touch "$stamp"
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# Re-probe: a package that installed but did not provide the probe is a bug here.
for r in "${reqs[@]}"; do
	if ! have "${r%%|*}"; then
		echo "jsym: ${r%%|*} still missing after installing ${r#*|}" >&2
		exit 1
	fi
done
