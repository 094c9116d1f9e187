#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 63-docs-commands.sh - the commands the documents show exist and parse.
#
# tests/docs/doc_commands.py lists every command in the code blocks of
# README.md and docs/*.md that starts with jsym, make, perf or kubectl.
#   - jsym: run with every pid replaced by one that cannot exist (9999999),
#     in a private pid namespace where no JVM is visible (so `attach --all`
#     and `list` touch nothing on this machine): the exit status must not
#     be 1 (a usage error); `--help` and `list` must exit 0
#   - make: `make -n` with the documented arguments exits 0
#   - perf: the subcommand exists and `perf SUB -h` lists every option shown
#     (--no-X as its --X: perf negates every boolean option that way)
#   - kubectl: must carry the marker `# docs-test: needs-kubernetes`
#     (docs/testing.md); it cannot run here, so its case is skipped
# Synopsis lines (placeholders such as PID, [--json], ...) are not run:
# their cases are skipped with the line as the reason, never passed.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "a private pid namespace (unshare --pid)"
J=$JSYM_BUILD/jsym
[ -x "$J" ] || t_skip "jsym not built (make)"
nopid=9999999
list=$KIT_DIR/commands.tsv
(cd "$JSYM_ROOT" && python3 tests/docs/doc_commands.py README.md docs/*.md) >"$list" ||
	t_abort "tests/docs/doc_commands.py failed"
t_check "the documents show commands ($(wc -l <"$list"))" test "$(wc -l <"$list")" -gt 10

# pids WORDS...: the words with every pid (a bare number that is not the
# value of a numeric option) replaced by $nopid.
pids() {
	local prev="" w out=()
	for w; do
		case $prev in
		-t | --timeout | -r | --read-timeout | -j | --jobs | --at) out+=("$w") ;;
		*) if [[ $w =~ ^[0-9]+$ ]]; then out+=("$nopid"); else out+=("$w"); fi ;;
		esac
		prev=$w
	done
	printf '%s\n' "${out[*]}"
}

while IFS=$'\t' read -r where kind cmd <&3; do
	t_case "$where"
	read -ra words <<<"$cmd"
	case $kind in
	jsym)
		read -ra args <<<"$(pids "${words[@]:1}")"
		t_run --as "$cmd -> jsym ${args[*]}" timeout 60 \
			unshare --pid --fork --mount-proc "$J" "${args[@]}"
		t_check "not a usage error (exit $T_RC)" test "$T_RC" != 1
		t_expect_not_err '^usage|unknown (option|command)|unrecognized'
		case ${args[0]} in --help | list) t_expect_rc 0 ;; esac
		;;
	make)
		t_run --as "make -n ${words[*]:1}" make -n -C "$JSYM_ROOT" "${words[@]:1}"
		t_expect_rc 0
		;;
	perf)
		if ! command -v perf >/dev/null; then
			t_skip_case "no perf here: '$cmd' not checked"
			continue
		fi
		sub=${words[1]}
		t_check "perf has '$sub'" eval "perf --list-cmds | tr ' ' '\\n' | grep -qx '$sub'"
		perf "$sub" -h >"$KIT_DIR/perf-help" 2>&1
		for w in "${words[@]:2}"; do
			[ "$w" = -- ] && break
			# perf's parser takes --no-X for every boolean --X its
			# help lists (parse-options.c)
			opt=$w
			case $w in --no-*) grep -qE "(^|[ ,])$w([ ,]|$)" "$KIT_DIR/perf-help" ||
				opt=--${w#--no-} ;; esac
			case $w in -*) t_check "perf $sub knows $w" grep -qE "(^|[ ,])$opt([ ,]|$)" "$KIT_DIR/perf-help" ;; esac
		done
		;;
	kubectl) t_fail "'$cmd' needs Kubernetes: mark it '# docs-test: needs-kubernetes'" ;;
	k8s) t_skip_case "needs Kubernetes (marked so), not run here: $cmd" ;;
	synopsis) t_skip_case "a synopsis (placeholders), not a command to run: $cmd" ;;
	*) t_fail "unknown kind $kind" ;;
	esac
done 3<"$list"
t_finish
