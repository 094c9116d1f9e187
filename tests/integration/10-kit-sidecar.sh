#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 10-kit-sidecar: kit_sidecar behaves like `kubectl debug --target`: the
# target's pid, net and ipc namespaces, a mount namespace and root of its
# own, root with exactly Docker's default capabilities (no CAP_SYS_ADMIN, no
# CAP_SYS_PTRACE) unless told otherwise, the same set in all five sets.
set -euo pipefail
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, pivot_root"

# Docker's default set as a mask: chown(0) dac_override(1) fowner(3)
# fsetid(4) kill(5) setgid(6) setuid(7) setpcap(8) net_bind_service(10)
# net_raw(13) sys_chroot(18) mknod(27) audit_write(29) setfcap(31).
docker_caps=00000000a80425fb
ptrace_caps=00000000a80c25fb	# the same + sys_ptrace(19)

pid=$(kit_start tgt debian --uid 1000 --gid 1000 -- sleep 300)
kit_exec "$pid" -- sh -c 'echo target-only > /tmp/jsym-target-file'

# Capabilities: all five sets equal Docker's default.
caps=$(kit_sidecar "$pid" -- grep '^Cap' /proc/self/status)
for set in CapInh CapPrm CapEff CapBnd CapAmb; do
	t_eq "$(echo "$caps" | awk -v s="$set:" '$1 == s {print $2}')" "$docker_caps" \
		"sidecar $set"
done
(( (0x${docker_caps} >> 21) & 1 )) && t_abort "the default set has CAP_SYS_ADMIN"

# --caps adds sys_ptrace on request.
caps=$(kit_sidecar "$pid" --caps chown,dac_override,fowner,fsetid,kill,setgid,setuid,setpcap,net_bind_service,net_raw,sys_chroot,mknod,audit_write,setfcap,sys_ptrace \
	-- grep '^Cap' /proc/self/status)
for set in CapInh CapPrm CapEff CapBnd CapAmb; do
	t_eq "$(echo "$caps" | awk -v s="$set:" '$1 == s {print $2}')" "$ptrace_caps" \
		"sidecar --caps ...,sys_ptrace $set"
done
caps=$(kit_sidecar "$pid" --caps +sys_ptrace -- grep '^CapEff' /proc/self/status)
t_eq "${caps##*[[:space:]]}" "$ptrace_caps" "sidecar --caps +sys_ptrace"
caps=$(kit_sidecar "$pid" --caps none -- grep '^CapBnd' /proc/self/status)
t_eq "${caps##*[[:space:]]}" 0000000000000000 "sidecar --caps none"

# The target's PID 1 is visible in the sidecar's fresh /proc.
t_eq "$(kit_sidecar "$pid" -- cat /proc/1/comm)" sleep "target PID 1 seen by the sidecar"
# Same pid, net and ipc namespaces as the target, its own mount namespace.
for ns in pid net ipc; do
	t_eq "$(kit_sidecar "$pid" -- readlink /proc/self/ns/$ns)" \
		"$(readlink "/proc/$pid/ns/$ns")" "sidecar $ns namespace"
done
[ "$(kit_sidecar "$pid" -- readlink /proc/self/ns/mnt)" != "$(readlink "/proc/$pid/ns/mnt")" ] ||
	t_abort "sidecar shares the target's mount namespace"

# Its / is not the target's: another overlay, and the target's /tmp file is
# reachable only through /proc/1/root (which needs CAP_SYS_PTRACE).
[ "$(kit_sidecar "$pid" -- stat -c %d:%i /)" != "$(stat -L -c %d:%i "/proc/$pid/root/")" ] ||
	t_abort "sidecar / is the target's /"
if kit_sidecar "$pid" -- test -e /tmp/jsym-target-file; then
	t_abort "the target's /tmp file is visible in the sidecar's /tmp"
fi
if kit_sidecar "$pid" -- cat /proc/1/root/tmp/jsym-target-file 2>/dev/null; then
	t_abort "/proc/1/root readable without CAP_SYS_PTRACE"
fi
t_eq "$(kit_sidecar "$pid" --caps sys_ptrace,dac_override -- cat /proc/1/root/tmp/jsym-target-file)" \
	target-only "/proc/1/root with CAP_SYS_PTRACE"

# No CAP_SYS_ADMIN: mounting fails.
if kit_sidecar "$pid" -- mount -t tmpfs none /mnt 2>/dev/null; then
	t_abort "sidecar could mount without CAP_SYS_ADMIN"
fi

# Exit status passes through; another rootfs works as the sidecar image.
set +e
kit_sidecar "$pid" --rootfs alpine -- sh -c 'exit 7'
rc=$?
set -e
t_eq "$rc" 7 "sidecar exit status"
t_log "pass: sidecar namespaces, root and capabilities"
t_finish
