#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 05-first-run: the README's commands work the first time on a fresh minimal
# Debian 12 machine.  Each machine is a container on the `debian-minbase`
# tree (debootstrap --variant=minbase bookworm, nothing else: no compiler,
# no JDK, no make), root, on the host's network for apt.  In it a user does
# what the README asks and nothing more: installs make, gets a clean clone of
# the committed HEAD of $JSYM_ROOT, and runs the command once.  `make unit`
# runs in one machine and `make demo` in another; each must exit 0 on its
# first try and show its real work (Check's summary with no failure; the
# JVM in a container of the kit nested in that machine, the agent attached
# from the machine and refreshed from a sidecar, its perf map, resolved
# addresses incl. inlined code; nothing left behind).  `make test` itself is
# not run here.  Slow by nature: every package jsym needs comes from Debian's
# archive, and the demo's first run debootstraps its container's root.
set -euo pipefail
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root
if ! command -v git >/dev/null; then
	t_skip "no git on the host (the scenario clones \$JSYM_ROOT)"
fi
if ! head=$(git -C "$JSYM_ROOT" rev-parse --verify -q HEAD); then
	t_skip "$JSYM_ROOT has no git commit to clone"
fi
[ -s /etc/resolv.conf ] || t_abort "the host has no /etc/resolv.conf to give the containers' apt"
if [ -n "$(git -C "$JSYM_ROOT" status --porcelain --untracked-files=no)" ]; then
	t_log "note: $JSYM_ROOT has uncommitted changes; they are not tested, HEAD is"
fi
t_log "testing commit $(git -C "$JSYM_ROOT" log -1 --format='%h %s' "$head" | cut -c1-100)"

rootfs=$(kit_rootfs debian-minbase)

# Both machines download through one directory.  A .deb lying in
# /var/cache/apt/archives is not installed, so the second machine is as
# fresh as the first; only the second download of the same files is saved.
debs=$KIT_DIR/debs
mkdir -p "$debs/partial"

# first_run GOAL : a fresh machine, the user's steps, `make GOAL` once.
# Its output goes to this scenario's log as it comes ("GOAL| ..." lines) and
# to $KIT_DIR/GOAL.out for the checks.  Sets first_run_secs and
# first_run_pid (the machine, still running: the caller stops it).
first_run() {
	local goal=$1 src=$KIT_DIR/src-$1 out=$KIT_DIR/$1.out pid tool rc start
	git clone --quiet --no-hardlinks "$JSYM_ROOT" "$src"
	git -C "$src" checkout --quiet --detach "$head"
	pid=$(kit_start "$goal" "$rootfs" --bind "$src:/root/jsym" \
		--bind /etc/resolv.conf:/etc/resolv.conf:ro --bind "$debs:/var/cache/apt/archives" \
		-- sleep infinity)
	t_log "$goal: fresh machine, host pid $pid"
	# Really nothing there yet: every tool the build needs comes from make.
	for tool in make gcc cc pkg-config musl-gcc javac java perf; do
		if kit_exec "$pid" -- sh -c "command -v $tool" >/dev/null; then
			t_abort "$goal: $tool is already in the debian-minbase tree"
		fi
	done
	# The user's own step: make, to type the README's command (git, to
	# clone, is replaced by the host's clone bound at /root/jsym).
	kit_exec "$pid" --env DEBIAN_FRONTEND=noninteractive -- sh -c \
		'apt-get update -qq && apt-get install -y -qq --no-install-recommends make' \
		>"$KIT_DIR/$goal.make.out" 2>&1 ||
		t_abort "$goal: apt-get install make failed: $(tail -n 20 "$KIT_DIR/$goal.make.out")"

	t_log "$goal: running 'make $goal' once (output prefixed '$goal| ')"
	start=$(date +%s)
	set +e
	kit_exec "$pid" --env HOME=/root -- bash -c "cd /root/jsym && make $goal" 2>&1 |
		tee "$out" | sed -u "s/^/$goal| /"
	rc=${PIPESTATUS[0]}
	set -e
	first_run_secs=$(($(date +%s) - start))
	t_log "$goal: 'make $goal' exited $rc after ${first_run_secs}s"
	[ "$rc" -eq 0 ] ||
		t_abort "first 'make $goal' on a fresh machine exited $rc; its last lines:
$(grep -v '^Selecting\|^Preparing\|^Unpacking\|^Setting up\|^Processing' "$out" | tail -n 25)"
	# mk/deps.sh did the installing, in this very run.
	grep -q '^jsym: installing missing Debian packages: ' "$out" ||
		t_abort "$goal: mk/deps.sh installed nothing: not a first run"
	first_run_pid=$pid
}

first_run unit
kit_stop unit
unit_secs=$first_run_secs
out=$(cat "$KIT_DIR/unit.out")
summary=$(grep -E '^[0-9]+%: Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' <<<"$out") ||
	t_abort "unit: no Check summary line in the output"
[[ $summary =~ ^100%:\ Checks:\ [1-9][0-9]*,\ Failures:\ 0,\ Errors:\ 0$ ]] ||
	t_abort "unit: Check's summary is not a clean run: $summary"

first_run demo
out=$(cat "$KIT_DIR/demo.out")
installed=$(grep -m1 '^jsym: installing missing Debian packages: ' <<<"$out")
t_contains "$installed" linux-perf "demo: its deps level (perf)"
t_contains "$installed" debootstrap "demo: its deps level (debootstrap, for its container's root)"
# The demo level is build + JDK + perf + debootstrap: not the test level's
# fuzzing and emulator tools, which would only make a first demo slower.
case " $installed " in
*" clang "* | *" busybox-static "* | *" valgrind "*) t_abort "demo: installed the test level: $installed" ;;
esac
# The container path, nested in this machine: no fallback to a host JVM.
t_contains "$out" "first run: building the container's root filesystem" "demo: says its first run debootstraps"
if grep -q '^  NOTE: ' <<<"$out"; then
	t_abort "demo: fell back to a host JVM: $(grep '^  NOTE: ' <<<"$out" | head -n 1)"
fi
grep -qE '^  host pid [0-9]+; inside: pid 1, uid 1000, ' <<<"$out" ||
	t_abort "demo: no container JVM (PID 1, uid 1000)"
grep -qE '^    jsym: [0-9]+: agent loaded \(HotSpot 17[^,]*, glibc build, copied to /tmp/jsym-' <<<"$out" ||
	t_abort "demo: jsym attach from the host did not load the agent into the container"
grep -qE '^    jsym: 1: agent refreshed \(HotSpot 17[^,]*, glibc build, already-loaded /tmp/jsym-' <<<"$out" ||
	t_abort "demo: the sidecar's jsym attach did not refresh the agent"
t_contains "$out" "the JVM maps 1" "demo: one agent mapped after two attaches"
ranges=$(sed -n 's/^    perf-1\.map: \([0-9]*\) live code ranges.*/\1/p' <<<"$out")
[ "${ranges:-0}" -gt 0 ] || t_abort "demo: no live ranges in the agent's perf map"
if grep -q 'perf cannot sample on this machine' <<<"$out"; then
	t_log "demo: perf could not sample in the machine (the demo said so and went on)"
else
	grep -qE '^ +[0-9.]+%  [a-z]+ (Arith|Strs|Colls|Recur|Bigs|Funcs|Rx)\.' <<<"$out" ||
		t_abort "demo: perf report named no Workload method"
fi
# Resolved addresses: one or more named Workload methods (a method whose
# code was freed since may come back `??`) and one in inlined code.
answers=$(sed -n '/^== 6\. jsym resolve/,/^$/p' <<<"$out" | grep -E '^0x[0-9a-f]+ ' || true)
named=$(grep -cE '^0x[0-9a-f]+  .*(Arith|Strs|Colls|Recur|Bigs|Funcs|Rx)\.[A-Za-z0-9_$]+\(.*\)\+0x[0-9a-f]+  \[class ' <<<"$answers" || true)
[ "$named" -ge 1 ] || t_abort "demo: jsym resolve named no Workload method; its answers: $answers"
# an inlined frame: a stack line "    Class.method ... [inlined]"
sed -n '/^== 6\. jsym resolve/,/^$/p' <<<"$out" | grep -qE '^ +[A-Za-z].*\[inlined\]' ||
	t_abort "demo: no resolved address in inlined code; its answers: $answers"
t_check "demo: its last line" grep -qE '^demo done in [0-9]+ s: the container is stopped' "$KIT_DIR/demo.out"
# Nothing left behind in the machine: no jsym or perf file in /tmp, no process but
# its PID 1 (sleep) and this probe's shell (the glob is expanded before awk
# starts, so awk is not in its own list).  Zombies do not count: the kit's
# container keepers end as orphans, and this machine's PID 1 (sleep) never
# reaps them, as a container whose PID 1 is not an init would not.
# shellcheck disable=SC2016 # expanded by the machine's sh
left=$(kit_exec "$first_run_pid" -- sh -c 'ls -A /tmp | grep "^jsym\|^perf-"
	awk -v me=$$ "\$1 != 1 && \$1 != me && \$3 != \"Z\" { print \"process left:\", \$1, \$2, \$3 }" /proc/[0-9]*/stat' || true)
t_eq "$left" "" "demo: no jsym or perf file in /tmp and no process left in the machine"
kit_stop demo
t_log "pass: first 'make unit' (${unit_secs}s): $summary; first 'make demo' (${first_run_secs}s, debootstrap included): container JVM attached from the machine and a sidecar, $ranges live ranges, $named addresses named, one inlined"
t_finish
