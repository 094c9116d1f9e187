#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 37-cli-no-jvm.sh - what jsym prints where no real JVM is needed: --json
# of an exec that fails before any output exists (stdout is a file with
# earlier contents); the options detach and attach --stop refuse;
# getopt's errors, named as jsym's; `jsym list -v` as an unprivileged
# user about the processes it cannot inspect; a fake JVM whose release
# file and cgroup carry terminal escape sequences (`jsym list`, `-v`,
# `--json` must show them escaped).  Fast: no JDK, no container.
source "$(dirname "$0")/lib-attach.bash"
la_init
t_need_root

# A pid that cannot exist (above pid_max's hard limit of 2^22).
nopid=9999999

# ------------------------------------------- exec --json, early failure
t_case json-early-failure-keeps-stdout-file
# `1<>file` opens the file without truncating it: an exec that fails before
# its output memfd exists must not read stdout back as "output".
out=$LA_TMP/out.json
printf 'OLD-SECRET\n' >"$out"
timeout -k 3 30 "$JSYM" exec --json "$nopid" properties 1<>"$out" 2>"$LA_TMP/jsym.err"
T_RC=$?
echo "+ jsym exec --json $nopid properties 1<>out.json -> exit $T_RC"
sed 's/^/  file| /' "$out"
t_expect_rc 2
t_check "out.json is exactly one valid JSON object without \"output\"" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d.get("ok") is False and d.get("exit") == 2 and "output" not in d else 1)' "$out"
# The JSON (longer than the old text) overwrites it from offset 0.
t_check "the earlier contents appear nowhere" eval "! grep -q OLD-SECRET '$out'"

# ------------------------------------------- options that do not fit
t_case detach-and-stop-refuse-what-makes-no-sense
# jsym detach is attach --stop --clean of the pids named: every other
# option is refused, by name, as a usage error (exit 1), before any JVM is
# looked at.  The pid cannot exist, so a refusal that regressed ends in
# "no process" (exit 2), never in a detach of a real JVM.
for opt in --all "--jobs 2" "-o unfold" --options=unfold "--delivery copy" \
	--stop --clean --fallback=map --force; do
	# shellcheck disable=SC2086 # the option and its value are two words
	la_jsym detach $opt "$nopid"
	t_expect_rc 1
	name=${opt%%[ =]*}
	[ "$name" = -o ] && name=--options  # named by its long name
	t_expect_err "^jsym: detach: $name makes no sense"
done
# --stop loads nothing: what shapes a load is refused with it
for opt in "-o unfold" "--delivery memfd" --fallback=map --force; do
	# shellcheck disable=SC2086
	la_jsym attach --stop $opt "$nopid"
	t_expect_rc 1
	name=${opt%%[ =]*}
	[ "$name" = -o ] && name=--options
	t_expect_err "^jsym: $name cannot go with --stop"
done
# what detach does take goes through to the (missing) target
la_jsym detach -a "$LA_TMP" -t 500 -r 500 -v --json "$nopid"
t_expect_rc 2
t_expect_err "no process with pid $nopid"
t_expect_not_err 'makes no sense|usage'

# ------------------------------------------- getopt's errors
t_case getopt-errors-say-jsym
# getopt's own messages start "jsym: COMMAND: " like every other error,
# not with the bare command name getopt finds in argv[0]
for cmd in attach detach exec list map resolve; do
	la_jsym "$cmd" --no-such-option
	t_expect_rc 1
	t_expect_err "^jsym: $cmd: unrecognized option"
	t_expect_not_err "^$cmd:"
done
la_jsym map -i
t_expect_rc 1
t_expect_err "^jsym: map: option requires an argument"

# ------------------------------------------- list -v, unprivileged
t_case list-v-unprivileged-names-what-was-refused
# PID 1 (root's, not a JVM) cannot be inspected by uid 65534: -v must say
# which pid, which file and why, and must not guess that it is a JVM.
timeout -k 3 30 setpriv --reuid 65534 --regid 65534 --clear-groups "$JSYM" list -v \
	>"$LA_TMP/jsym.out" 2>"$LA_TMP/jsym.err" </dev/null
T_RC=$?
T_ERR=$(cat "$LA_TMP/jsym.err")
echo "+ (uid 65534) jsym list -v -> exit $T_RC"
grep -E '\b1\b' "$LA_TMP/jsym.err" | sed 's/^/  err| /'
tail -n 2 "$LA_TMP/jsym.err" | sed 's/^/  err| /'
t_expect_rc 0
pid1=$(grep -E 'process 1[^0-9]' "$LA_TMP/jsym.err")
t_check "a line names process 1" test -n "$pid1"
t_check "it names the refused file /proc/1/maps" grep -q '/proc/1/maps' <<<"$pid1"
t_check "it gives the reason (errno text)" grep -q 'Permission denied' <<<"$pid1"
t_check "it does not claim a JVM" eval "! grep -qiE 'is (probably )?a JVM|the JVM' <<<\"\$pid1\""
t_expect_not_err -i 'probably'

# ------------------------------------------- hostile text from a target
t_case list-escapes-target-text
# A fake HotSpot: sleep with a copy of libm preloaded as .../lib/server/
# libjvm.so, in a private mount namespace (so it counts as a container and
# its cgroup is shown), in a cgroup whose name holds an escape sequence.
# Its JDK's release file says JAVA_VERSION="17<ESC>[31mEVIL<CSI>1m" (CSI:
# the C1 control U+009B, valid UTF-8).
jdk=$LA_TMP/jdk
mkdir -p "$jdk/lib/server"
cp "$(ldconfig -p | awk '/libm\.so\.6 .*x86-64/ {print $NF; exit}')" "$jdk/lib/server/libjvm.so"
printf 'JAVA_VERSION="17\033[31mEVIL\302\2331m"\nIMPLEMENTOR="\033]0;pwned\007"\n' >"$jdk/release"
cg=
for base in /sys/fs/cgroup/unified /sys/fs/cgroup; do
	if [ -f "$base/cgroup.procs" ] && mkdir "$base/jsym-test-"$'\e[5m'"evil-$$" 2>/dev/null; then
		cg=$base/jsym-test-$'\e[5m'evil-$$
		kit_on_exit "rmdir '$cg' 2>/dev/null"
		break
	fi
done
(
	[ -n "$cg" ] && echo $BASHPID >"$cg/cgroup.procs"
	exec env LD_PRELOAD="$jdk/lib/server/libjvm.so" unshare -m sleep 600
) </dev/null >/dev/null 2>&1 &
LA_PIDS+=("$!")
fake=$!
for _ in $(seq 50); do grep -q 'libjvm.so' /proc/$fake/maps 2>/dev/null && break; sleep 0.1; done
[ -n "$cg" ] || echo "note: no writable cgroup: only the release file is hostile"

no_esc() { ! LC_ALL=C grep -qE $'\e|\a|\xc2[\x80-\x9f]' "$KIT_DIR/t_run.out" "$KIT_DIR/t_run.err"; }
la_jsym list
t_expect_rc 0
t_check "the fake JVM is listed" grep -qE "^$fake +[0-9]+ +[0-9]+ +HotSpot" "$KIT_DIR/t_run.out"
t_check "no ESC, BEL or C1 control on stdout or stderr" no_esc
t_check "the version is shown escaped" grep -qF '17\x1b[31mEVIL\xc2\x9b1m' "$KIT_DIR/t_run.out"
if [ -n "$cg" ]; then
	t_check "the cgroup is shown escaped" grep -qF 'jsym-test-\x1b[5mevil' "$KIT_DIR/t_run.out"
fi
la_jsym list -v
t_expect_rc 0
t_check "-v: no ESC/BEL byte on stdout or stderr" no_esc
la_jsym list --json
t_expect_rc 0
t_check "--json: no ESC/BEL byte" no_esc
t_check "--json is valid JSON and keeps the version's text" python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))
row = [r for r in rows if r["pid"] == int(sys.argv[2])][0]
sys.exit(0 if row["version"] == "17\x1b[31mEVIL\x9b1m" else 1)' "$KIT_DIR/t_run.out" "$fake"
la_jsym exec -v "$fake" properties
t_check "exec -v of the fake: no ESC/BEL byte on stdout or stderr" no_esc
la_jvm_stop "$fake"

t_finish
