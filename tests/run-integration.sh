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
# failure.
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
	JSYM_KIT_DIRS=$kitdirs setsid timeout -k 10 "$limit" bash "$t" >"$log" 2>&1 </dev/null &
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
	if findmnt -rn -o TARGET | grep -q 'jsym'; then
		echo "leak: mounts left behind:" >>"$log"
		findmnt -rn -o TARGET | grep 'jsym' >>"$log"
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
	new=$(host_tmp_files | comm -13 "$logs/$name.tmp-before" -)
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
