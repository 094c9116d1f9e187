#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 10-kit-cache: kit_rootfs reuses a valid tree, never takes an incomplete
# one, and rebuilds a broken one.  Uses the cheap alpine tree in a cache
# directory of its own, so the shared cache is left alone.
set -euo pipefail
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, pivot_root"
JSYM_CACHE=$KIT_DIR/cache

first=$(kit_rootfs alpine 2>/dev/null)
t_eq "$first" "$JSYM_CACHE/alpine" "cache path"
stamp=$(tail -n 1 "$first/.jsym-rootfs")
sleep 1
t_eq "$(kit_rootfs alpine 2>"$KIT_DIR/second.err")" "$first" "second call"
t_eq "$(tail -n 1 "$first/.jsym-rootfs")" "$stamp" "second call reuses the tree"
[ ! -s "$KIT_DIR/second.err" ] || t_abort "second call rebuilt: $(cat "$KIT_DIR/second.err")"

# A tree without its marker (an interrupted build renamed by hand, say) is
# rebuilt; so is one missing a file the tests rely on.
rm "$first/.jsym-rootfs"
kit_rootfs alpine >/dev/null 2>&1
[ "$(tail -n 1 "$first/.jsym-rootfs")" != "$stamp" ] || t_abort "unmarked tree was reused"
rm "$first/bin/busybox"
kit_rootfs alpine >/dev/null 2>&1
[ -x "$first/bin/busybox" ] || t_abort "broken tree was reused"

# Leftovers of an interrupted build are never used, and are swept by the
# next build.
mkdir "$JSYM_CACHE/.alpine.build.dead00"
rm -rf "$first"
t_eq "$(kit_rootfs alpine 2>/dev/null)" "$first" "rebuild after removal"
[ ! -e "$JSYM_CACHE/.alpine.build.dead00" ] || t_abort "stale build dir not removed"

# A recipe version bump invalidates the tree.
KIT_ROOTFS_VERSION=$((KIT_ROOTFS_VERSION + 1))
stamp=$(tail -n 1 "$first/.jsym-rootfs")
sleep 1
kit_rootfs alpine >/dev/null 2>&1
t_contains "$(head -n 1 "$first/.jsym-rootfs")" "v$KIT_ROOTFS_VERSION" "version bump"
[ "$(tail -n 1 "$first/.jsym-rootfs")" != "$stamp" ] || t_abort "version bump did not rebuild"
t_log "pass: rootfs cache reuse, validation, rebuild"
t_finish
