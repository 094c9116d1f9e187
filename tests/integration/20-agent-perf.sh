#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 20-agent-perf.sh - perf names Java frames from jsym's map.
#
# AgentBusy runs with the JDK's default flags and the agent writing
# /tmp/perf-<pid>.map (the default dir, where perf looks); `perf record -e
# cpu-clock -g` samples it for 3 s (frame pointers: mostly the top frame
# alone, which is all this checks; 22-agent-whole-stacks has whole stacks);
# `perf script` must show Java frames named from the map.  Prints the naming
# rate: frames in the map's address ranges (perf's dso /tmp/perf-<pid>.map)
# that got a symbol, overall and for the leaf frame of each sample.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/integration/agent_lib.bash"
ag_init
command -v perf >/dev/null || t_skip "needs perf (apt-get install linux-perf)"
[ "$(id -u)" = 0 ] || t_skip "needs root (perf reads a root-owned map; sampling a JVM)"
home=$(t_jdks | head -n 1 | cut -d" " -f1)
[ -n "$home" ] || t_skip "needs JDK 17 (apt-get install openjdk-17-jdk-headless)"
cls=$(ag_classes)

ag_start perf "$home" "-agentpath:$AG_LIB" -cp "$cls" -- AgentBusy 12
p=$AG_PID
ag_wait_out perf "agent-busy: started" 60 || t_abort "the JVM with the agent did not start within 60 s"
sleep 1
if ! timeout 30 perf record -q -e cpu-clock -g -p "$p" -o "$AG_TMP/perf.data" -- sleep 3 \
	>"$AG_TMP/record.log" 2>&1; then
	cat "$AG_TMP/record.log"
	grep -qiE 'permission|not supported|no such device|paranoid' "$AG_TMP/record.log" &&
		t_skip "perf cannot sample here: $(head -1 "$AG_TMP/record.log")"
	t_abort "perf record failed: $(head -1 "$AG_TMP/record.log")"
fi
perf script -i "$AG_TMP/perf.data" -F ip,sym,dso 2>/dev/null >"$AG_TMP/script.txt"
map="/tmp/perf-$p.map"
stats=$(awk -v dso="($map)" '
	NF == 0 { leaf = 1; next }
	{
		inmap = ($NF == dso)
		named = inmap && $2 != "[unknown]"
		if (inmap) { frames++; if (named) nf++ }
		if (leaf && inmap) { leaves++; if (named) nl++ }
		leaf = 0
	}
	END { printf "%d %d %d %d\n", frames, nf, leaves, nl }' "$AG_TMP/script.txt")
read -r frames named leaves nleaves <<<"$stats"
t_log "perf: $frames frames in JIT code ($map), $named named ($((frames ? 100 * named / frames : 0))%);" \
	"$leaves leaf frames, $nleaves named ($((leaves ? 100 * nleaves / leaves : 0))%)"
grep -m 3 'AgentBusy\.' "$AG_TMP/script.txt" || true
t_check "perf attributes samples to $map" [ "${frames:-0}" -gt 0 ]
t_check "perf shows AgentBusy frames by name" grep -q 'AgentBusy\.[a-zA-Z]*(' "$AG_TMP/script.txt"
t_check "at least 95% of the JIT frames are named" [ $((100 * ${named:-0})) -ge $((95 * ${frames:-1})) ]
t_finish
