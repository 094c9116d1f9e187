#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/lib/funclen.sh [N | NAME...] - the length in lines of the product's C
# functions (every tracked .c outside tests/ and docs/: attach/, agent/,
# common/, and a new folder without being told), from the opening line to
# the closing brace, as Universal Ctags sees them (its `end:` field).
#
#   bash tests/lib/funclen.sh            the 10 longest
#   bash tests/lib/funclen.sh 25         the 25 longest
#   bash tests/lib/funclen.sh attaching_one flush_once   those functions only
#   bash tests/lib/funclen.sh --check 80  the functions longer than 80
#                                         lines; exit 1 if there is one
# The limit for product functions is 80 lines (tests/integration/03-layers.sh
# checks it; CONTRIBUTING.md).
set -u
cd "$(dirname "$0")/../.."
command -v ctags >/dev/null || { echo "funclen.sh: no ctags (universal-ctags)" >&2; exit 2; }
all=$(git ls-files '*.c' ':!:tests/*' ':!:docs/*' |
	xargs ctags -x --_xformat='%N %F %n %{end}' --kinds-c=f 2>/dev/null |
	awk '$4 != "" { printf "%5d  %s  %s:%d\n", $4 - $3 + 1, $1, $2, $3 }' |
	sort -k1,1nr -k2,2)
[ -n "$all" ] || { echo "funclen.sh: ctags found no function" >&2; exit 2; }
if [ "${1:-}" = --check ]; then
	over=$(printf '%s\n' "$all" | awk -v n="${2:-80}" '$1 > n')
	[ -z "$over" ] || { printf 'longer than %d lines:\n%s\n' "${2:-80}" "$over"; exit 1; }
	echo "funclen: no product function is longer than ${2:-80} lines"
	exit 0
fi
if [ $# -eq 0 ] || [[ $1 =~ ^[0-9]+$ ]]; then
	printf '%s\n' "$all" | head -n "${1:-10}"
	exit 0
fi
for f in "$@"; do
	printf '%s\n' "$all" | awk -v f="$f" '$2 == f'
done
