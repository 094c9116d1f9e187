#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 02-licence.sh - jsym is Apache-2.0 (issue 17 point 5): LICENSE holds the
# licence's text, and every source file git tracks (C, headers, shell,
# python, make fragments, Java, linker maps, manifests) says so in an SPDX
# line among its first three lines.  `make install` and the image carry
# LICENSE (61-install-tree, 62-kube-manifests).
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

t_case licence-text
lic=$JSYM_ROOT/LICENSE
t_check "LICENSE exists" test -s "$lic"
t_check "it is the Apache License, Version 2.0" \
	eval "grep -q '^ *Apache License\$' '$lic' && grep -q 'Version 2.0, January 2004' '$lic'"
t_check "with its terms and the appendix" \
	eval "grep -q 'TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION' '$lic' && grep -q 'APPENDIX: How to apply the Apache License' '$lic'"

t_case spdx-in-every-source
missing=$(cd "$JSYM_ROOT" && git ls-files |
	grep -E '\.(c|h|sh|bash|py|mk|java|map|yaml)$|(^|/)(Makefile|Dockerfile)$|^\.ci/run$' |
	while IFS= read -r f; do
		head -n 3 "$f" | grep -q 'SPDX-License-Identifier: Apache-2.0' || echo "$f"
	done)
t_eq "$missing" "" "every tracked source file has the SPDX line"
t_finish
