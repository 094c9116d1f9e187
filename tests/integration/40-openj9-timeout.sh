#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 40-openj9-timeout.sh - an OpenJ9 VM that never connects back, and posts
# that nobody consumes: jsym must time out and leave nothing behind.
#
# Container 1: the emulator with --never-answer (it takes its post and reads
# replyInfo, then never connects), plus a stale VM dir (no process behind
# it), so jsym posts twice and one post stays unconsumed.  `jsym exec -t 1500`
# fails with "did not connect back"; afterwards: no replyInfo, semaphore #0
# at 0 (jsym cancelled the extra post), no lock on _attachlock or any sync
# file.  Container 2: a normal emulator with the same stale dir: the load
# works and the emulator wakes exactly once per attach (no stray post).
# Container 2 also: the set is removed: a clear "not listening" error; then
# a 1-member set as jattach creates it: an error naming that cause.
# Container 3: a VM that answers too slowly: the reply timeout fires, the
# client still detaches nothing and leaves nothing.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/emu/openj9_kit.sh"
j9_init

common=/tmp/.com_ibm_tools_attach

# A VM dir whose VM is gone, as uid 1000 inside container $1.
add_stale_vm() {
	kit_exec "$1" --uid 1000 --gid 1000 -- sh -c "
		mkdir $common/4242 && chmod 1711 $common/4242 &&
		: > $common/4242/attachNotificationSync && chmod 666 $common/4242/attachNotificationSync &&
		printf 'processId=4242\nvmId=4242\n' > $common/4242/attachInfo && chmod 600 $common/4242/attachInfo"
}

t_case never-answer
j9_start j9mute -- --never-answer
ct=$J9_PID
t_check "stale VM dir added" add_stale_vm "$ct"
j9_jsym -t 1500 -v "$ct" properties
t_expect_rc 2
t_expect_err 'did not connect back within 1500 ms'
t_expect_err 'x2'
j9_clean "$ct" "$common"
t_check "the emulator saw our replyInfo" eval 'j9_emu_log $ct | grep -q "^replyInfo key=.* never-answer"'
j9_client -t 1500 "$ct" load "$J9_AGENT" true 'out=/tmp/never.out'
t_expect_rc 2
t_expect_err 'check: clean'
j9_clean "$ct" "$common"
kit_stop j9mute

t_case stray-posts-cancelled
j9_start j9stale --
ct=$J9_PID
add_stale_vm "$ct"
j9_jsym "$ct" load "$J9_AGENT" true 'out=/tmp/agent.out,rc=0'
t_expect_rc 0
sleep 1 # an uncancelled post would wake the emulator again within 300 ms
t_check "the emulator woke once for one attach" test "$(j9_emu_log "$ct" | grep -c '^woke$')" = 1
j9_clean "$ct" "$common"
j9_jsym "$ct" load "$J9_AGENT" true 'out=/tmp/agent.out,rc=0'
t_expect_rc 0
sleep 1
t_check "twice for two" test "$(j9_emu_log "$ct" | grep -c '^woke$')" = 2
t_check "the agent ran twice" test "$(wc -l <"/proc/$ct/root/tmp/agent.out")" = 2
j9_clean "$ct" "$common"

t_case no-semaphore
id=$(j9_emu_log "$ct" | sed -n 's/^semaphore .*semid=\([0-9]*\) .*/\1/p' | head -n 1)
nsenter --target "$ct" --ipc -- ipcrm -s "$id"
j9_jsym -t 1500 "$ct" properties
t_expect_rc 2
t_expect_err 'no OpenJ9 attach semaphore .* not listening'
t_check "no replyInfo left" test -z "$(find "/proc/$ct/root$common" -name replyInfo)"
t_check "no lock left on _attachlock" eval '! _j9_locked /proc/$ct/root$common/_attachlock'

t_case jattach-made-set
t_check "a 1-member set made the jattach way" "$JSYM_BUILD/tests/emu/openj9_client" -J "$ct"
j9_jsym -t 1500 "$ct" properties
t_expect_rc 2
t_expect_err 'fewer than 2 members: created by an old jattach'
t_check "no replyInfo left" test -z "$(find "/proc/$ct/root$common" -name replyInfo)"

t_case slow-reply
j9_start j9slow -- --reply-delay 3000
ct=$J9_PID
j9_client -t 5000 -r 500 "$ct" threaddump
t_expect_rc 2
t_expect_err 'did not complete its reply within 500 ms'
t_expect_err 'check: clean'
j9_clean "$ct" "$common"

t_finish
