# SPDX-License-Identifier: Apache-2.0
# tests/lib/run.sh - run a command under test and check what it said.
# Sourced by tests/lib/lib.sh, not on its own.
#
# t_run captures one command's exit status, stdout and stderr into T_RC,
# T_OUT, T_ERR and shows them in the log; the t_expect_* checks then look at
# those.  A hang guard is the caller's (`t_run timeout 30 CMD...`).

T_RC=0
T_OUT=
T_ERR=

# t_collect RC OUTFILE ERRFILE LABEL: set T_RC, T_OUT, T_ERR from a command
# that already ran (in the background, say) and show them: `+ LABEL -> exit
# RC`, the first 8 lines of stdout and all of stderr, long lines cut.
t_collect() {
	local label=$4
	T_RC=$1
	T_OUT=$(cat "$2" 2>/dev/null)
	T_ERR=$(cat "$3" 2>/dev/null)
	[ ${#label} -gt 160 ] && label="${label:0:120}...(${#4} chars)"
	{
		echo "+ $label -> exit $T_RC"
		head -n 8 "$2" 2>/dev/null | cut -c1-200 | sed 's/^/  out| /'
		cut -c1-300 "$3" 2>/dev/null | sed 's/^/  err| /'
	} >&2
	return 0
}

# t_run [--as LABEL] CMD...: run CMD (stdin /dev/null), t_collect its results.
# LABEL names it in the log (default: CMD itself).  Always returns 0.
t_run() {
	local label='' rc
	if [ "${1:-}" = --as ]; then
		label=$2
		shift 2
	fi
	"$@" </dev/null >"$KIT_DIR/t_run.out" 2>"$KIT_DIR/t_run.err"
	rc=$?
	t_collect "$rc" "$KIT_DIR/t_run.out" "$KIT_DIR/t_run.err" "${label:-$*}"
}

# t_expect_rc N: T_RC is N.
t_expect_rc() {
	if [ "$T_RC" = "$1" ]; then
		t_pass "exit $1"
	else
		t_fail "expected exit $1, got $T_RC"
	fi
}

# _t_expect_in yes|no WHAT TEXT [-i] ERE...: each ERE must (yes) or must not
# (no) match TEXT; -i: case-insensitively.  Returns 1 if any check failed.
_t_expect_in() {
	local want=$1 what=$2 text=$3 flags=-qE w found bad=0
	shift 3
	if [ "${1:-}" = -i ]; then
		flags=-qiE
		shift
	fi
	for w in "$@"; do
		found=no
		grep $flags -- "$w" <<<"$text" && found=yes
		if [ $found = "$want" ]; then
			t_pass "$what: /$w/ $([ "$want" = yes ] && echo found || echo absent)"
		else
			t_fail "$what $([ "$want" = yes ] && echo 'does not mention' || echo mentions) /$w/"
			bad=1
		fi
	done
	return $bad
}

# t_expect_out [-i] ERE...: each ERE matches T_OUT (-i: ignoring case).
t_expect_out() { _t_expect_in yes stdout "$T_OUT" "$@"; }
# t_expect_err [-i] ERE...: each ERE matches T_ERR.
t_expect_err() { _t_expect_in yes stderr "$T_ERR" "$@"; }
# t_expect_not_err [-i] ERE...: no ERE matches T_ERR.
t_expect_not_err() { _t_expect_in no stderr "$T_ERR" "$@"; }
