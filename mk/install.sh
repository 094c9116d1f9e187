#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# mk/install.sh - the recipes of `make install` and `make uninstall`
# (mk/install.mk passes the destination root and the file list).
#
#   mk/install.sh install   ROOT DEST:SRC:MODE...
#   mk/install.sh uninstall ROOT DEST:SRC:MODE...
#
# install copies each SRC to ROOT/DEST with MODE, each through a temporary
# name and a rename, so a running jsym or a JVM mapping an installed agent
# never sees a half-written file.  MODE `link` makes ROOT/DEST a symbolic
# link to SRC instead (relative: libjsym-lookup.so -> libjsym-lookup.so.1),
# also by rename; its target must be installed by then.  uninstall removes
# exactly those files and links, then the directories that are jsym's alone
# (lib/jsym/..., include/jsym, share/doc/jsym) when empty; bin/, lib/, man1/ and the like
# belong to everyone and stay.
set -euo pipefail

action=${1:-}
root=${2:-}
[ $# -ge 2 ] && shift 2 || set --
case $action in install | uninstall) ;; *)
	echo "usage: mk/install.sh install|uninstall ROOT DEST:SRC:MODE..." >&2
	exit 2
	;;
esac
[ -n "$root" ] || { echo "jsym: install: empty destination (PREFIX)" >&2; exit 2; }

# The installed jsym must be static: a debug image made of this tree has
# no libc of its own.  `file` is not in a minimal Debian; readelf is in
# binutils, which gcc pulls in.
check_static() {
	if readelf -lW "$1" 2>/dev/null | grep -q 'INTERP\|Requesting program interpreter'; then
		echo "jsym: install: $1 is dynamically linked; bin/jsym must be the static musl build" >&2
		exit 1
	fi
}

if [ "$action" = install ]; then
	for f; do
		IFS=':' read -r dest src mode <<<"$f"
		if [ "$mode" = link ]; then
			mkdir -p "$root/$(dirname "$dest")"
			tmp=$root/$dest.jsym-new
			ln -sfn "$src" "$tmp"
			mv -fT "$tmp" "$root/$dest"
			[ -e "$root/$dest" ] || {
				echo "jsym: install: $root/$dest -> $src leads nowhere (list its target first)" >&2
				exit 1
			}
			echo "  $root/$dest -> $src"
			continue
		fi
		[ -f "$src" ] || { echo "jsym: install: $src is missing: run make" >&2; exit 1; }
		[ "$dest" = bin/jsym ] && check_static "$src"
		mkdir -p "$root/$(dirname "$dest")"
		tmp=$root/$dest.jsym-new
		cp "$src" "$tmp"
		chmod "$mode" "$tmp"
		mv -f "$tmp" "$root/$dest"
		echo "  $root/$dest"
	done
	exit 0
fi

for f; do
	IFS=':' read -r dest _ _ <<<"$f"
	if [ -e "$root/$dest" ] || [ -L "$root/$dest" ]; then
		rm -f "$root/$dest"
		echo "  removed $root/$dest"
	fi
done
for d in lib/jsym/glibc lib/jsym/musl lib/jsym include/jsym share/doc/jsym; do
	rmdir "$root/$d" 2>/dev/null || true
done
