# SPDX-License-Identifier: Apache-2.0
# tests/lib/check.sh - counted checks, skips and the summary line of a
# scenario.  Sourced by tests/lib/lib.sh, not on its own.
#
# A check prints `ok:   DESC` or `FAIL [CASE]: DESC` on stderr (never on
# stdout, so a check inside $(...) cannot end up in a value) and returns 0 or
# 1.  A failed check does not stop a scenario by itself: every case runs and
# the log shows all failures at once.  Under `set -e` a failed check ends the
# script like any failing command.  Either way the scenario fails: t_finish
# (or, without it, the exit trap) prints `summary: N checks, M failed` as the
# last line and exits 1 when M > 0.
#
# A skip prints `skip: REASON` on stdout as the last line and exits 77, which
# tests/run-integration.sh shows as the reason.  One case can be skipped
# (t_skip_case REASON) while the others run: it is listed as `skip CASE:
# REASON` and counted apart in the summary, never as passed.  A case that
# recorded no check at all is listed as `empty`, not `pass`, and counted.

T_CASE=
T_FINISHED=0

# _t_record ok|FAIL|case|known|skip TEXT: one line of the checks file.
_t_record() {
	printf '%s\t%s\t%s\n' "$1" "${T_CASE:-setup}" "$2" >>"$T_CHECKS_FILE"
}

# t_pass DESC: count a passed check.
t_pass() {
	_t_record ok "$*"
	echo "ok:   $*" >&2
	return 0
}

# t_fail DESC: count a failed check and go on; returns 1.
t_fail() {
	_t_record FAIL "$*"
	echo "FAIL [${T_CASE:-setup}]: $*" >&2
	return 1
}

# t_abort DESC: count a failed check and end the scenario now (exit 1), for
# a failure that leaves nothing sensible to check afterwards.
t_abort() {
	_t_record FAIL "$*"
	echo "FAIL [${T_CASE:-setup}]: $*" >&2
	exit 1
}

# t_check DESC CMD...: run CMD; it passes when CMD exits 0.
t_check() {
	local desc=$1
	shift
	if "$@"; then
		t_pass "$desc"
	else
		t_fail "$desc"
	fi
}

# t_eq ACTUAL EXPECTED DESC: the two strings are equal.
t_eq() {
	if [ "$1" = "$2" ]; then
		t_pass "$3"
	else
		t_fail "$3: got '$1', expected '$2'"
	fi
}

# t_contains HAYSTACK NEEDLE DESC: NEEDLE is a substring of HAYSTACK.
t_contains() {
	case $1 in
	*"$2"*) t_pass "$3" ;;
	*) t_fail "$3: '$2' not found in: $1" ;;
	esac
}

# t_case NAME: the checks that follow belong to sub-case NAME (shown with
# each failure and in the summary).
t_case() {
	T_CASE=$1
	_t_record case "$1"
	printf '\n=== case: %s\n' "$1" >&2
}

# t_known_bug TEXT: the current case fails because of a known, not yet fixed
# jsym bug.  When every failed case is such a known bug, t_finish skips (77)
# with "skip: known bug: TEXT" instead of failing, so the bug stays visible
# without breaking CI.  Any other failure still fails the scenario.
t_known_bug() {
	_t_record known "$*"
}

# t_skip_case REASON: the current case cannot run here (no such JDK, no
# capability...): say why; it is counted as skipped, not passed.  The
# scenario goes on with its next case.
t_skip_case() {
	_t_record skip "$*"
	echo "skip [${T_CASE:-setup}]: $*" >&2
}

# t_matrix JDK FEATURE pass|fail|skip [REASON]: one cell of the JDK
# coverage table on stdout (docs/testing.md "The JDK matrix";
# tests/docs/matrix_table.py reads these lines from a run's logs).
t_matrix() {
	echo "matrix: JDK=$1 feature=$2 result=$3${4:+ reason=$4}"
}

# t_case_result: fail if a check of the current case failed, else pass.
t_case_result() {
	awk -F'\t' -v c="${T_CASE:-setup}" '$1 == "FAIL" && $2 == c {f = 1}
		END {print f ? "fail" : "pass"}' "$T_CHECKS_FILE"
}

# t_log MSG...: a progress line on stderr.
t_log() {
	echo "--- $*" >&2
}

# t_skip REASON: print "skip: REASON" as the last line, exit 77.
t_skip() {
	T_FINISHED=1
	echo "skip: $*"
	exit 77
}

# t_need_root [WHY]: skip unless root.
t_need_root() {
	[ "$(id -u)" = 0 ] || t_skip "needs root${1:+ ($1)}"
}

# _t_verdict RC: print the per-case lines and the summary line, last; set
# T_STATUS to what the scenario must end with: 1 when a check failed, 77 when
# only known bugs failed, else RC (the script's own status).
_t_verdict() {
	local rc=$1 checks fails unknown known c empty=0 skipped=0 why tail=
	checks=$(grep -cE '^(ok|FAIL)	' "$T_CHECKS_FILE" 2>/dev/null) || checks=0
	fails=$(grep -cE '^FAIL	' "$T_CHECKS_FILE" 2>/dev/null) || fails=0
	while IFS= read -r c; do
		[ -n "$c" ] || continue
		why=$(awk -F'\t' -v c="$c" '$1 == "skip" && $2 == c {print $3; exit}' "$T_CHECKS_FILE")
		if grep -qF "FAIL	$c	" "$T_CHECKS_FILE"; then
			echo "  FAIL $c" >&2
		elif [ -n "$why" ]; then
			echo "  skip $c: $why" >&2
			skipped=$((skipped + 1))
		elif ! grep -qF "ok	$c	" "$T_CHECKS_FILE"; then
			echo "  empty $c (no check ran)" >&2
			empty=$((empty + 1))
		else
			echo "  pass $c" >&2
		fi
	done < <(awk -F'\t' '$1 == "case" && !seen[$2]++ {print $2}' "$T_CHECKS_FILE" 2>/dev/null)
	[ "$skipped" = 0 ] || tail="$tail, $skipped skipped"
	[ "$empty" = 0 ] || tail="$tail, $empty empty"
	T_STATUS=$rc
	if [ "$fails" -gt 0 ]; then
		T_STATUS=1
		# Failed cases with no known bug recorded.
		unknown=$(awk -F'\t' '$1 == "known" {k[$2] = 1} $1 == "FAIL" {f[$2] = 1}
			END {for (c in f) if (!(c in k)) n++; print n + 0}' "$T_CHECKS_FILE")
		known=$(awk -F'\t' '$1 == "known" {printf "%s%s: %s", sep, $2, $3; sep = "; "}' "$T_CHECKS_FILE")
		if [ "$unknown" = 0 ] && [ "$rc" = 0 ]; then
			echo "summary: $checks checks, $fails failed$tail, all in known bugs" >&2
			T_STATUS=77
			echo "skip: known bug: $known"
			return
		fi
		echo "summary: $checks checks, $fails failed$tail" >&2
	elif [ "$rc" != 0 ]; then
		echo "summary: $checks checks, 0 failed$tail, but the script ended with status $rc" >&2
	else
		echo "summary: $checks checks, 0 failed$tail" >&2
	fi
}

# t_finish: print the summary and end the scenario: 0 when every check
# passed, 1 when one failed, 77 when only known bugs failed.
t_finish() {
	_t_verdict 0
	T_FINISHED=1
	exit "$T_STATUS"
}

# t_exit_trap: the EXIT trap lib.sh installs.  Without t_finish (a script
# that just ends, or one stopped by `set -e` or t_abort) it prints the
# summary and turns a status of 0 into 1 when a check failed; a skip stays a
# skip with its reason last.  Then the kit's cleanup.
t_exit_trap() {
	local rc=$?
	T_STATUS=$rc
	if [ "$T_FINISHED" = 0 ] && [ "$rc" != 77 ] && [ -f "${T_CHECKS_FILE:-}" ]; then
		_t_verdict "$rc"
	fi
	kit_cleanup
	exit "$T_STATUS"
}
