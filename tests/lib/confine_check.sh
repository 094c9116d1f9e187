#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/lib/confine_check.sh - every open of attach/ (the lookup library
# included) goes through the one confined open (common/confine.h), by
# construction, and so does every look at a name: a stat of a FUSE file
# waits for its server as an open does.
#
# Lists each call of open, openat, openat2 (or syscall SYS_openat2/SYS_open),
# open64, openat64, fopen, opendir and creat, and of the calls that resolve
# a name to describe it (stat, lstat, fstatat, newfstatat, statx, access,
# faccessat, faccessat2, euidaccess, readlink, readlinkat, statfs, statvfs,
# realpath; their 64 forms and SYS_ numbers), and connect and bind (a
# unix socket's name is resolved by the kernel like any path), in those
# folders' C sources
# and fails on any that is not on tests/lib/confine_allow.txt, the short
# list of paths jsym itself owns, each with its reason (a name in a
# target's root is looked at with confine_stat; fstat and fstatfs of a
# descriptor confine gave need no entry).  An allowlist line that
# matches no call fails too, so the list cannot outlive the code.  Run by
# `make layers` and tests/integration/03-layers.sh.
set -u
cd "$(dirname "$0")/../.."
allow=tests/lib/confine_allow.txt
bad=0

calls=$(git ls-files -co --exclude-standard 'attach/*.c' |
	xargs grep -nE '(^|[^A-Za-z0-9_.>])(open|openat|openat2|open64|openat64|fopen|fopen64|opendir|creat|creat64|stat|stat64|lstat|lstat64|fstatat|fstatat64|newfstatat|statx|access|faccessat|faccessat2|euidaccess|eaccess|readlink|readlinkat|statfs|statfs64|statvfs|statvfs64|realpath|canonicalize_file_name|connect|bind)[[:space:]]*\(|SYS_(open|statx|newfstatat|fstatat|faccessat|readlink|stat|lstat|access)' |
	grep -vE '^[^:]+:[0-9]+:[[:space:]]*(\*|/\*|//)')

declare -A used
while IFS= read -r c; do
	[ -n "$c" ] || continue
	file=${c%%:*}
	text=${c#*:*:}
	ok=0
	while IFS=$'\t' read -r afile apat _why; do
		case $afile in '#'*|'') continue ;; esac
		if [ "$afile" = "$file" ] && [[ "$text" == *"$apat"* ]]; then
			ok=1
			used["$afile"$'\t'"$apat"]=1
		fi
	done <"$allow"
	if [ "$ok" = 0 ]; then
		echo "confine_check: an open, stat or socket name outside common/confine.h: $c" >&2
		echo "  (open a target's path with confine_open/confine_read, look at one with confine_stat, connect to a socket by the fd confine_lookup gave, as fd/N below confine_self_dir(), a /proc/<pid> file with confine_proc; a path of jsym's own goes on $allow with its reason)" >&2
		bad=1
	fi
done <<<"$calls"

while IFS=$'\t' read -r afile apat why; do
	case $afile in '#'*|'') continue ;; esac
	if [ -z "$why" ]; then
		echo "confine_check: $allow: no reason given for $afile: $apat" >&2
		bad=1
	fi
	if [ -z "${used["$afile"$'\t'"$apat"]:-}" ]; then
		echo "confine_check: $allow: no such call any more: $afile: $apat" >&2
		bad=1
	fi
done <"$allow"

n=$(grep -c . <<<"$calls")
if [ "$bad" = 0 ]; then
	echo "confine_check: $n opens, stats and socket names in attach/, all on the allowlist of jsym's own paths; every other path goes through common/confine.h"
fi
exit "$bad"
