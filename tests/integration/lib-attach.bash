# SPDX-License-Identifier: Apache-2.0
# tests/integration/lib-attach.bash - helpers shared by the 3N-attach-* scenarios.
#
# Sourced, never run (named .bash: the runner runs every *.sh), after
# tests/lib/lib.sh, whose checks (t_check, t_expect_rc, t_case, t_finish...)
# and JDK finder (t_jdks) the scenarios use.  This file adds:
#   la_init                 find jsym, a private temp dir $LA_TMP, cleanup
#   la_need_jvm             skip unless a HotSpot JDK and javac are there
#   la_jvm_start NAME HOME [--uid U] [--userns] [--cwd D] [JVMOPT...]
#                           start AttachTarget on the host; sets LA_PID, keeps
#                           NAME's stdout/stderr in $LA_TMP/NAME.{out,err}
#   la_jvm_stop PID         SIGTERM, wait, SIGKILL if needed
#   la_dumps NAME           how many thread dumps NAME's JVM printed
#   la_jsym ARGS...         run jsym under a hang guard; sets T_RC, T_OUT, T_ERR
#   la_fault_home, la_trigger_left, la_jsym_bg/la_jsym_wait, la_jsym_strace,
#   la_ct_start, la_sidecar_jsym: see their comments below.
#   lib-attach-peers.bash (sourced separately) has the fake listeners/JVMs.

set -u

: "${JSYM_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${JSYM_BUILD:=$JSYM_ROOT/glibc-build}"
source "$JSYM_ROOT/tests/lib/lib.sh"
JSYM=${JSYM:-$JSYM_BUILD/jsym}
LA_TMP=
LA_PIDS=()
LA_PID=

la_cleanup() {
	local p
	for p in "${LA_PIDS[@]}"; do
		kill -CONT "$p" 2>/dev/null
		kill -TERM "$p" 2>/dev/null
	done
	for p in "${LA_PIDS[@]}"; do
		la_wait_gone "$p" 50 || kill -KILL "$p" 2>/dev/null
		rm -rf "/tmp/.java_pid$p" "/tmp/.attach_pid$p" 2>/dev/null
	done
	wait 2>/dev/null
	[ -n "$LA_TMP" ] && rm -rf "$LA_TMP"
	return 0
}

la_init() {
	[ -x "$JSYM" ] || t_skip "jsym not built ($JSYM missing): run make"
	LA_TMP=$(mktemp -d /tmp/jsym-attach-test.XXXXXX)
	chmod 0755 "$LA_TMP"
	# A private copy: other engineers relink glibc-build/jsym at any time.
	cp "$JSYM" "$LA_TMP/jsym" && JSYM=$LA_TMP/jsym
	kit_on_exit la_cleanup
}

la_need_jvm() {
	[ -n "$(t_jdks)" ] || t_skip "no HotSpot JDK under /usr/lib/jvm"
	command -v javac >/dev/null 2>&1 || [ -x /usr/lib/jvm/java-17-openjdk-amd64/bin/javac ] ||
		t_skip "no javac to build tests/java"
}

# la_wait_gone PID TENTHS: 0 once PID is gone (or a zombie), 1 on timeout.
la_wait_gone() {
	local i=0 st
	while [ $i -lt "$2" ]; do
		st=$(awk '/^State:/ {print $2}' "/proc/$1/status" 2>/dev/null) || return 0
		[ -z "$st" ] || [ "$st" = Z ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

la_alive() {
	local st
	st=$(awk '/^State:/ {print $2}' "/proc/$1/status" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ]
}

la_jvm_start() {
	local name=$1 home=$2 uid= cwd=$LA_TMP dir userns=
	shift 2
	while [ $# -gt 0 ]; do
		case $1 in
		--uid) uid=$2; shift 2 ;;
		--userns) userns=1; shift ;;
		--cwd) cwd=$2; shift 2 ;;
		*) break ;;
		esac
	done
	dir=$(kit_java_build) || { t_fail "cannot compile tests/java"; return 1; }
	local pre=()
	[ -n "$uid" ] && pre=(setpriv --reuid="$uid" --regid="$uid" --clear-groups)
	# --userns: the JVM is root of its own user namespace (a rootless
	# container): ns uid 0 = host uid U.
	[ -n "$userns" ] && pre+=(unshare --user --map-root-user)
	# A background job of a script starts with SIGINT and SIGQUIT ignored;
	# give the JVM the default dispositions a real service has, so a stray
	# SIGQUIT to an -Xrs JVM would be as fatal here as in production.
	(cd "$cwd" && exec env --default-signal=INT,QUIT "${pre[@]}" "$home/bin/java" -Xmx64m -XX:TieredStopAtLevel=1 \
		-Xss512k -XX:+UseSerialGC "$@" -cp "$dir" AttachTarget 300 "$name") \
		</dev/null >"$LA_TMP/$name.out" 2>"$LA_TMP/$name.err" &
	LA_PID=$!
	LA_PIDS+=("$LA_PID")
	la_wait_started "$name" "$LA_TMP/$name.err" || return 1
	t_log "started $name: pid $LA_PID ($home $*)"
}

# la_wait_started NAME ERRFILE: wait (30 s) for AttachTarget's first line in
# $LA_TMP/NAME.out while LA_PID lives; on failure show ERRFILE's tail.
la_wait_started() {
	local i=0
	while ! grep -q '^attach-target: started' "$LA_TMP/$1.out" 2>/dev/null; do
		if ! la_alive "$LA_PID" || [ $i -ge 300 ]; then
			t_fail "JVM $1 did not start: $(tail -n 5 "$2" 2>/dev/null)"
			return 1
		fi
		sleep 0.1
		i=$((i + 1))
	done
}

# la_bg CMD...: start a non-JVM helper in the background with default signal
# dispositions (a SIGQUIT would kill it); sets LA_PID.
la_bg() {
	env --default-signal=INT,QUIT "$@" </dev/null >/dev/null 2>&1 &
	LA_PID=$!
	LA_PIDS+=("$LA_PID")
}

la_jvm_stop() {
	kill -CONT "$1" 2>/dev/null
	kill -TERM "$1" 2>/dev/null
	la_wait_gone "$1" 50 || kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}

la_dumps() {
	grep -c 'Full thread dump' "$LA_TMP/$1.out" 2>/dev/null || true
}

# la_jsym ARGS...: jsym under a hang guard (LA_LIMIT seconds, default 30);
# sets T_RC, T_OUT, T_ERR (t_run).  A hang counts as a failed check.
la_jsym() {
	t_run --as "jsym $*" timeout -k 3 "${LA_LIMIT:-30}" "$JSYM" "$@"
	la_hung
}

# la_hung: count a failure if the last jsym was killed by its hang guard.
la_hung() {
	if [ "$T_RC" = 124 ] || [ "$T_RC" = 137 ]; then
		t_fail "jsym hung: still running after ${LA_LIMIT:-30}s"
	fi
	return 0
}

# la_jsym_bg ARGS...: start jsym in the background (same capture as la_jsym);
# la_jsym_wait collects it and sets T_RC/T_OUT/T_ERR and LA_SECS.
la_jsym_bg() {
	LA_BG_ARGS="$*"
	LA_BG_T0=$(date +%s%N)
	(timeout -k 3 "${LA_LIMIT:-30}" "$JSYM" "$@" </dev/null >"$LA_TMP/jsym.out" 2>"$LA_TMP/jsym.err"
		echo $? >"$LA_TMP/jsym.rc") &
	LA_BG_PID=$!
}

la_jsym_wait() {
	wait "$LA_BG_PID"
	LA_SECS=$(( ($(date +%s%N) - LA_BG_T0) / 1000000000 ))
	t_collect "$(cat "$LA_TMP/jsym.rc")" "$LA_TMP/jsym.out" "$LA_TMP/jsym.err" \
		"jsym $LA_BG_ARGS (${LA_SECS}s)"
	la_hung
}

# la_jsym_strace ARGS...: la_jsym under strace, recording every signal jsym
# (and its children) sends into $LA_TMP/signals.  Without strace: plain la_jsym.
la_jsym_strace() {
	if ! command -v strace >/dev/null 2>&1; then
		: >"$LA_TMP/signals"
		la_jsym "$@"
		return
	fi
	local real=$JSYM
	JSYM=$LA_TMP/strace-jsym
	printf '#!/bin/sh\nexec strace -f -qq -e trace=kill,tkill,tgkill,rt_sigqueueinfo,rt_tgsigqueueinfo,pidfd_send_signal -e signal=none -o %s %s "$@"\n' \
		"$LA_TMP/signals" "$real" >"$JSYM"
	chmod +x "$JSYM"
	la_jsym "$@"
	JSYM=$real
	sed 's/^/  sig| /' "$LA_TMP/signals"
}

# la_signalled PID: jsym's last la_jsym_strace run sent a signal to PID.  A
# pidfd_send_signal counts whatever its fd: jsym's only pidfd is the target's.
la_signalled() {
	grep -qE "((kill|tgkill|sigqueueinfo)\\(($1|[0-9]+, $1),|pidfd_send_signal\\()" \
		"$LA_TMP/signals" 2>/dev/null
}

# ---- containers (tests/kit) ----------------------------------------------

LA_CT_JAVA=/usr/lib/jvm/java-17-openjdk-amd64/bin/java
# Words put before the java command (e.g. setpriv to drop capabilities).
LA_CT_PREFIX=()
# Docker's default capability set (what `kubectl debug` and a root
# container get), in setpriv / kit_sidecar --caps spelling.
LA_DOCKER_CAPS=chown,dac_override,fowner,fsetid,kill,setgid,setuid,setpcap,net_bind_service,net_raw,sys_chroot,mknod,audit_write,setfcap

# la_ct_start NAME [kit_start options...] [-- JVMOPT...]: AttachTarget as PID 1
# of a new Debian container (its JRE), tests/java bound at /opt/jsym-java.
# Sets LA_PID to the host PID; the JVM's output goes to $LA_TMP/NAME.out.
la_ct_start() {
	local name=$1 dir
	shift
	local kopts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		kopts+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	: "${LA_CT_ROOTFS:=$(kit_rootfs debian)}"
	[ -x "$LA_CT_ROOTFS$LA_CT_JAVA" ] || { t_fail "no JRE in the debian rootfs"; return 1; }
	dir=$(kit_java_build) || { t_fail "cannot compile tests/java"; return 1; }
	LA_PID=$(kit_start "jsymat-$name" "$LA_CT_ROOTFS" "${kopts[@]}" \
		--bind "$dir:/opt/jsym-java:ro" --log "$LA_TMP/$name.out" -- \
		"${LA_CT_PREFIX[@]}" "$LA_CT_JAVA" -Xmx64m -XX:TieredStopAtLevel=1 -Xss512k -XX:+UseSerialGC \
		"$@" -cp /opt/jsym-java AttachTarget 300 "$name") || {
		t_fail "kit_start $name failed"
		return 1
	}
	la_wait_started "$name" "$LA_TMP/$name.out" || return 1
	t_log "started container $name: host pid $LA_PID (${kopts[*]} $*)"
}

# la_sidecar_jsym TARGET [--caps C] -- JSYM-ARGS: jsym in a sidecar of TARGET
# (sets T_RC, T_OUT, T_ERR like la_jsym); LA_SIDECAR_BINDS adds kit_sidecar
# --bind options (e.g. --rootfs alpine too).  jsym is our private copy,
# $LA_TMP bound at /opt/jsym; LA_SIDECAR_JSYM names another binary there.
# jsym's own --timeout bounds the wait; the runner's limit is the last resort.
la_sidecar_jsym() {
	local target=$1 caps=()
	shift
	if [ "$1" = --caps ]; then
		caps=(--caps "$2")
		shift 2
	fi
	[ "$1" = -- ] && shift
	t_run --as "[sidecar of $target ${caps[*]}] jsym $*" \
		kit_sidecar "$target" "${caps[@]}" --bind "$LA_TMP:/opt/jsym:ro" "${LA_SIDECAR_BINDS[@]}" -- \
		"/opt/jsym/${LA_SIDECAR_JSYM:-jsym}" "$@"
}

LA_SIDECAR_BINDS=()

# la_tmp_marks PID...: host /tmp entries an attacher of those pids could
# leave (.attach_pid<pid>, .java_pid<pid>).  Only named pids: other tests
# running at the same time make their own entries in /tmp.
la_tmp_marks() {
	local p
	for p in "$@"; do
		ls -d "/tmp/.attach_pid$p" "/tmp/.java_pid$p" 2>/dev/null
	done
	return 0
}

# la_fault_home: the JDK for fault cases, a pre-24 one (protocol v1 only)
# when there is one, else the first.
la_fault_home() {
	local h major first=
	while read -r h major; do
		[ -n "$first" ] || first=$h
		if [ "$major" -lt 24 ]; then
			echo "$h"
			return
		fi
	done < <(t_jdks)
	echo "$first"
}

# la_trigger_left PID: a trigger of PID is still in /tmp or in $LA_TMP (the
# cwd of la_jvm_start's JVMs).
la_trigger_left() {
	[ -e "/tmp/.attach_pid$1" ] || [ -L "/tmp/.attach_pid$1" ] ||
		[ -e "$LA_TMP/.attach_pid$1" ] || [ -L "$LA_TMP/.attach_pid$1" ]
}

# la_test_agent: the test agent built by make (tests/integration/testagent.c,
# glibc-build/tests/integration/libjsymtestagent.so), copied into $LA_TMP
# (mode 0755, loadable by JVMs of any uid; a private copy, as for jsym); print
# its path; 1 when it is not built.
la_test_agent() {
	local built=$JSYM_BUILD/tests/integration/libjsymtestagent.so so=$LA_TMP/libjsymtestagent.so
	[ -f "$built" ] || return 1
	cp "$built" "$so" && chmod 0755 "$so" || return 1
	echo "$so"
}

# la_vlines PATTERN: -v step lines (stderr) matching PATTERN, case-insensitive.
la_vlines() {
	grep -iE -- "$1" <<<"$T_ERR"
}
