# SPDX-License-Identifier: Apache-2.0
# tests/integration/agent_lib.bash - helpers for the 20-agent-* scenarios.
# Sourced (not *.sh, so the runner never runs it as a scenario), after
# tests/lib/lib.sh, whose checks (t_check, t_finish...) and JDK finder
# (t_jdks) the scenarios use.  This file adds:
#
#   ag_init                 temp dir $AG_TMP, cleanup (JVMs we started,
#                           their /tmp perf maps and jsym files, the temp dir)
#   ag_classes              compile tests/java/Agent*.java once, print the dir
#   ag_start NAME HOME JVMARGS... -- CLASS ARGS...
#                           start a JVM in the background, AG_PID = its pid,
#                           stdout+stderr in $AG_TMP/NAME.out
#   ag_wait_out NAME TEXT SECS   wait until NAME's output contains TEXT (else a
#                           failed check; returns 1)
#   ag_load HOME PID OPTS   jcmd PID JVMTI.agent_load LIB "OPTS" (quoted for
#                           jcmd's parser, which splits unquoted key=value);
#                           AG_LOAD_RC = the agent's return code
#   ag_py ARGS...           agent_check.py

set -u
: "${JSYM_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
source "$JSYM_ROOT/tests/lib/lib.sh"
AG_LIB=$JSYM_BUILD/libjsym-agent.so
AG_TMP=
AG_PIDS=()
AG_PID=
AG_LOAD_RC=

ag_cleanup() {
	local p i
	for p in "${AG_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in "${AG_PIDS[@]}"; do
		for i in $(seq 1 50); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$p" 2>/dev/null
	done
	wait 2>/dev/null
	t_jvm_forget "${AG_PIDS[@]}"
	[ -n "$AG_TMP" ] && rm -rf "$AG_TMP"
	return 0
}

ag_init() {
	[ -f "$AG_LIB" ] || t_skip "agent not built: $AG_LIB (run make)"
	command -v python3 >/dev/null || t_skip "needs python3"
	AG_TMP=$(mktemp -d /tmp/jsym-agent-test.XXXXXX)
	chmod 755 "$AG_TMP"
	kit_on_exit ag_cleanup
}

ag_classes() {
	local d=$AG_TMP/classes javac
	if [ ! -d "$d" ]; then
		javac=$(t_jdks | head -n 1 | cut -d' ' -f1)/bin/javac
		[ -x "$javac" ] || t_skip "needs a JDK with javac"
		mkdir -p "$d"
		"$javac" --release 17 -d "$d" "$JSYM_ROOT"/tests/java/Agent*.java >&2 ||
			t_abort "javac"
	fi
	echo "$d"
}

ag_start() {
	local name=$1 home=$2
	shift 2
	local jvm=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		jvm+=("$1")
		shift
	done
	shift
	"$home/bin/java" -Xmx256m -XX:+UsePerfData "${jvm[@]}" "$@" >"$AG_TMP/$name.out" 2>&1 &
	AG_PID=$!
	AG_PIDS+=("$AG_PID")
}

ag_wait_out() {
	local i
	for i in $(seq 1 $(($3 * 10))); do
		grep -q "$2" "$AG_TMP/$1.out" 2>/dev/null && return 0
		sleep 0.1
	done
	t_fail "$1 did not print '$2' within $3 s"
	cat "$AG_TMP/$1.out" >&2
	return 1
}

ag_load() {
	local out
	out=$("$1/bin/jcmd" "$2" JVMTI.agent_load "${4:-$AG_LIB}" "\"$3\"" 2>&1)
	AG_LOAD_RC=$(printf '%s\n' "$out" | sed -n 's/^return code: \(-\{0,1\}[0-9]*\)$/\1/p')
	echo "    jcmd $2 JVMTI.agent_load ... \"$3\" -> return code ${AG_LOAD_RC:-?}"
	[ -n "$AG_LOAD_RC" ]
}

ag_py() {
	python3 "$JSYM_ROOT/tests/integration/agent_check.py" "$@"
}
