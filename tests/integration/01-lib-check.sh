#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 01-lib-check.sh - the test library cannot lie about what ran
# (tests/lib/check.sh, issue 17 point 4): a case that recorded no check is
# listed as empty and counted, not passed; a case skipped with t_skip_case
# is listed with its reason and counted as skipped; the summary line says
# both.  Runs small scenarios of its own and reads their last lines.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

# inner BODY: run a scenario made of BODY; its stderr in $T_ERR, status $T_RC.
inner() {
	local f=$KIT_DIR/inner.sh
	printf 'source "%s/tests/lib/lib.sh"\n%s\n' "$JSYM_ROOT" "$1" >"$f"
	t_run bash "$f"
}

t_case empty-case-not-passed
inner 't_case did-something; t_pass one
t_case did-nothing
t_finish'
t_expect_rc 0
t_expect_err '^  pass did-something$' '^  empty did-nothing \(no check ran\)$'
t_expect_not_err '^  pass did-nothing$'
t_expect_err '^summary: 1 checks, 0 failed, 1 empty$'

t_case skipped-case-counted-with-reason
inner 't_case runs; t_pass one
t_case needs-jdk8; t_skip_case "no JDK 8 in tests/kit/jdks.list here"
t_finish'
t_expect_rc 0
t_expect_err '^skip \[needs-jdk8\]: no JDK 8 in tests/kit/jdks.list here$'
t_expect_err '^  skip needs-jdk8: no JDK 8 in tests/kit/jdks.list here$'
t_expect_not_err '^  pass needs-jdk8$'
t_expect_err '^summary: 1 checks, 0 failed, 1 skipped$'

t_case failure-still-fails
inner 't_case a; t_fail broken
t_case b; t_skip_case "not here"
t_finish'
t_expect_rc 1
t_expect_err '^summary: 1 checks, 1 failed, 1 skipped$'
t_finish
