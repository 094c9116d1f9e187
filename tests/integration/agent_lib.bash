# tests/integration/agent_lib.bash - helpers for the 20-agent-* scenarios.
# Sourced (not *.sh, so the runner never runs it as a scenario).
#
#   ag_init                 temp dir $AG_TMP, cleanup trap (JVMs we started,
#                           their /tmp perf maps and jsym files, the temp dir)
#   ag_skip REASON          "skip: REASON" as the last line, exit 77
#   ag_jdks                 JAVA_HOMEs to test: Debian's 17, Temurin 25 if present
#   ag_feature HOME         feature version (17, 25)
#   ag_classes              compile tests/java/Agent*.java once, print the dir
#   ag_start NAME HOME JVMARGS... -- CLASS ARGS...
#                           start a JVM in the background, AG_PID = its pid,
#                           stdout+stderr in $AG_TMP/NAME.out
#   ag_wait_out NAME TEXT SECS   wait until NAME's output contains TEXT
#   ag_load HOME PID OPTS   jcmd PID JVMTI.agent_load LIB "OPTS" (quoted for
#                           jcmd's parser, which splits unquoted key=value);
#                           AG_LOAD_RC = the agent's return code
#   ag_check DESC CMD...    run CMD, count a failure if it fails
#   ag_finish               exit 1 if any check failed
#   ag_py ARGS...           agent_check.py

set -u
: "${JSYM_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${JSYM_BUILD:=$JSYM_ROOT/glibc-build}"
: "${JSYM_MUSL_BUILD:=$JSYM_ROOT/musl-build}"
AG_LIB=$JSYM_BUILD/libjsym-agent.so
AG_TMP=
AG_PIDS=()
AG_FAILS=0
AG_CHECKS=0
AG_PID=
AG_LOAD_RC=

ag_skip() {
	echo "skip: $*"
	exit 77
}

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
		rm -f "/tmp/perf-$p.map" "/tmp/perf-$p.map.tmp" "/tmp/jsym-$p.log" \
			"/tmp/jsym-$p.journal" "/tmp/.java_pid$p" "/tmp/.attach_pid$p"
	done
	wait 2>/dev/null
	[ -n "$AG_TMP" ] && rm -rf "$AG_TMP"
	return 0
}

ag_init() {
	[ -f "$AG_LIB" ] || ag_skip "agent not built: $AG_LIB (run make)"
	command -v python3 >/dev/null || ag_skip "needs python3"
	AG_TMP=$(mktemp -d /tmp/jsym-agent-test.XXXXXX)
	chmod 755 "$AG_TMP"
	trap ag_cleanup EXIT
}

ag_jdks() {
	local h
	for h in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64; do
		[ -x "$h/bin/java" ] && [ -x "$h/bin/jcmd" ] && echo "$h"
	done
	return 0
}

ag_feature() {
	sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null
}

ag_classes() {
	local d=$AG_TMP/classes javac
	if [ ! -d "$d" ]; then
		javac=$(ag_jdks | head -1)/bin/javac
		[ -x "$javac" ] || ag_skip "needs a JDK with javac"
		mkdir -p "$d"
		"$javac" --release 17 -d "$d" "$JSYM_ROOT"/tests/java/Agent*.java >&2 ||
			{ echo "FAIL: javac" >&2; exit 1; }
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
	echo "FAIL: $1 did not print '$2' within $3 s:" >&2
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

ag_check() {
	local desc=$1
	shift
	AG_CHECKS=$((AG_CHECKS + 1))
	if "$@"; then
		echo "ok:   $desc"
	else
		echo "FAIL: $desc"
		AG_FAILS=$((AG_FAILS + 1))
	fi
}

ag_py() {
	python3 "$JSYM_ROOT/tests/integration/agent_check.py" "$@"
}

ag_finish() {
	echo "$AG_CHECKS checks, $AG_FAILS failed"
	[ "$AG_FAILS" -eq 0 ]
}
