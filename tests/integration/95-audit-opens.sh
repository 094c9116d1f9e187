#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 95-audit-opens.sh - jsym never opens what a container planted (issue 24,
# deliver 4).
#
# Targets: a fake HotSpot JVM (tests/emu/hs_emu, its JDK a private copy
# bound at /opt/emu) and a real one (the Debian rootfs's JDK 17), each PID 1
# of a kit container as uid 1000.  Every jsym command (list, exec
# properties, attach PID, attach --all, map, map --follow for 3 s, resolve
# --pid, detach) runs under `strace -f -yy` as root of the scenario's own
# PID namespace (the host, as far as jsym can tell: `attach --all` sees
# only these targets, not other tests' JVMs) and from a sidecar of each
# target (its PID namespace, Docker's capabilities + SYS_PTRACE).
#
# Round "clean": nothing planted.  tests/lib/audit_trace.py follows every
# descriptor of the traces and records each path a jsym process reached in
# a target's root (/proc/N/root/..., openat2 from a root fd, after setns
# into the target's mount namespace or a chroot, /proc/N/cwd, reopens
# through /proc/self/fd): that list, not a hand-kept one, is what is
# audited, so a new open is audited the day it is written.
# Then three rounds per trap kind (the JDK's files, /tmp, the deepest
# directories: below): at every
# discovered path of all roots at once, tests/lib/audit_trap.py plants a FIFO, a character device (c 1 3),
# a symlink to a host file outside the root, a bind-mounted /dev/null or a
# FUSE file that answers stat but never an open or a read; every command
# runs again under strace and its limit (a hang is set free and named).
# tests/lib/audit_judge.py fails on any open/openat/openat2 of a trap that
# is not O_PATH, any symlink followed out of the root (also watched with
# inotify on the host file), any command past its limit, any process left
# in D state; it prints the table of paths, the flags each was opened with
# in the clean round and the verdict per trap.
#
# Run time: about 3 minutes when nothing hangs (sixteen rounds of 30
# traced commands); each hang costs its limit (8 s).
# test-timeout: 1500
if [ -z "${JSYM_AUDIT_PIDNS:-}" ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	JSYM_AUDIT_PIDNS=1 exec unshare --pid --fork --mount-proc bash "$0" "$@"
fi
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, mounts, strace of other uids"
[ "${JSYM_AUDIT_PIDNS:-}" = 1 ] || t_skip "cannot make a PID namespace of its own (unshare)"
J=$JSYM_BUILD/jsym
EMU=$JSYM_BUILD/tests/emu
for f in "$J" "$EMU/hs_emu" "$EMU/hsjdk/release" "$JSYM_BUILD/libjsym-agent.so" \
	"$JSYM_BUILD/jsym-probe" "$JSYM_MUSL_BUILD/libjsym-agent.so" "$JSYM_MUSL_BUILD/jsym-probe"; do
	[ -e "$f" ] || t_skip "not built: $f (make)"
done
command -v strace >/dev/null || t_skip "needs strace (mk/deps.sh test)"
PY=/usr/bin/python3
"$PY" -c 'import fusepy' 2>/dev/null || t_skip "needs python3-fusepy and libfuse2 (mk/deps.sh test)"
[ -c /dev/fuse ] || t_skip "needs /dev/fuse"
LIB=$JSYM_ROOT/tests/lib
# JSYM_AUDIT_KINDS="fifo fuse" runs fewer rounds (when debugging)
read -r -a KINDS <<<"${JSYM_AUDIT_KINDS-fifo chardev symlink devnull fuse}"
# jsym's own deadlines (--timeout, --read-timeout) are well inside the limit
LIMIT=${JSYM_AUDIT_LIMIT:-8}
T="--timeout 4000 --read-timeout 4000"
CAPS=chown,dac_override,fowner,fsetid,kill,setgid,setuid,setpcap,net_bind_service,net_raw,sys_chroot,mknod,audit_write,setfcap,sys_ptrace

AUD=$(mktemp -d /tmp/jsym-audit.XXXXXX)
chmod 0755 "$AUD"
FUSE_PID=
audit_cleanup() {
	"$PY" "$LIB/audit_trap.py" unplant "$AUD/state" 2>/dev/null
	if [ -n "$FUSE_PID" ]; then
		: >"$AUD/release"
		umount -l "$AUD/fuse" 2>/dev/null
		kill -KILL "$FUSE_PID" 2>/dev/null
		wait "$FUSE_PID" 2>/dev/null
	fi
	# JSYM_AUDIT_KEEP=DIR keeps the records (events, runs, verdict) there
	[ -n "${JSYM_AUDIT_KEEP:-}" ] && mkdir -p "$JSYM_AUDIT_KEEP" &&
		cp "$AUD"/events.* "$AUD"/runs.* "$AUD"/planted.* "$AUD"/discovered "$AUD"/verdict \
			"$JSYM_AUDIT_KEEP/" 2>/dev/null
	rm -rf "$AUD"
}
kit_on_exit audit_cleanup

# A private install tree (jsym finds its agents in ../lib/jsym), bound into
# the sidecars at /opt/jsym.
mkdir -p "$AUD/inst/bin" "$AUD/inst/lib/jsym/glibc" "$AUD/inst/lib/jsym/musl" "$AUD/out" \
	"$AUD/fuse" "$AUD/emu" "$AUD/log"
cp "$J" "$AUD/inst/bin/jsym"
for l in glibc musl; do
	b=$JSYM_BUILD
	[ $l = musl ] && b=$JSYM_MUSL_BUILD
	cp "$b/libjsym-agent.so" "$b/jsym-probe" "$AUD/inst/lib/jsym/$l/"
done
chmod -R a+rX "$AUD/inst"
# The host file a symlink trap points to: outside every target's root.
CANARY_NAME=jsym-audit-canary-$$
CANARY=$AUD/out/$CANARY_NAME
echo "a host file no container may reach" >"$CANARY"
mkdir "$CANARY.d"       # what a symlink trap at a directory points to

# The FUSE server (fusepy, libfuse2): one file, "f", that never opens.
"$PY" "$LIB/audit_trap.py" fuse "$AUD/fuse" "$AUD/fuse-ready" "$AUD/release" \
	>"$AUD/log/fuse.log" 2>&1 &
FUSE_PID=$!
for _ in $(seq 100); do [ -s "$AUD/fuse-ready" ] && break; sleep 0.1; done
[ -s "$AUD/fuse-ready" ] || t_abort "the FUSE server did not start: $(cat "$AUD/log/fuse.log")"

# ---------------------------------------------------------------- targets
rootfs=$(kit_rootfs debian)
_kit_make "$KIT_HELPER"
classes=$(kit_java_build)
cp -a "$EMU/hs_emu" "$EMU/hsjdk" "$AUD/emu/"
emu=$(kit_start audit-emu "$rootfs" --uid 1000 --gid 1000 --cwd /tmp --bind "$AUD/emu:/opt/emu" \
	-- /opt/emu/hs_emu --log /tmp/emu.log --events 300 --rate 300) || t_abort "kit_start audit-emu"
jvm=$(kit_start audit-jvm "$rootfs" --uid 1000 --gid 1000 --cwd /tmp --bind "$classes:/opt/jsym-java:ro" \
	--log "$AUD/log/jvm.out" -- "$KIT_CT_JAVA" -Xmx64m -XX:TieredStopAtLevel=1 -Xss512k \
	-XX:+UseSerialGC -cp /opt/jsym-java AttachTarget 1800 audit) || t_abort "kit_start audit-jvm"
for _ in $(seq 300); do
	grep -q started "/proc/$emu/root/tmp/emu.log" 2>/dev/null &&
		grep -q '^attach-target: started' "$AUD/log/jvm.out" 2>/dev/null && break
	sleep 0.1
done
grep -q '^attach-target: started' "$AUD/log/jvm.out" || t_abort "the JVM did not start: $(tail -n 3 "$AUD/log/jvm.out")"
t_log "targets: emu host pid $emu, jvm host pid $jvm"

# ---------------------------------------------------------------- commands
STRACE=(strace -f -yy -qq -s 4096 -e signal=none -e 'trace=open,openat,openat2,creat,newfstatat,statx,stat,lstat,access,faccessat,faccessat2,readlink,readlinkat,setns,chroot,chdir,fchdir,close,dup,dup2,dup3,fcntl,clone,clone3,fork,vfork,execve,execveat,setuid,setreuid,setresuid,capset')
# A round, in order: "VANTAGE LABEL STOP ARGS..." (STOP: seconds before
# SIGINT, 0 = none; @emu @jvm @mjvm: the target as that vantage names it).
# `map` that writes refuses a JVM whose agent keeps the map, so it has a
# JVM of its own (mjvm, started afresh each round) and runs before
# `attach --all` reaches that one too; the others get `map --stdout`.
round_commands() {
	cat <<-EOF
		host list 0 list
		host exec:emu 0 exec $T @emu properties
		host exec:jvm 0 exec $T @jvm properties
		host map--stdout:emu 0 map --stdout @emu
		host map--stdout:jvm 0 map --stdout @jvm
		host map:mjvm 0 map @mjvm
		host map--follow:mjvm 3 map --follow --interval 200 @mjvm
		sidecar-mjvm map:mjvm 0 map @mjvm
		sidecar-mjvm map--follow:mjvm 3 map --follow --interval 200 @mjvm
		host attach:emu 0 attach $T @emu
		host attach:jvm 0 attach $T @jvm
		host attach--all 0 attach $T --all
		host resolve:emu 0 resolve --pid @emu 1000
		host resolve:jvm 0 resolve --pid @jvm 1000
		host detach:emu 0 detach $T @emu
		host detach:jvm 0 detach $T @jvm
		sidecar-jvm list 0 list
		sidecar-jvm exec:jvm 0 exec $T @jvm properties
		sidecar-jvm map--stdout:jvm 0 map --stdout @jvm
		sidecar-jvm attach:jvm 0 attach $T @jvm
		sidecar-jvm attach--all 0 attach $T --all
		sidecar-jvm resolve:jvm 0 resolve --pid @jvm 1000
		sidecar-jvm detach:jvm 0 detach $T @jvm
		sidecar-emu list 0 list
		sidecar-emu exec:emu 0 exec $T @emu properties
		sidecar-emu map--stdout:emu 0 map --stdout @emu
		sidecar-emu attach:emu 0 attach $T @emu
		sidecar-emu attach--all 0 attach $T --all
		sidecar-emu resolve:emu 0 resolve --pid @emu 1000
		sidecar-emu detach:emu 0 detach $T @emu
	EOF
}
declare -A PID

# start_mjvm: (re)start the JVM that only `map` writes for; PID[mjvm].
start_mjvm() {
	kit_stop audit-mjvm
	: >"$AUD/log/mjvm.out"
	PID[mjvm]=$(kit_start audit-mjvm "$rootfs" --uid 1000 --gid 1000 --cwd /tmp \
		--bind "$classes:/opt/jsym-java:ro" --log "$AUD/log/mjvm.out" -- "$KIT_CT_JAVA" -Xmx64m \
		-XX:TieredStopAtLevel=1 -Xss512k -XX:+UseSerialGC -cp /opt/jsym-java AttachTarget 1800 mjvm) ||
		t_abort "kit_start audit-mjvm"
	for _ in $(seq 300); do
		grep -q '^attach-target: started' "$AUD/log/mjvm.out" && return 0
		sleep 0.1
	done
	t_abort "the map JVM did not start: $(tail -n 3 "$AUD/log/mjvm.out")"
}

# start time of a target in clock ticks: part of jsym's directory name
starttime() {
	sed 's/.*) //' "/proc/$1/stat" | awk '{print $20}'
}

# one_run ROUND VANTAGE LABEL STOP ARGS...: run, trace, scan.
N=0
one_run() {
	local round=$1 vantage=$2 label=$3 stop=$4 cmd=() sd="" a pidmap t
	shift 4
	local args=()
	for a in "$@"; do
		case $a in
		@*) if [ "$vantage" = host ]; then args+=("${PID[${a#@}]}"); else args+=(1); fi ;;
		*) args+=("$a") ;;
		esac
	done
	N=$((N + 1))
	local tr=$AUD/log/$N.trace full="$vantage:$label"
	if [ "$vantage" = host ]; then
		pidmap=""
		for t in emu jvm mjvm; do pidmap+="${PID[$t]}=$t:/tmp,"; done
		cmd=("${STRACE[@]}" -o "$tr" "$AUD/inst/bin/jsym" "${args[@]}")
	else
		t=${vantage#sidecar-}
		pidmap="1=$t:/tmp"
		sd=$(mktemp -d "$KIT_DIR/sidecar.XXXXXX")
		cmd=("${STRACE[@]}" -o "$tr" "$KIT_HELPER" sidecar --target "${PID[$t]}" --rootfs "$rootfs" \
			--state "$sd" --caps "$CAPS" --bind "$AUD/inst:/opt/jsym:ro" --bind "$AUD/out:$AUD/out:ro" \
			-- /opt/jsym/bin/jsym "${args[@]}")
	fi
	"$PY" "$LIB/audit_trap.py" run "$AUD/log/$N.run" "$LIMIT" "$stop" "$AUD/release" -- "${cmd[@]}" \
		>"$AUD/log/$N.out" 2>"$AUD/log/$N.err"
	[ -n "$sd" ] && rm -rf "$sd"
	"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); r["label"]=sys.argv[2]; print(json.dumps(r))' \
		"$AUD/log/$N.run" "$full" >>"$AUD/runs.$round"
	"$PY" "$LIB/audit_trace.py" scan "$tr" "$full" "$pidmap" "$CANARY_NAME" >>"$AUD/events.$round"
	printf '%s\t%s\t%s\t%s\n' "$round" "$full" "$(cat "$AUD/log/$N.run")" \
		"$(grep -m1 'jsym:' "$AUD/log/$N.err" | cut -c1-160)" >&2
	if [ "$round" = clean ]; then
		local rc
		rc=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["rc"])' "$AUD/log/$N.run")
		# hs_emu has no serviceability tables: map of the fake JVM fails
		if [ "$rc" != 0 ] && [[ $label != map*:emu ]]; then
			t_fail "clean round: $full exited $rc: $(tail -n 2 "$AUD/log/$N.err" | tr '\n' ' ')"
		fi
	fi
	rm -f "$tr"
}

round() {
	local r=$1 vantage label stop args
	while read -r vantage label stop args; do
		# shellcheck disable=SC2086
		one_run "$r" "$vantage" "$label" "$stop" $args
	done < <(round_commands)
}

PID[emu]=$emu
PID[jvm]=$jvm
start_mjvm
mjvm_start0=$(starttime "${PID[mjvm]}")

t_case clean
t0=$(date +%s)
round clean
"$PY" "$LIB/audit_judge.py" discover "$AUD" >"$AUD/discovered"
t_log "clean round: $(($(date +%s) - t0)) s; paths jsym reached in a target's root:"
sed 's/^/    /' "$AUD/discovered" >&2
n=$(awk -F'\t' '$3 == "plant"' "$AUD/discovered" | wc -l)
t_check "the trace found paths to audit in both roots ($n)" \
	test "$(awk -F'\t' '$3 == "plant" {print $1}' "$AUD/discovered" | sort -u | wc -l)" = 3

# Three passes per kind, each path trapped in one: the JDK's and the
# system's files (libjvm.so, release, the loader's), then the shared /tmp
# (socket, trigger, perf map, journal, the agent's and the probe's copies
# in jsym's directory, which the plant makes first as the JVM's user when
# it is missing, as a container's user can), then the deepest directories
# jsym walks (the JDKs' lib/server, jsym's glibc/ and musl/): a FUSE
# directory that never answers a lookup bound over each, or a symlink
# out, a FIFO, a device, /dev/null in its place: its parent shadowed by a
# tmpfs holding the parent's other entries and the trap (audit_trap.py:
# not a rename, which an overlay's lower directory refuses and which
# /proc/PID/maps would follow).  Trapping them at once would
# hide the later: a trapped libjvm.so ends map before it writes its perf
# map.
# The judge's lines: ok and FAIL are checks, note a remark.
verdict() {
	local what text
	while IFS=$'\t' read -r what text; do
		case $what in
		ok) t_pass "$text" ;;
		FAIL) t_fail "$text" ;;
		note) t_log "note: $text" ;;
		esac
	done <"$1"
}

IDS=()
for kind in "${KINDS[@]}"; do
	t_case "trap-$kind"
	t0=$(date +%s)
	[ "$kind" = symlink ] && t_watch_open "$CANARY"
	for pass in jdk tmp dir; do
		id=$kind:$pass
		IDS+=("$id")
		# a fresh map JVM: jsym's directory names hold its start time,
		# so its traps go where jsym will look this time (as an
		# attacker would compute them: 52-deploy-hostile)
		start_mjvm
		now=$(starttime "${PID[mjvm]}")
		for t in emu jvm mjvm; do
			mapfile -t paths < <(awk -F'\t' -v t=$t -v pass=$pass '$1 == t && $3 == "plant" &&
				(pass == "dir" || (pass == "tmp") == ($2 ~ /^\/tmp\//)) {print $2}' "$AUD/discovered" |
				sed "s/-1-$mjvm_start0\(\/\|\$\)/-1-$now\1/")
			[ ${#paths[@]} -gt 0 ] || continue
			dirs=()
			[ $pass = dir ] && dirs=(--dirs)
			"$PY" "$LIB/audit_trap.py" plant "$AUD/state" "$kind" "${PID[$t]}" "$CANARY" "$AUD/fuse/f" \
				"${dirs[@]}" "${paths[@]}" | sed "s/^/$t /; s/-1-$now\(\/\| \)/-1-$mjvm_start0\1/" >>"$AUD/planted.$id"
		done
		# how many traps this pass planted, and why any was not (a
		# directory in a file pass is the dir pass's: counted apart)
		t_log "$id: $(grep -c ' planted' "$AUD/planted.$id") planted" \
			"($(grep -c ' parent-shadowed' "$AUD/planted.$id") by shadowing the parent)," \
			"$(grep -c ' skipped directory$' "$AUD/planted.$id") directories left to the dir pass," \
			"$(grep -v ' skipped directory$' "$AUD/planted.$id" | grep -c ' skipped') skipped"
		grep ' skipped' "$AUD/planted.$id" | grep -v ' skipped directory$' | sed 's/^/    /' >&2
		round "$id"
		# one name per path in the table: the map JVM's as in the clean round
		sed -i "s/-1-$now\([/\"]\)/-1-$mjvm_start0\1/g" "$AUD/events.$id"
		"$PY" "$LIB/audit_trap.py" unplant "$AUD/state" || t_fail "could not take the $id traps away"
	done
	if [ "$kind" = symlink ]; then
		w=$(t_watch_result)
		t_eq "$w" unopened "the host file the symlinks point to was never opened"
	fi
	t_log "$kind rounds: $(($(date +%s) - t0)) s"
	# this kind's three passes judged in its own case
	"$PY" "$LIB/audit_judge.py" judge "$AUD" "${IDS[@]: -3}" >"$AUD/verdict.$kind"
	verdict "$AUD/verdict.$kind"
done

t_case verdict
# every pass at once: the table of paths (the checks were each kind's)
"$PY" "$LIB/audit_judge.py" judge "$AUD" "${IDS[@]}" >"$AUD/verdict"
echo "--- the paths the trace found, how the clean round opened them, each trap's verdict:"
awk -F'\t' '$1 == "table" {sub(/^table\t/, ""); print "    " $0}' "$AUD/verdict"
stuck=$(ps -eo stat=,args= | awk '$1 ~ /^D/' | grep -F "$AUD" || true)
t_check "no process left in D state ($stuck)" test -z "$stuck"
t_finish
