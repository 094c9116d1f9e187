#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_overhead.sh - cost of the agent on a JIT-heavy run.
#
# A JVM (JDK 17) runs javac in-process 5 times on tests/java/*.java
# (AgentJavacHost: ~5000 methods JIT-compiled in a few seconds), in these
# setups: no agent; the floor, an empty agent that only enables the three
# code events (tests/bench/floor_agent.c: what the JVM itself spends to post
# them); jsym's agent (map + journal to a temp dir); with `unfold`; with
# `lines`; with `jitdump` (with its unwinding data: the whole-stack path);
# with `jitdump,nounwind` (jitnounw: the same dump without it); with
# `jitdump,lines` (all three unbounded, jitdump_max=0, to measure the whole
# cost; the dumps' sizes are printed).  REPS runs of each, interleaved;
# prints the medians of wall and CPU (user+sys) time and each agent's ratio
# to the floor (the goal is <= 1.02, <= 1.03 for jitdump) and to no agent,
# and jitdump's ratio to jitnounw: the unwinding data's own cost.  Never
# asserts.  AGENT_OVERHEAD_SETUPS="base floor jitdump jitnounw" runs only
# those (base and floor are the baselines: keep them).
set -u
: "${JSYM_ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${JSYM_BUILD:=$JSYM_ROOT/glibc-build}"
source "$JSYM_ROOT/tests/lib/median.sh"
lib=$JSYM_BUILD/libjsym-agent.so
floor=$JSYM_BUILD/tests/bench/libjsymflooragent.so
jdk=/usr/lib/jvm/java-17-openjdk-amd64
reps=${REPS:-5}
[ -f "$lib" ] && [ -f "$floor" ] || { echo "agent_overhead: skipped, agent not built (make)"; exit 0; }
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

# column_median FILE COLUMN
column_median() {
	awk -v c="$2" '{print $c}' "$1" | median -
}

run warmup # page cache
rm -f "$tmp/warmup"
setups=${AGENT_OVERHEAD_SETUPS:-base floor jsym unfold lines jitdump jitnounw jitlines}
for i in $(seq 1 "$reps"); do
	for k in $setups; do
		mkdir -p "$tmp/agent-out"
		case $k in
		base) run base ;;
		floor) run floor "-agentpath:$floor" ;;
		jsym) run jsym "-agentpath:$lib=dir=$tmp/agent-out" ;;
		unfold) run unfold "-agentpath:$lib=dir=$tmp/agent-out,unfold" ;;
		lines) run lines "-agentpath:$lib=dir=$tmp/agent-out,lines" ;;
		jitdump) run jitdump "-agentpath:$lib=dir=$tmp/agent-out,jitdump,jitdump_max=0" ;;
		jitnounw) run jitnounw "-agentpath:$lib=dir=$tmp/agent-out,jitdump,nounwind,jitdump_max=0" ;;
		jitlines) run jitlines "-agentpath:$lib=dir=$tmp/agent-out,jitdump,lines,jitdump_max=0" ;;
		esac
		case $k in
		jitdump | jitnounw | jitlines)
			cat "$tmp"/agent-out/jsym-jit-*/jit-*.dump 2>/dev/null | wc -c >>"$tmp/$k.size" ;;
		esac
		rm -rf "$tmp/agent-out"
	done
done
echo "JVM running javac 5x in-process (JIT-heavy), $reps runs each, medians:"
fw=$(column_median "$tmp/floor" 1) fc=$(column_median "$tmp/floor" 2)
bw=$(column_median "$tmp/base" 1) bc=$(column_median "$tmp/base" 2)
for k in $setups; do
	w=$(column_median "$tmp/$k" 1) c=$(column_median "$tmp/$k" 2)
	awk -v k="$k" -v w="$w" -v c="$c" -v fw="$fw" -v fc="$fc" -v bw="$bw" -v bc="$bc" \
		'BEGIN {printf "  %-8s wall %6.2fs cpu %6.2fs   /floor: wall %.3f cpu %.3f   /no agent: wall %.3f cpu %.3f\n", k, w, c, w / fw, c / fc, w / bw, c / bc}'
done
for k in jitdump jitnounw jitlines; do
	[ -s "$tmp/$k.size" ] && echo "  $k: the dump holds $(column_median "$tmp/$k.size" 1) bytes (median)"
done
if [ -s "$tmp/jitdump" ] && [ -s "$tmp/jitnounw" ]; then
	awk -v w="$(column_median "$tmp/jitdump" 1)" -v c="$(column_median "$tmp/jitdump" 2)" \
		-v nw="$(column_median "$tmp/jitnounw" 1)" -v nc="$(column_median "$tmp/jitnounw" 2)" \
		-v s="$(column_median "$tmp/jitdump.size" 1)" -v ns="$(column_median "$tmp/jitnounw.size" 1)" \
		'BEGIN {printf "  unwinding data, jitdump / jitnounw: wall %.3f cpu %.3f, dump size %.2fx\n", w / nw, c / nc, (ns > 0 ? s / ns : 0)}'
fi
