#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 40-openj9-ids.sh - where jsym finds an OpenJ9 VM: non-numeric vmId,
# the target's TMPDIR, -Dcom.ibm.tools.attach.directory, two VMs sharing a
# common dir, and the musl build of the emulator.
#
# Each emulator is PID 1 of its own container (uid 1000, own mount, ipc,
# net, pid namespaces).  -Dcom.ibm.tools.attach.id=myvm: the VM dir is
# "myvm", found through attachInfo's processId (a hostile displayName does
# not confuse the parser).  TMPDIR=/var/tmp in the VM's environment: the
# common dir is /var/tmp/.com_ibm_tools_attach and jsym creates nothing in
# /tmp.  A second emulator in the same container shares the common dir: it
# takes its post, finds no replyInfo of its own and stays untouched.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/emu/openj9_kit.sh"
j9_init

t_case non-numeric-vmid
j9_start j9named -- -Dcom.ibm.tools.attach.id=myvm \
	'-Dcom.ibm.tools.attach.displayName=we:ird = name#!\ é processId=1'
ct=$J9_PID
common=/tmp/.com_ibm_tools_attach
t_check "VM dir is named myvm" test -d "/proc/$ct/root$common/myvm"
j9_jsym -v "$ct" load "$J9_AGENT" true 'out=/tmp/agent.out,rc=0'
t_expect_rc 0
t_expect_err 'VM id myvm'
t_check "the agent ran" test -s "/proc/$ct/root/tmp/agent.out"
j9_clean "$ct" "$common"
kit_stop j9named

t_case target-tmpdir
j9_start j9tmp --env TMPDIR=/var/tmp --
ct=$J9_PID
common=/var/tmp/.com_ibm_tools_attach
t_check "the emulator uses /var/tmp" test -d "/proc/$ct/root$common/1"
kit_exec "$ct" --uid 1000 --gid 1000 --env TMPDIR=/var/tmp -- \
	/opt/jsym/tests/emu/openj9_emu --vmid other --log /tmp/emu2.log >/dev/null 2>&1 &
for ((i = 0; i < 100; i++)); do
	grep -q '^ready' "/proc/$ct/root/tmp/emu2.log" 2>/dev/null && break
	sleep 0.05
done
t_check "a second VM shares the common dir" test -d "/proc/$ct/root$common/other"
j9_jsym -v "$ct" properties
t_expect_rc 0
t_expect_out 'java\.io\.tmpdir=/var/tmp'
t_expect_err "in $common"
t_expect_err 'x2'
t_check "nothing created in the target's /tmp common dir" test ! -e "/proc/$ct/root/tmp/.com_ibm_tools_attach"
sleep 0.5
t_check "the second VM woke, found no replyInfo of its own" \
	eval 'grep -q "^replyInfo absent" /proc/$ct/root/tmp/emu2.log'
t_check "and did not connect" eval '! grep -q "^connected" /proc/$ct/root/tmp/emu2.log'
j9_clean "$ct" "$common"
kit_stop j9tmp

t_case attach-directory
j9_start j9dir -- -Dcom.ibm.tools.attach.directory=/var/tmp/j9common
ct=$J9_PID
common=/var/tmp/j9common
j9_jsym "$ct" threaddump
t_expect_rc 0
t_expect_out 'at Emu\.main'
j9_clean "$ct" "$common"
kit_stop j9dir

t_case musl-emulator
if [ -x "$JSYM_MUSL_BUILD/tests/emu/openj9_emu" ] && musl_root=$(kit_rootfs debian-musl 2>/dev/null); then
	J9_ROOTFS_OVERRIDE=$musl_root J9_BIND=$JSYM_MUSL_BUILD j9_start j9musl --
	ct=$J9_PID
	common=/tmp/.com_ibm_tools_attach
	t_check "the musl emulator maps musl's libc" grep -q 'musl' "/proc/$ct/maps"
	j9_jsym "$ct" load "$J9_AGENT" true 'out=/tmp/agent.out,rc=3'
	t_expect_rc 4
	t_expect_err 'returned 3'
	j9_clean "$ct" "$common"
	kit_stop j9musl
else
	echo "(musl emulator or debian-musl rootfs missing: case not run)"
fi

t_finish
