#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# mk/deps.sh - check (and, as root, install) the Debian packages jsym needs.
#
#   mk/deps.sh build   what compiling both builds needs
#   mk/deps.sh demo    build + what `make demo` (mk/demo.sh) runs: javac, perf,
#                      debootstrap (the demo's container root filesystem)
#   mk/deps.sh test    demo + what the test suites need (containers, fuzzers)
#   mk/deps.sh bench   test + what the benchmarks need
#
# Each requirement is a probe (a file or command that must exist) and the
# Debian package that provides it.  Only missing packages are installed, so a
# second run costs a few stat() calls.  Not root: print the exact apt-get line
# and fail, so nothing is half-installed behind the user's back.
set -euo pipefail

level=${1:-build}

# probe|package  (probe: an absolute path, or a command name looked up in PATH)
build_reqs=(
	"gcc|gcc"
	"/usr/include/string.h|libc6-dev"
	"make|make"
	"pkg-config|pkg-config"
	"musl-gcc|musl-tools"
	"/usr/lib/x86_64-linux-gnu/pkgconfig/check.pc|check"
	"/usr/include/sys/capability.h|libcap-dev"
	"/usr/lib/jvm/java-17-openjdk-amd64/include/jvmti.h|openjdk-17-jdk-headless"
)
# mk/demo.sh compiles the sample JVM, runs it in a kit container whose Debian
# root filesystem debootstrap builds (once; tests/kit/rootfs.sh), and samples
# it with perf.  The rest it uses (unshare, nsenter, flock, chroot, mount,
# grep, ...) is in every Debian, minbase included.  bpftrace is not required:
# the demo shows its stacks when it is installed and says how otherwise.
demo_reqs=(
	"/usr/lib/jvm/java-17-openjdk-amd64/bin/javac|openjdk-17-jdk-headless"
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
	# real OCI containers (tests/kit/podman.sh): podman drives runc; crun,
	# podman's default, refuses a hybrid cgroup v1 host, so runc is named
	"podman|podman"
	"runc|runc"
)
bench_reqs=(
	"valgrind|valgrind"
	"jattach|jattach"
)

reqs=("${build_reqs[@]}")
case "$level" in
build) ;;
demo) reqs+=("${demo_reqs[@]}") ;;
test) reqs+=("${demo_reqs[@]}" "${test_reqs[@]}") ;;
bench) reqs+=("${demo_reqs[@]}" "${test_reqs[@]}" "${bench_reqs[@]}") ;;
*)
	echo "usage: mk/deps.sh build|demo|test|bench" >&2
	exit 2
	;;
esac

have() {
	case "$1" in
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
# A fresh machine has no package lists yet; refresh them once per day at most.
stamp=/var/lib/apt/periodic/jsym-update-stamp
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
