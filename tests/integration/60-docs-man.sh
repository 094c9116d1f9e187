#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 60-docs-man.sh - the man page docs/jsym.1 and `jsym --help` agree.
#
# tests/docs/man_vs_help.py parses both: the commands (--help's "Commands:"
# block, the man page's COMMANDS .SS headings) and every long option
# (`jsym --help` plus every `jsym COMMAND --help`, against the man page
# outside its EXAMPLES).  Any difference fails, named.  The commands come
# from `jsym --help`, which lists the command table (cli_commands.c).  Each command's
# --help is its own (attach's does not list exec's --protocol) and shows
# examples.  The parser is checked too: a man page with one option and one
# command removed must be caught.  groff, when present, must render the page
# without warnings.  Fast, no root.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
J=$JSYM_BUILD/jsym
man=$JSYM_ROOT/docs/jsym.1
cmp=$JSYM_ROOT/tests/docs/man_vs_help.py
[ -x "$J" ] || t_skip "jsym not built (make)"
[ -f "$man" ] || t_abort "no docs/jsym.1"

t_case help-texts
t_run "$J" --help
t_expect_rc 0
cp "$KIT_DIR/t_run.out" "$KIT_DIR/help.txt"
# the commands as jsym's command table lists them (cli_commands.c): the
# first word of the lines under "Commands:"
commands=$(awk '/^Commands:/ {c = 1; next} c && /^[^ ]/ {c = 0} c && /^  [a-z]/ {print $1}' \
	"$KIT_DIR/help.txt" | sort -u | tr '\n' ' ')
t_check "jsym --help lists commands ($commands)" test "$(wc -w <<<"$commands")" -ge 6
helps=()
for c in $commands; do
	t_run "$J" "$c" --help
	t_expect_rc 0
	t_expect_out "^Usage: jsym $c " '^Examples?:$'
	cp "$KIT_DIR/t_run.out" "$KIT_DIR/help-$c.txt"
	helps+=("$KIT_DIR/help-$c.txt")
done
t_check "jsym attach --help is attach's alone (no exec --protocol)" \
	eval "! grep -q -- --protocol '$KIT_DIR/help-attach.txt'"
t_run "$J" help exec
t_expect_rc 0
t_check "jsym help exec is jsym exec --help" cmp -s "$KIT_DIR/t_run.out" "$KIT_DIR/help-exec.txt"

t_case same-commands-and-options
t_run python3 "$cmp" "$man" "$KIT_DIR/help.txt" "${helps[@]}"
t_expect_rc 0
t_eq "$T_OUT" "" "no command or long option differs"
for c in $commands; do
	t_check "the man page has a section for $c" grep -qx "\.SS $c" "$man"
done

t_case the-comparison-catches-a-difference
sed -e '/\\-\\-follow/d' -e '/^\.SS detach$/d' "$man" >"$KIT_DIR/broken.1"
t_run python3 "$cmp" "$KIT_DIR/broken.1" "$KIT_DIR/help.txt" "${helps[@]}"
t_expect_rc 1
t_expect_out 'option only in help: --follow' 'command only in help: detach'

t_case man-page-sections
for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS 'EXIT STATUS' ENVIRONMENT FILES EXAMPLES; do
	t_check "section $s" grep -qx "\.SH $s" "$man"
done
for code in 0 1 2 3 4 5; do
	t_check "exit status $code is described" \
		awk -v c="$code" '/^\.SH EXIT STATUS/ {s = 1; next} /^\.SH/ {s = 0} s && $0 == ".B " c {f = 1} END {exit !f}' "$man"
done
for f in 'perf\\-<pid>.map' 'jsym\\-<pid>.journal' 'jsym\\-<pid>.log' 'jsym\\-<hash>\\-<nspid>\\-<start>'; do
	t_check "FILES names $f" grep -q "$f" "$man"
done

t_case renders
if command -v groff >/dev/null; then
	t_run groff -ww -z -man "$man"
	t_expect_rc 0
	t_eq "$T_ERR" "" "groff has no warning"
else
	t_log "no groff here: rendering not checked"
fi
t_finish
