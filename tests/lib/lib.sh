# SPDX-License-Identifier: Apache-2.0
# tests/lib/lib.sh - what every integration scenario sources first.
#
#   source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
#
# One vocabulary for all scenarios (docs/testing.md has a template):
#   check.sh  t_check t_eq t_contains t_pass t_fail t_abort t_case t_known_bug
#             t_matrix t_case_result
#             t_finish t_skip t_skip_case t_need_root t_log
#   watch.sh  t_watch_open t_watch_result (was a planted file opened?)
#   run.sh    t_run t_collect t_expect_rc t_expect_out t_expect_err t_expect_not_err
#   jdk.sh    t_jdks t_jdk_major t_jdk_matrix t_jvm_wait_quiet
#   deploy.sh t_copies_are t_detach_keeps_mapped
#   procs.sh  t_agents t_owner t_wait_log t_same_ranges
#   list.sh   t_list_row t_list_container (jsym list's row of a JVM)
#   the kit   tests/kit/kit.sh (containers: kit_start, kit_exec, kit_sidecar, ...)
#
# The kit is always loaded: it owns the per-script state directory $KIT_DIR
# and the cleanup (register your own with kit_on_exit, never with `trap`).
# This file replaces the kit's EXIT trap by t_exit_trap, which prints the
# summary of the checks, fails the scenario when a check failed even if the
# script itself ended with 0, and then runs kit_cleanup.

if [ -n "${T_LIB_LOADED:-}" ]; then
	return 0
fi
T_LIB_LOADED=1

: "${JSYM_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
source "$JSYM_ROOT/tests/kit/kit.sh"
source "$JSYM_ROOT/tests/lib/check.sh"
source "$JSYM_ROOT/tests/lib/run.sh"
source "$JSYM_ROOT/tests/lib/jdk.sh"
source "$JSYM_ROOT/tests/lib/watch.sh"
source "$JSYM_ROOT/tests/lib/deploy.sh"
source "$JSYM_ROOT/tests/lib/procs.sh"
source "$JSYM_ROOT/tests/lib/list.sh"

# Every check appends a line here rather than to a shell variable, so a check
# made in a subshell ($(...), a pipeline, a background job) still counts.
T_CHECKS_FILE=$KIT_DIR/checks
: >"$T_CHECKS_FILE"

trap 't_exit_trap' EXIT
