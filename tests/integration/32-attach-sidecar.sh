#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 32-attach-sidecar.sh - jsym from a `kubectl debug`-style sidecar.
#
# The sidecar shares the target's pid, net and ipc namespaces but has its own
# mount namespace and root, runs as root with Docker's default capabilities
# (kit_sidecar --caps gives the exact list, so extra caps are appended to it):
# no CAP_SYS_ADMIN (setns into the target's mount ns fails), no
# CAP_SYS_PTRACE unless asked.  jsym is bound in at /opt/jsym and addresses
# the target by its pid in the shared pid ns (1).
#   - target runs as root, default caps: works through /proc/1/root (-v says so)
#   - target runs as uid 1000, Docker's caps + sys_ptrace: works the same way
#   - target runs as uid 1000, default caps: /proc/1/root is closed to a
#     different uid without CAP_SYS_PTRACE -> exit 2 naming the capability
#     (jsym may also succeed by taking the target's uid: recorded, accepted)
#   - an Alpine (musl-only) sidecar running musl-build/jsym: works
#   - target runs as uid 1000, sidecar with almost no caps: exit 2 naming them
#   - privileged target (all caps), Docker-default sidecar: the kernel hides
#     the target's /proc files: exit 2 naming CAP_SYS_PTRACE
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/integration/lib-attach.bash"
la_init
t_need_root
la_need_jvm
declare -F kit_sidecar >/dev/null || t_skip "container kit has no kit_sidecar"

fallback_said() { la_vlines '/proc/[0-9]+/root|fall(ing)? ?back'; }

t_case sidecar-root-target
# A root container has Docker's default capabilities, not all of them (the
# kit's PID 1 would have all): drop the rest from the bounding set.
LA_CT_PREFIX=(/usr/bin/setpriv --bounding-set "-all,+${LA_DOCKER_CAPS//,/,+}" --)
la_ct_start sroot --cwd /tmp && {
	t=$LA_PID
	la_sidecar_jsym "$t" -- exec --timeout 10000 -v 1 properties
	t_expect_rc 0
	t_expect_out -i 'jsym\.test\.mark=sroot' 'java\.version='
	t_check "-v: the /proc/<pid>/root fallback was used" fallback_said
	t_check "-v: says why (no CAP_SYS_ADMIN / setns refused)" \
		la_vlines 'CAP_SYS_ADMIN|not permitted|EPERM|setns'
	left=$(ls -a "/proc/$t/root/tmp" "/proc/$t/root/" 2>/dev/null | grep '^\.attach_pid')
	t_check "no trigger left in the target ($left)" test -z "$left"
	t_check "the target printed no thread dump" test "$(la_dumps sroot)" = 0
}

t_case sidecar-uid1000-ptrace
LA_CT_PREFIX=()
la_ct_start suser --uid 1000 --gid 1000 --cwd /tmp && {
	t=$LA_PID
	la_sidecar_jsym "$t" --caps "$LA_DOCKER_CAPS,sys_ptrace" -- exec --timeout 10000 -v 1 properties
	t_expect_rc 0
	t_expect_out -i 'jsym\.test\.mark=suser'
	t_check "-v: the /proc/<pid>/root fallback was used" fallback_said

	t_case sidecar-uid1000-no-ptrace
	# A fresh target (listener not started) so the trigger path is needed.
	la_ct_start suser2 --uid 1000 --gid 1000 --cwd /tmp && {
		t2=$LA_PID
		la_sidecar_jsym "$t2" -- exec --timeout 5000 -v 1 properties
		if [ "$T_RC" = 0 ]; then
			t_log "jsym attached without CAP_SYS_PTRACE (took the target's uid)"
			t_expect_out -i 'jsym\.test\.mark=suser2'
		else
			t_expect_rc 2
			t_expect_err -i 'CAP_SYS_PTRACE|sys_ptrace'
		fi
		t_check "target alive" la_alive "$t2"
		t_check "the target printed no thread dump" test "$(la_dumps suser2)" = 0
	}
}

t_case sidecar-alpine-musl
# A musl-only debug image (no glibc at all) running the static musl jsym.
musl=${JSYM_MUSL_BUILD:-$JSYM_ROOT/musl-build}/jsym
if [ -n "${t:-}" ] && [ -x "$musl" ] && [ -n "$(kit_rootfs alpine 2>/dev/null)" ]; then
	cp "$musl" "$LA_TMP/jsym-musl"
	LA_SIDECAR_BINDS=(--rootfs alpine)
	LA_SIDECAR_JSYM=jsym-musl
	la_sidecar_jsym "$t" -- exec --timeout 10000 -v 1 jcmd VM.version
	t_expect_rc 0
	t_expect_out -i 'JDK 17|17\.0'
	LA_SIDECAR_BINDS=()
	LA_SIDECAR_JSYM=
else
	t_log "no musl-build/jsym or alpine rootfs: case not run"
fi

t_case sidecar-no-caps
# A sidecar that kept almost nothing (no SETUID/SETGID, KILL, SYS_PTRACE):
# /proc/1/root of a uid-1000 JVM is closed, nothing can be done as that uid.
la_ct_start suser3 --uid 1000 --gid 1000 --cwd /tmp && {
	t=$LA_PID
	la_sidecar_jsym "$t" --caps net_raw -- exec --timeout 5000 -v 1 properties
	t_expect_rc 2
	t_expect_err -i 'CAP_SYS_PTRACE|SYS_PTRACE|CAP_SETUID|SETUID'
	t_check "target alive" la_alive "$t"
	t_check "the target printed no thread dump" test "$(la_dumps suser3)" = 0
}

t_case sidecar-privileged-target
# The target container has every capability (privileged), the sidecar only
# Docker's: the kernel hides the target's /proc files (maps, root) from a
# process with fewer capabilities unless it holds CAP_SYS_PTRACE.
la_ct_start spriv --cwd /tmp && {
	t=$LA_PID
	la_sidecar_jsym "$t" -- exec --timeout 5000 -v 1 properties
	t_expect_rc 2
	t_expect_err -i 'SYS_PTRACE'
	t_check "target alive" la_alive "$t"
	t_check "the target printed no thread dump" test "$(la_dumps spriv)" = 0
}

t_finish
