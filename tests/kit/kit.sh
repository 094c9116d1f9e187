# SPDX-License-Identifier: Apache-2.0
# tests/kit/kit.sh - containers for jsym's integration tests (bash library).
#
#   source "$JSYM_ROOT/tests/kit/kit.sh"
#
# Containers are plain Linux namespaces (no Docker): kit_start clones the
# workload into new mount, pid, uts, ipc (and net) namespaces through the C
# helper glibc-build/kit/jsym-kit, which mounts an overlay of a cached root
# filesystem (tmpfs upper), /proc, a minimal /dev and a private /tmp, then
# pivot_roots and drops to the wanted uid before exec'ing the workload as
# PID 1.  Every mount lives in the container's own mount namespace, so it
# vanishes with it.  An EXIT/INT/TERM trap stops every container of the
# script and removes $KIT_DIR.  docs/testing.md has the whole story.
#
# Functions (details above each):
#   kit_rootfs KIND               kit_java_build
#   kit_start NAME ROOTFS [opts] -- CMD...   kit_stop NAME    kit_exec PID [opts] -- CMD...
#   kit_sidecar PID [opts] -- CMD...         kit_wait_jvm PID [TIMEOUT_S]
#   kit_wait_exit NAME [TIMEOUT_S]
#   kit_chroot NAME ROOTFS [opts] -- CMD...  kit_in_chroot PID [opts] -- CMD...
#   kit_log MSG  kit_fail MSG  (checks, skips and JDKs: tests/lib)
#   kit_on_exit CMD               kit_cleanup
#   kit_qemu_ready                (arm64 under qemu-user: tests/kit/kit_qemu.sh)

if [ -n "${KIT_SH_LOADED:-}" ]; then
	return 0
fi
KIT_SH_LOADED=1

# The root filesystems are machine-wide (CI starts every run from a fresh
# clone, and a tree takes minutes to build): /var/cache/jsym/rootfs when it
# can be written there (root), else the clone's .cache/rootfs.  JSYM_CACHE
# overrides both.
_kit_default_cache() {
	if [ -w /var/cache ] || [ -w /var/cache/jsym/rootfs ]; then
		echo /var/cache/jsym/rootfs
	else
		echo "$JSYM_ROOT/.cache/rootfs"
	fi
}

: "${JSYM_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${JSYM_BUILD:=$JSYM_ROOT/glibc-build}"
: "${JSYM_MUSL_BUILD:=$JSYM_ROOT/musl-build}"
: "${JSYM_CACHE:=$(_kit_default_cache)}"
export JSYM_ROOT JSYM_BUILD JSYM_MUSL_BUILD JSYM_CACHE

# The host JDK that compiles tests/java and whose jcmd talks to containers.
: "${KIT_HOST_JDK:=/usr/lib/jvm/java-17-openjdk-amd64}"
# Inside the debian rootfs.
KIT_CT_JAVA=/usr/lib/jvm/java-17-openjdk-amd64/bin/java
# Inside the debian-arm64 rootfs (an aarch64 JDK, run under qemu-user).
KIT_ARM64_JDK=/usr/lib/jvm/java-17-openjdk-arm64
# Bumped whenever tests/kit/rootfs.sh changes what a tree contains, so stale
# caches rebuild themselves.
KIT_ROOTFS_VERSION=1
KIT_HELPER=$JSYM_ROOT/glibc-build/kit/jsym-kit
KIT_SHIM=$JSYM_ROOT/musl-build/kit/libc.so.6

# Per-script state: one directory per container (pid, keeper, exit), logs.
KIT_DIR=$(mktemp -d /tmp/jsym-kit.XXXXXX) || {
	echo "FAIL: cannot create the kit's state directory in /tmp" >&2
	exit 1
}
# the integration runner checks it is gone once the scenario ends
[ -n "${JSYM_KIT_DIRS:-}" ] && echo "$KIT_DIR" >>"$JSYM_KIT_DIRS"
KIT_ON_EXIT=()

source "$JSYM_ROOT/tests/kit/kit_util.sh"
source "$JSYM_ROOT/tests/kit/kit_rootfs.sh"
source "$JSYM_ROOT/tests/kit/kit_ct.sh"
source "$JSYM_ROOT/tests/kit/kit_chroot.sh"
source "$JSYM_ROOT/tests/kit/kit_qemu.sh"

trap 'kit_cleanup' EXIT
trap 'kit_cleanup; trap - EXIT; exit 130' INT
trap 'kit_cleanup; trap - EXIT; exit 143' TERM
