#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/lib/funclen.sh [N | NAME...] - the length in lines of the product's C
# functions (attach/, agent/), from the opening line to the closing brace, as
# Universal Ctags sees them (its `end:` field).
#
#   bash tests/lib/funclen.sh            the 10 longest
#   bash tests/lib/funclen.sh 25         the 25 longest
#   bash tests/lib/funclen.sh attach_one flush_once   those functions only
set -u
cd "$(dirname "$0")/../.."
all=$(git ls-files 'attach/*.c' 'agent/*.c' |
	xargs ctags -x --_xformat='%N %F %n %{end}' --kinds-c=f 2>/dev/null |
	awk '$4 != "" { printf "%5d  %s  %s:%d\n", $4 - $3 + 1, $1, $2, $3 }' |
	sort -k1,1nr -k2,2)
if [ $# -eq 0 ] || [[ $1 =~ ^[0-9]+$ ]]; then
	printf '%s\n' "$all" | head -n "${1:-10}"
	exit 0
fi
for f in "$@"; do
	printf '%s\n' "$all" | awk -v f="$f" '$2 == f'
done
