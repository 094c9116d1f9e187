#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 40-openj9-load.sh - jsym exec against the OpenJ9 emulator in a container.
#
# The emulator (tests/emu/openj9_emu) is PID 1 of a container with its own
# mount (private /tmp), ipc, net and pid namespaces, uid 1000.  From the
# host as root: load (agent ran once with the options), load again
# (Agent_OnAttach ran again), agent returning 7 (exit 4), missing library
# (AgentLoadException, exit 3), properties, threaddump (canned dump with
# characters that need escaping comes back verbatim), unknown jcmd (exit 3),
# printflag (not supported).  After every case: no replyInfo, no stray file
# in the common dir, semaphore #0 at 0, no lock left.  The emulator's log
# shows the set it opened has 2 members and that it echoed the key it read.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/emu/openj9_kit.sh"
j9_init

common=/tmp/.com_ibm_tools_attach
j9_start j9load -- --diag /tmp/diag.txt
ct=$J9_PID
root=/proc/$ct/root
printf '"main" prio=5 a=b:c #!\\ \ttab \xc3\xa9\n\tat Emu.run(Emu.java:1)\n' >"$root/tmp/diag.txt"

t_case setup
t_check "emulator is PID 1 of its pid ns" test "$(awk '/^NSpid:/ {print $NF}' "/proc/$ct/status")" = 1
t_check "emulator runs as uid 1000" test "$(awk '/^Uid:/ {print $3}' "/proc/$ct/status")" = 1000
t_check "maps show libj9vm29.so" grep -q libj9vm29.so "/proc/$ct/maps"
t_check "VM dir 1 is 01711, uid 1000" test "$(stat -c %a:%u "$root$common/1")" = 1711:1000
t_check "common dir is 01777" test "$(stat -c %a "$root$common")" = 1777
t_check "the set the emulator opened has 2 members" eval 'j9_emu_log $ct | grep -q "^semaphore .*nsems=2"'

t_case load-ok
j9_jsym -v "$ct" load "$J9_AGENT" true 'out=/tmp/agent.out,rc=0'
t_expect_rc 0
t_check "agent ran once with the options" \
	test "$(cat "$root/tmp/agent.out")" = 'out=/tmp/agent.out,rc=0'
t_expect_err 'OpenJ9'
t_check "emulator: load count=1" eval 'j9_emu_log $ct | grep -q "^load lib=$J9_AGENT .*rc=0 count=1"'
key_read=$(j9_emu_log "$ct" | sed -n 's/^replyInfo key=\([^ ]*\) .*/\1/p' | tail -n 1)
key_sent=$(j9_emu_log "$ct" | sed -n 's/^connected .*key=\(.*\)$/\1/p' | tail -n 1)
t_check "key is 16 lowercase hex ($key_read)" eval '[[ $key_read =~ ^[0-9a-f]{16}$ ]]'
t_check "the emulator echoed the key it read" test "$key_read" = "$key_sent"
t_check "replyInfo was owned by uid 1000, mode 0600" \
	eval 'j9_emu_log $ct | grep "^replyInfo key=$key_read" | grep -q "uid=1000 mode=0600"'
j9_clean "$ct" "$common"

t_case load-twice
j9_jsym "$ct" load "$J9_AGENT" true 'out=/tmp/agent.out,rc=0'
t_expect_rc 0
t_check "Agent_OnAttach ran a second time" test "$(wc -l <"$root/tmp/agent.out")" = 2
t_check "emulator: same library, count=2" eval 'j9_emu_log $ct | grep -q "^load lib=$J9_AGENT .*count=2"'
j9_clean "$ct" "$common"

t_case load-by-name
j9_jsym "$ct" load test_agent false 'out=/tmp/byname.out,rc=0'
t_expect_rc 0
t_check "ATTACH_LOADAGENT with the bare name" \
	eval 'j9_emu_log $ct | grep -q "^cmd ATTACH_LOADAGENT(test_agent,out=/tmp/byname.out,rc=0)$"'
t_check "the VM decorated it to libtest_agent.so and ran it" test -s "$root/tmp/byname.out"
j9_clean "$ct" "$common"

t_case agent-returns-7
j9_jsym "$ct" load "$J9_AGENT" true 'out=/tmp/agent7.out,rc=7'
t_expect_rc 4
t_expect_err 'returned 7'
t_check "the agent ran" test -s "$root/tmp/agent7.out"
j9_clean "$ct" "$common"

t_case missing-library
j9_jsym "$ct" load /opt/jsym/no/such/lib.so true 'x=1'
t_expect_rc 3
t_expect_err 'AgentLoadException'
j9_clean "$ct" "$common"

t_case comma-in-path
j9_jsym "$ct" load /opt/a,b/lib.so true ''
t_check "refused before attaching (exit $T_RC)" test "$T_RC" = 2 -o "$T_RC" = 1
t_expect_err "','"

t_case properties
j9_jsym "$ct" properties
t_expect_rc 0
t_expect_out '^java\.vm\.name=Eclipse OpenJ9 VM$'
j9_clean "$ct" "$common"

t_case threaddump
j9_jsym "$ct" threaddump
t_expect_rc 0
t_check "the canned dump came back verbatim (escapes decoded)" \
	test "$T_OUT" = "$(cat "$root/tmp/diag.txt")"
t_check "emulator got ATTACH_DIAGNOSTICS:Thread.print" \
	eval 'j9_emu_log $ct | grep -q "^cmd ATTACH_DIAGNOSTICS:Thread.print$"'
j9_clean "$ct" "$common"

t_case jcmd-unknown
j9_jsym "$ct" jcmd No.such command
t_expect_rc 3
t_expect_out 'No\.such not recognized'
t_check "emulator got the words joined by commas" \
	eval 'j9_emu_log $ct | grep -q "^cmd ATTACH_DIAGNOSTICS:No.such,command$"'
j9_clean "$ct" "$common"

t_case printflag
j9_jsym "$ct" printflag MaxHeapSize
t_check "refused (exit $T_RC)" test "$T_RC" != 0
t_expect_err 'not supported by OpenJ9'

t_case client-driver-leak-check
j9_client "$ct" load "$J9_AGENT" true 'out=/tmp/agent.out,rc=0'
t_expect_rc 0
t_expect_err 'check: clean'
j9_client "$ct" threaddump
t_expect_rc 0
t_expect_err 'check: clean'
j9_clean "$ct" "$common"

t_case detach
t_check "every attachment ended with ATTACH_DETACHED" \
	test "$(j9_emu_log "$ct" | grep -c '^cmd ATTACH_DETACHED$')" = \
	"$(j9_emu_log "$ct" | grep -c '^connected ')"

t_finish
