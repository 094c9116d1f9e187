#!/usr/bin/env bash
# agent_overhead.sh - cost of the agent on a JIT-heavy run.
#
# Baseline: a JVM (JDK 17) that runs javac in-process 5 times on
# tests/java/*.java (AgentJavacHost: ~5000 methods JIT-compiled in a few
# seconds), without an agent.  Same run with -agentpath:libjsym-agent.so
# (map + journal to a temp dir).  REPS runs of
# each, interleaved; prints the medians of wall and CPU (user+sys) time and
# their ratios (agent / baseline).  Never asserts.
set -u
: "${JSYM_ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${JSYM_BUILD:=$JSYM_ROOT/glibc-build}"
lib=$JSYM_BUILD/libjsym-agent.so
jdk=/usr/lib/jvm/java-17-openjdk-amd64
reps=${REPS:-5}
[ -f "$lib" ] || { echo "agent_overhead: skipped, agent not built (make)"; exit 0; }
[ -x "$jdk/bin/javac" ] || { echo "agent_overhead: skipped, needs JDK 17"; exit 0; }
tmp=$(mktemp -d /tmp/jsym-bench-agent.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$jdk/bin/javac" --release 17 -d "$tmp/cls" "$JSYM_ROOT"/tests/java/AgentJavacHost.java || exit 1

run() { # LABEL JVM-ARGS... -> appends "wall cpu" to $tmp/LABEL
	local label=$1
	shift
	rm -rf "$tmp/out"
	mkdir -p "$tmp/out"
	/usr/bin/time -f '%e %U %S' -o "$tmp/t" "$jdk/bin/java" -Xmx256m "$@" -cp "$tmp/cls" \
		AgentJavacHost 5 0 "$tmp/out" "$JSYM_ROOT"/tests/java/*.java >/dev/null 2>&1
	awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$tmp/t" >>"$tmp/$label"
}

median() { # FILE COLUMN
	awk -v c="$2" '{print $c}' "$1" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}

run warmup # page cache
rm -f "$tmp/warmup"
for i in $(seq 1 "$reps"); do
	run base
	mkdir -p "$tmp/agent-out"
	run agent "-agentpath:$lib=dir=$tmp/agent-out"
	rm -rf "$tmp/agent-out"
done
bw=$(median "$tmp/base" 1) bc=$(median "$tmp/base" 2)
aw=$(median "$tmp/agent" 1) ac=$(median "$tmp/agent" 2)
echo "JVM running javac 5x in-process (JIT-heavy), $reps runs each, medians:"
echo "  baseline (no agent): wall ${bw}s  cpu ${bc}s"
echo "  with jsym agent:     wall ${aw}s  cpu ${ac}s"
awk -v bw="$bw" -v bc="$bc" -v aw="$aw" -v ac="$ac" \
	'BEGIN {printf "  ratio agent/baseline: wall %.3f  cpu %.3f\n", aw / bw, ac / bc}'
