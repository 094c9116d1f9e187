#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 40-openj9-sidecar.sh - jsym in a `kubectl debug`-style sidecar attaching
# to the OpenJ9 emulator.
#
# The sidecar shares the target's pid, net and ipc namespaces, has its own
# mount namespace and root, and holds Docker's default capabilities (no
# CAP_SYS_ADMIN, no CAP_SYS_PTRACE).  `jsym exec 1 load ...` must work from
# there (no setns needed for ipc/net, target files through /proc/1/root)
# and leave nothing behind.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/emu/openj9_kit.sh"
j9_init

common=/tmp/.com_ibm_tools_attach
j9_start j9side --
ct=$J9_PID

t_case sidecar-load
t_run kit_sidecar "$ct" --bind "$JSYM_BUILD:/opt/jsym:ro" -- \
	/opt/jsym/jsym exec -v 1 load "$J9_AGENT" true 'out=/tmp/side.out,rc=0'
t_expect_rc 0
t_expect_err 'ipc ns: same'
t_check "the agent ran once in the target" test "$(cat "/proc/$ct/root/tmp/side.out")" = 'out=/tmp/side.out,rc=0'
j9_clean "$ct" "$common"

t_case sidecar-threaddump
t_run kit_sidecar "$ct" --bind "$JSYM_BUILD:/opt/jsym:ro" -- /opt/jsym/jsym exec 1 threaddump
t_expect_rc 0
t_expect_out 'at Emu\.main'
j9_clean "$ct" "$common"

t_finish
