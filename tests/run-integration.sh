#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/run-integration.sh [PATTERN] - run the integration scenarios.
#
# Each tests/integration/*.sh is one scenario.  Exit 0 = pass, 77 = skip (the
# script prints its reason on its last line), anything else = fail.  Each runs
# in its own session with a time limit; its output goes to
# glibc-build/test-logs/<name>.log and is shown when it fails.  After each
# scenario the runner checks that nothing was left behind (mounts naming jsym,
# processes of the scenario's session, the kit's state directories in /tmp,
# what its JVMs and jsym left in the host's /tmp) and counts a leak as a
# failure.  It blames a scenario only for what its own processes made: the
# machine may run other work at the same time (a developer's IDE and its
# JVMs, another clone's tests), so a new file or mount that a live process
# outside the scenario's session owns or holds is someone else's
# (foreign_pid, held_elsewhere below), reported on a line of its own and
# left alone.
# The limit is $JSYM_TEST_TIMEOUT (900 s); a scenario that needs longer
# says so in a line of its own, `# test-timeout: SECONDS` (the emulated
# arm64 ones: their root filesystem takes 6-16 minutes to build cold).
set -u
cd "$(dirname "$0")/.."
root=$PWD
pattern=${1:-}
logs=$root/glibc-build/test-logs
mkdir -p "$logs"
export JSYM_ROOT=$root
export JSYM_BUILD=$root/glibc-build
export JSYM_MUSL_BUILD=$root/musl-build
default_limit=${JSYM_TEST_TIMEOUT:-900}

pass=0 fail=0 skip=0
failed=()
# what any JVM, jsym's agent or jsym leave in the host's /tmp, sorted
source "$root/tests/lib/jdk.sh"
host_tmp_files() {
	t_jvm_tmp '[0-9]*' | sort -u
}
# The pid a /tmp entry of t_jvm_tmp names (perf-PID.map, .java_pidPID,
# hsperfdata_USER/PID, jsym-jit-PID, ...), or nothing.
tmp_pid() {
	local b=${1##*/}
	[[ $b =~ ([0-9]+) ]] && echo "${BASH_REMATCH[1]}"
}
# foreign_pid PID SID: PID runs now, outside session SID, and does not carry
# the scenario's mark in its environment (JSYM_SCENARIO_MARK, exported to
# each scenario: a process that left the session with setsid keeps it; a
# container's process, whose environment its runtime makes anew, does not).
foreign_pid() {
	local s env
	s=$(ps -o sid= -p "$1" 2>/dev/null | tr -d ' ') || return 1
	[ -n "$s" ] && [ "$s" != "$2" ] || return 1
	# gone since ps looked: not alive, so not another program's
	env=$( { tr '\0' '\n' <"/proc/$1/environ"; } 2>/dev/null) || return 1
	! grep -qxF "JSYM_SCENARIO_MARK=$mark" <<<"$env"
}
# held_elsewhere MOUNT SID: a live process outside session SID has its root
# or working directory in the directory that holds MOUNT (another program's
# debootstrap chroot with its /proc mounted, say).
held_elsewhere() {
	local dir=${1%/*} p l
	[ -n "$dir" ] || return 1
	for p in /proc/[0-9]*; do
		for l in "$p/root" "$p/cwd"; do
			l=$(readlink "$l" 2>/dev/null) || continue
			case "$l/" in
			"$dir"/*) foreign_pid "${p#/proc/}" "$2" && return 0 ;;
			esac
		done
	done
	return 1
}
for t in tests/integration/*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	if [ -n "$pattern" ] && [[ $name != *$pattern* ]]; then
		continue
	fi
	log=$logs/$name.log
	start=$(date +%s)
	own=$(sed -n 's/^# test-timeout: \([0-9][0-9]*\)$/\1/p' "$t" | head -n 1)
	limit=${own:-$default_limit}
	kitdirs=$logs/$name.kitdirs
	: >"$kitdirs"
	host_tmp_files >"$logs/$name.tmp-before"
	findmnt -rn -o TARGET | grep 'jsym' | sort -u >"$logs/$name.mnt-before"
	mark=$name.$$.$start.$RANDOM
	JSYM_SCENARIO_MARK=$mark JSYM_KIT_DIRS=$kitdirs setsid timeout -k 10 "$limit" bash "$t" >"$log" 2>&1 </dev/null &
	child=$!
	wait $child
	rc=$?
	# Anything still in the scenario's session is a leak: report, then end it.
	# (A zombie is not counted: it runs nothing, and once its parent is
	# gone it waits for PID 1, which may reap it late: seen under qemu.)
	leftover=$(ps -eo pid=,sid=,stat= | awk -v s="$child" '$2 == s && $3 !~ /^Z/ {print $1}')
	if [ -n "$leftover" ]; then
		echo "leak: processes left in the scenario's session: $leftover" >>"$log"
		kill -KILL $leftover 2>/dev/null
		[ $rc -eq 0 ] && rc=1
	fi
	mounts=$(findmnt -rn -o TARGET | grep 'jsym' | sort -u | comm -13 "$logs/$name.mnt-before" -)
	rm -f "$logs/$name.mnt-before"
	ours=
	while read -r m; do
		[ -n "$m" ] || continue
		if held_elsewhere "$m" "$child"; then
			echo "not blamed: mount $m, held by a process outside the scenario" >>"$log"
		else
			ours+="$m"$'\n'
		fi
	done <<<"$mounts"
	if [ -n "$ours" ]; then
		echo "leak: mounts left behind:" >>"$log"
		printf '%s' "$ours" >>"$log"
		[ $rc -eq 0 ] && rc=1
	fi
	while read -r d; do
		[ -e "$d" ] || continue
		echo "leak: the kit's state directory left behind: $d" >>"$log"
		rm -rf "$d"
		[ $rc -eq 0 ] && rc=1
	done <"$kitdirs"
	rm -f "$kitdirs"
	# what the scenario's JVMs and jsym left in the host's /tmp
	new=
	while read -r f; do
		[ -n "$f" ] || continue
		p=$(tmp_pid "$f")
		if [ -n "$p" ] && foreign_pid "$p" "$child"; then
			echo "not blamed: $f, of pid $p, which runs outside the scenario" >>"$log"
		else
			new+="$f"$'\n'
		fi
	done <<<"$(host_tmp_files | comm -13 "$logs/$name.tmp-before" -)"
	new=${new%$'\n'}
	rm -f "$logs/$name.tmp-before"
	if [ -n "$new" ]; then
		echo "leak: files left in the host's /tmp:" >>"$log"
		echo "$new" >>"$log"
		echo "$new" | xargs -d '\n' rm -rf
		[ $rc -eq 0 ] && rc=1
	fi
	secs=$(($(date +%s) - start))
	case $rc in
	0)
		pass=$((pass + 1))
		printf 'PASS  %-40s %4ss\n' "$name" "$secs"
		;;
	77)
		skip=$((skip + 1))
		printf 'SKIP  %-40s %s\n' "$name" "$(tail -n 1 "$log")"
		;;
	*)
		fail=$((fail + 1))
		failed+=("$name")
		[ $rc -eq 124 ] && echo "timed out after ${limit}s" >>"$log"
		printf 'FAIL  %-40s %4ss (exit %s)\n' "$name" "$secs" "$rc"
		sed 's/^/      | /' "$log" | tail -n 40
		;;
	esac
done
echo "integration: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
