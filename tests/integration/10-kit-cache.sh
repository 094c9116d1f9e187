#!/usr/bin/env bash
# 10-kit-cache: kit_rootfs reuses a valid tree, never takes an incomplete
# one, and rebuilds a broken one.  Uses the cheap alpine tree in a cache
# directory of its own, so the shared cache is left alone.
set -euo pipefail
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/kit/kit.sh"
kit_need_root
JSYM_CACHE=$KIT_DIR/cache

first=$(kit_rootfs alpine 2>/dev/null)
kit_assert_eq "$first" "$JSYM_CACHE/alpine" "cache path"
stamp=$(tail -n 1 "$first/.jsym-rootfs")
sleep 1
kit_assert_eq "$(kit_rootfs alpine 2>"$KIT_DIR/second.err")" "$first" "second call"
kit_assert_eq "$(tail -n 1 "$first/.jsym-rootfs")" "$stamp" "second call reuses the tree"
[ ! -s "$KIT_DIR/second.err" ] || kit_fail "second call rebuilt: $(cat "$KIT_DIR/second.err")"

# A tree without its marker (an interrupted build renamed by hand, say) is
# rebuilt; so is one missing a file the tests rely on.
rm "$first/.jsym-rootfs"
kit_rootfs alpine >/dev/null 2>&1
[ "$(tail -n 1 "$first/.jsym-rootfs")" != "$stamp" ] || kit_fail "unmarked tree was reused"
rm "$first/bin/busybox"
kit_rootfs alpine >/dev/null 2>&1
[ -x "$first/bin/busybox" ] || kit_fail "broken tree was reused"

# Leftovers of an interrupted build are never used, and are swept by the
# next build.
mkdir "$JSYM_CACHE/.alpine.build.dead00"
rm -rf "$first"
kit_assert_eq "$(kit_rootfs alpine 2>/dev/null)" "$first" "rebuild after removal"
[ ! -e "$JSYM_CACHE/.alpine.build.dead00" ] || kit_fail "stale build dir not removed"

# A recipe version bump invalidates the tree.
KIT_ROOTFS_VERSION=$((KIT_ROOTFS_VERSION + 1))
stamp=$(tail -n 1 "$first/.jsym-rootfs")
sleep 1
kit_rootfs alpine >/dev/null 2>&1
kit_assert_contains "$(head -n 1 "$first/.jsym-rootfs")" "v$KIT_ROOTFS_VERSION" "version bump"
[ "$(tail -n 1 "$first/.jsym-rootfs")" != "$stamp" ] || kit_fail "version bump did not rebuild"
kit_log "pass: rootfs cache reuse, validation, rebuild"
