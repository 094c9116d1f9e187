#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 03-layers.sh - one entry per layer (issue 18 point 2): every include of
# attach/ names the folder's own header or the entry header of a layer
# below (tests/lib/include_graph.sh --check), and the build enforces it: a
# source of attach/cli that includes attach/proc's internal proc.h does not
# compile with attach/cli's include paths, while one that includes the
# entry target.h does.  And every open of attach/ goes
# through the one confined open, common/confine.h (issue 24): the source
# check fails on any other but jsym's own paths (tests/lib/confine_check.sh),
# and on a bypass planted for the test (a plain openat, a connect by
# name).
# And no product function is longer than 80 lines
# (tests/lib/funclen.sh --check 80).
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

t_case include-graph
graph=$(bash "$JSYM_ROOT/tests/lib/include_graph.sh" --check 2>&1)
rc=$?
printf '%s\n' "$graph"
t_eq "$rc" 0 "include_graph.sh --check finds no include of another layer's inside"
# in a copy of the tree, an entry made a forwarder, and a header named
# like another, must each fail it
plant=$(mktemp -d)
kit_on_exit "rm -rf '$plant'"
(cd "$JSYM_ROOT" && tar -cf - $(git ls-files -co --exclude-standard attach agent common \
	tests/lib)) | tar -xf - -C "$plant"
(cd "$plant" && git init -q . && git add -A >/dev/null 2>&1)
cp "$plant/attach/run/include/run.h" "$plant/run.h.orig"
printf '/* SPDX-License-Identifier: Apache-2.0 */\n#include "base.h"\n#include "hotspot.h"\n' \
	>"$plant/attach/run/include/run.h"
t_run bash "$plant/tests/lib/include_graph.sh" --check
t_expect_rc 1
t_expect_out 'run.h: an entry that only includes other headers'
cp "$plant/run.h.orig" "$plant/attach/run/include/run.h"
printf '/* SPDX-License-Identifier: Apache-2.0 */\n' >"$plant/attach/proc/run.h"
(cd "$plant" && git add attach/proc/run.h)
t_run bash "$plant/tests/lib/include_graph.sh" --check
t_expect_rc 1
t_expect_out 'two headers named run.h'

t_case function-length
# tests/lib/funclen.sh --check 80: no product function (every .c outside
# tests/ and docs/: attach/, agent/, common/) over 80 lines; and the check
# itself fails on a limit every tree breaks
t_run bash "$JSYM_ROOT/tests/lib/funclen.sh" --check 80
t_expect_rc 0
t_run bash "$JSYM_ROOT/tests/lib/funclen.sh" --check 20
t_expect_rc 1
t_expect_out '^longer than 20 lines:'

t_case build-enforces
inc=$(make -s -C "$JSYM_ROOT" --no-print-directory JSYM_DEPS_DONE=1 print-inc \
	DIR=attach/cli 2>/dev/null)
t_check "make print-inc gives attach/cli's include paths" test -n "$inc"
tmp=$(mktemp -d)
kit_on_exit "rm -rf '$tmp'"
printf '#include "target.h"\nint layers_probe;\n' >"$tmp/entry.c"
printf '#include "proc.h"\nint layers_probe;\n' >"$tmp/inside.c"
# shellcheck disable=SC2086 # $inc is a list of -I flags
t_check "the entry target.h compiles from attach/cli" \
	eval "cd '$JSYM_ROOT' && gcc -std=gnu11 -D_GNU_SOURCE -fsyntax-only $inc '$tmp/entry.c'"
# shellcheck disable=SC2086
t_check "target's internal proc.h does not" \
	eval "! (cd '$JSYM_ROOT' && gcc -std=gnu11 -D_GNU_SOURCE -fsyntax-only $inc '$tmp/inside.c' 2>/dev/null)"
own=$(make -s -C "$JSYM_ROOT" --no-print-directory JSYM_DEPS_DONE=1 print-inc \
	DIR=attach/proc 2>/dev/null)
# shellcheck disable=SC2086
t_check "while proc.h compiles with attach/proc's own paths" \
	eval "cd '$JSYM_ROOT' && gcc -std=gnu11 -D_GNU_SOURCE -fsyntax-only $own '$tmp/inside.c'"
t_case confined-open
out=$(bash "$JSYM_ROOT/tests/lib/confine_check.sh" 2>&1)
rc=$?
printf '%s\n' "$out"
t_eq "$rc" 0 "confine_check.sh finds no open outside common/confine.h but jsym's own paths"
# a copy of the tree's sources with one plain openat added must fail it
copy=$(mktemp -d)
kit_on_exit "rm -rf '$copy'"
(cd "$JSYM_ROOT" && git ls-files -co --exclude-standard attach tests/lib common |
	cpio -pdm --quiet "$copy" 2>/dev/null || tar -cf - $(git ls-files -co --exclude-standard \
	attach tests/lib common) | tar -xf - -C "$copy")
printf 'int confine_bypass(void);\nint confine_bypass(void) { return openat(3, "etc/hostname", 0); }\n' \
	>>"$copy/attach/proc/uts.c"
(cd "$copy" && git init -q . && git add -A >/dev/null 2>&1)
t_check "a plain openat added to attach/proc/uts.c fails the check" \
	eval "! bash '$copy/tests/lib/confine_check.sh' 2>/dev/null"
# and, the openat taken away, a connect to a socket by its name
sed -i '/^int confine_bypass/d' "$copy/attach/proc/uts.c"
t_check "the copy without it passes" bash "$copy/tests/lib/confine_check.sh"
printf 'int confine_bypass(int s, const void *a);\nint confine_bypass(int s, const void *a) { return connect(s, a, 110); }\n' \
	>>"$copy/attach/hotspot/hs_io.c"
t_check "a connect by name added to attach/hotspot/hs_io.c fails the check" \
	eval "! bash '$copy/tests/lib/confine_check.sh' 2>/dev/null"
t_finish
