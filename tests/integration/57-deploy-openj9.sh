#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 57-deploy-openj9.sh - `jsym attach` into the OpenJ9 emulator, PID 1 of a
# Debian container as uid 1000 (own mount, ipc, net and pid namespaces).
#
# The emulator is a real process on the container's libc: it maps the
# loader and libc jsym's probe runs under (glibc's ld-linux and libc.so.6,
# or musl's libc for the musl emulator), and libj9vm29.so, so jsym takes it
# for OpenJ9.  It loads agents with dlopen and calls Agent_OnAttach(NULL,
# options, NULL): there is no JavaVM.  The real agent calls GetEnv through
# that JavaVM first thing, so inside the emulator it can only crash it.  The
# attach cases therefore hand jsym a stand-in pair with --agent-dir: each
# build's libjsym-agent.so is the emulator's test agent of that libc (it
# answers jsym's probe and appends its options to out=FILE), next to the
# real jsym-probe.  Everything jsym does is real: find the builds, copy both
# into the container's /tmp owned by 1000, probe under the emulator's own
# loader, pick the build for the libc it maps, load it over the OpenJ9
# protocol (ATTACH_LOADAGENTPATH), leave nothing of the handshake behind.
#
#   glibc    the glibc emulator in debian          -> glibc build, exit 0
#   again    a second attach loads the mapped file -> Agent_OnAttach count 2
#   musl     the musl emulator in debian-musl      -> musl build, exit 0
#   real     the real builds: copied, glibc picked, the load names the copy;
#            the emulator dies in the agent (no JavaVM) and jsym says the
#            VM closed the connection, exit 2
#   daemonset-caps  jsym as root with exactly the DaemonSet's capabilities
#            (setpriv --bounding-set), and with its list before this round:
#            the VM's IPC namespace needs CAP_SYS_ADMIN: exit 2, the
#            reason, nothing written
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/emu/openj9_kit.sh"
j9_init
[ -x "$JSYM_MUSL_BUILD/tests/emu/openj9_emu" ] || t_skip "musl emulator not built (make)"
J=$JSYM_BUILD/jsym
common=/tmp/.com_ibm_tools_attach

# The stand-in builds, laid out as --agent-dir wants them: DIR/{glibc,musl}/.
standin=$KIT_DIR/standin
for l in glibc musl; do
	mkdir -p "$standin/$l"
	cp "$JSYM_ROOT/$l-build/tests/emu/libtest_agent.so" "$standin/$l/libjsym-agent.so"
	cp "$JSYM_ROOT/$l-build/jsym-probe" "$standin/$l/jsym-probe"
done

# judge JSON LIBC LOADER-ERE: OpenJ9, that build, copied, confirmed by the
# probe under a loader matching LOADER-ERE.
judge() {
	python3 "$JSYM_ROOT/tests/lib/judge_attach.py" "$@" exit=0 jvm=OpenJ9 jvm_libc="$2" nspid=1
}

# copies CT DIR-IN-CT SOURCE-DIR: both builds in DIR, the JVM's, equal to SOURCE.
copies() {
	local l f
	for l in glibc musl; do
		for f in libjsym-agent.so jsym-probe; do
			t_eq "$(stat -c %u:%g "/proc/$1/root$2/$l/$f" 2>&1)" 1000:1000 "$l/$f is the VM's"
			t_check "$l/$f equals its source" cmp -s "/proc/$1/root$2/$l/$f" "$3/$l/$f"
		done
	done
}

# attach_standin NAME LIBC LOADER-ERE: the attach cases on container NAME.
attach_standin() {
	local ct=$J9_PID lib dir
	t_check "the emulator maps its loader ($(grep -oE ' /[^ ]*(ld-linux|musl)[^ ]*' "/proc/$ct/maps" | sort -u | tr -d '\n'))" \
		grep -qE "$3" "/proc/$ct/maps"
	t_run timeout 60 "$J" attach --json -v --agent-dir "$standin" --options 'out=/tmp/agent.out,rc=0' "$ct"
	t_expect_rc 0
	t_expect_err 'OpenJ9' "probe $2 build under [^ ]*: loads" 'ATTACH_LOADAGENTPATH\(/tmp/jsym-'
	t_check "$2 build chosen, copied, confirmed: $(judge "$T_OUT" "$2" "$3" 2>&1)" judge "$T_OUT" "$2" "$3"
	lib=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["path"])' "$T_OUT" 2>/dev/null)
	dir=${lib%/"$2"/libjsym-agent.so}
	copies "$ct" "$dir" "$standin"
	t_check "the emulator dlopened the copied $2 build and called Agent_OnAttach" \
		eval 'j9_emu_log $ct | grep -qF "load lib=$lib opts=out=/tmp/agent.out,rc=0 rc=0 count=1"'
	t_eq "$(cat "/proc/$ct/root/tmp/agent.out" 2>&1)" 'out=/tmp/agent.out,rc=0' "the agent ran once with the options"
	t_check "the emulator maps it" grep -qF " $lib" "/proc/$ct/maps"
	j9_clean "$ct" "$common"
	LIB=$lib
}

t_case glibc
j9_start j9g --
t_eq "$(awk '/^Uid:/ {print $2}' "/proc/$J9_PID/status")" 1000 "the emulator runs as uid 1000"
attach_standin j9g glibc '/ld-linux-x86-64\.so\.2$'

t_case again
t_run timeout 60 "$J" attach --agent-dir "$standin" --options 'out=/tmp/agent.out,rc=0' "$J9_PID"
t_expect_rc 0
t_expect_out 'agent refreshed \(OpenJ9, glibc build, already-loaded /tmp/jsym-'
t_check "the same file loaded again: Agent_OnAttach count=2" \
	eval 'j9_emu_log $J9_PID | grep -qF "load lib=$LIB opts=out=/tmp/agent.out,rc=0 rc=0 count=2"'
t_eq "$(grep -c . "/proc/$J9_PID/root/tmp/agent.out")" 2 "the agent ran twice"
j9_clean "$J9_PID" "$common"
kit_stop j9g

t_case musl
J9_ROOTFS_OVERRIDE=$(kit_rootfs debian-musl) J9_BIND=$JSYM_MUSL_BUILD j9_start j9m --
attach_standin j9m musl 'x86_64-linux-musl/libc\.so$'
t_check "no glibc in the musl emulator's maps" eval '! grep -q "libc\.so\.6" /proc/$J9_PID/maps'
kit_stop j9m

t_case real
j9_start j9r --
ct=$J9_PID
t_run timeout 60 "$J" attach -v "$ct"
t_expect_err 'OpenJ9' 'probe glibc build under [^ ]*ld-linux[^ ]*: loads' \
	'sending ATTACH_LOADAGENTPATH\(/tmp/jsym-[0-9a-f]{12}-[0-9]+-[0-9]+/glibc/libjsym-agent\.so\)'
t_expect_err 'created /tmp/jsym-[0-9a-f]{12}-[0-9]+-[0-9]+ \([0-9]+ bytes to write\)'
# Not jsym's to fix: the emulator has no JavaVM for the real agent.
t_expect_rc 2
t_expect_err 'closed the connection before replying'
t_log "the emulator ended with status $(kit_wait_exit j9r 5 || echo '(still running)')" \
	"(139: SIGSEGV in the agent's GetEnv through the NULL JavaVM)"
kit_stop j9r

t_case daemonset-caps
# jsym as the DaemonSet runs it: root with exactly the manifest's
# capabilities (a bounding set of those only), in the node's PID namespace.
# The OpenJ9 protocol posts a System V semaphore in the VM's IPC namespace,
# and entering another container's takes CAP_SYS_ADMIN, which the
# DaemonSet does not have (nor had it with CHOWN, FOWNER and DAC_OVERRIDE,
# its list before): refused before anything is written, with the reason;
# the same with the old list, so dropping those three cost OpenJ9 nothing
caps=$(python3 -c '
import sys, yaml
d = [x for x in yaml.safe_load_all(open(sys.argv[1])) if x and x.get("kind") == "DaemonSet"][0]
print(",".join("+" + c.lower() for c in d["spec"]["template"]["spec"]["containers"][0]["securityContext"]["capabilities"]["add"]))' \
	"$JSYM_ROOT/deploy/kubernetes/daemonset.yaml")
j9_start j9d --
for set in "$caps" "$caps,+chown,+fowner,+dac_override"; do
	t_run timeout 60 setpriv --bounding-set=-all,$set -- "$J" attach --agent-dir "$standin" \
		--options 'out=/tmp/agent.out,rc=0' "$J9_PID"
	t_expect_rc 2
	t_expect_err "jsym: $J9_PID: cannot enter the ipc namespace of $J9_PID: Operation not permitted \\(needs CAP_SYS_ADMIN"
	t_check "nothing of jsym's in the VM's /tmp ($set)" \
		eval '! ls -d /proc/$J9_PID/root/tmp/jsym-* /proc/$J9_PID/root/tmp/agent.out 2>/dev/null'
done
j9_clean "$J9_PID" "$common"
kit_stop j9d

t_finish
