#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 20-agent-host.sh - libjsym-agent.so (glibc build) in host JVMs: JDK 17 and,
# when present, Temurin 25.
#
#  A startup load (-agentpath, with unfold and verbose): files, formats,
#    names as jcmd prints them, coverage of the JDK's own `Compiler.perfmap`
#    snapshot, FRAMES records inside their LOADs, log lines on stderr
#  B late attach (jcmd JVMTI.agent_load): same checks
#  C re-attach twice: refresh only, no duplicate map lines
#  D stop, then load again: the journal continues, the map is rebuilt
#  E an unknown option: return code 1 and the reason in the log
#  F hostile output dir: a planted symlink map is refused and left alone, a
#    FIFO journal makes the load fail (code 3) without hanging the JVM
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/integration/agent_lib.bash"
ag_init
[ -n "$(t_jdks)" ] || t_skip "needs JDK 17 (apt-get install openjdk-17-jdk-headless)"
cls=$(ag_classes)

files_ok() { # DIR PID
	local f m
	for f in "$1/perf-$2.map" "$1/jsym-$2.journal" "$1/jsym-$2.log"; do
		[ -f "$f" ] && [ ! -L "$f" ] || { echo "missing $f" >&2; return 1; }
		m=$(stat -c %a "$f")
		[ "$m" = 644 ] || { echo "$f has mode $m" >&2; return 1; }
	done
}

# Compare with the JDK's own snapshot, taken at nearly the same moment.
# JDK 17 always writes /tmp/perf-<pid>.map: jsym writes elsewhere (DIR), and
# the JDK's file is moved away at once.
coverage_vs_jdk() { # HOME PID DIR DESC
	local jdk=$AG_TMP/jdk-$2.map mine=$AG_TMP/mine-$2.map
	"$1/bin/jcmd" "$2" Compiler.perfmap >/dev/null || return 1
	mv "/tmp/perf-$2.map" "$jdk" || return 1
	sleep 0.5 # one flush period + margin
	cp "$3/perf-$2.map" "$mine"
	ag_py coverage "$jdk" "$mine" "$3/jsym-$2.journal" 95
}

log_has() { # FILE ERE
	grep -Eq "$2" "$1" || { echo "log $1 lacks /$2/:" >&2; cat "$1" >&2; return 1; }
}

while read -r home v <&3; do
	echo "=== JDK $v: $home"

	echo "--- A: startup load"
	d=$AG_TMP/a$v
	mkdir -p "$d"
	ag_start a$v "$home" -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints \
		"-agentpath:$AG_LIB=dir=$d,unfold,verbose" -cp "$cls" -- AgentBusy 60
	p=$AG_PID
	if ag_wait_out a$v "agent-busy: started" 60; then
		sleep 1
		t_check "A$v: map, journal, log are regular 0644 files" files_ok "$d" "$p"
		t_check "A$v: map format, no duplicates" ag_py map "$d/perf-$p.map"
		t_check "A$v: journal valid" ag_py journal "$d/jsym-$p.journal"
		t_check "A$v: 'long AgentBusy.heavyCompute(int)'" \
			grep -q ' long AgentBusy.heavyCompute(int)$' "$d/perf-$p.map"
		t_check "A$v: nested class constructor 'void AgentBusy\$Point.<init>(int, int)'" \
			grep -qF ' void AgentBusy$Point.<init>(int, int)' "$d/perf-$p.map"
		t_check "A$v: arrays 'int[] AgentBusy.fill(int[], java.lang.String[])'" \
			grep -qF ' int[] AgentBusy.fill(int[], java.lang.String[])' "$d/perf-$p.map"
		t_check "A$v: stubs named (Interpreter)" grep -q ' Interpreter$' "$d/perf-$p.map"
		t_check "A$v: coverage of the JDK's map" coverage_vs_jdk "$home" "$p" "$d"
		t_check "A$v: unfold: FRAMES records (inside their LOADs, rooted in them)" \
			bash -c "python3 '$JSYM_ROOT/tests/integration/agent_check.py' journal '$d/jsym-$p.journal' | grep -Eq ', [1-9][0-9]* FRAMES'"
		t_check "A$v: verbose: log lines on the JVM's stderr" grep -q 'jsym-agent\[[0-9]*\]: started' "$AG_TMP/a$v.out"
		ag_load "$home" "$p" "dir=$d,unfold,verbose"
		t_check "A$v: jcmd load over the -agentpath instance returned 0" [ "$AG_LOAD_RC" = 0 ]
		t_check "A$v: ... and only refreshed" log_has "$d/jsym-$p.log" 'attached again: refreshing'
		sleep 0.3
		t_check "A$v: ... no duplicate map lines" ag_py map "$d/perf-$p.map"
	fi
	# (it ran long enough for every step above on a loaded machine: an 8 s
	# run ended before the re-attach when the load average was 20)
	kill "$p" 2>/dev/null

	echo "--- B: late attach"
	d=$AG_TMP/b$v
	mkdir -p "$d"
	ag_start b$v "$home" -cp "$cls" -- AgentBusy 60
	p=$AG_PID
	ag_wait_out b$v "agent-busy: started" 60 || continue
	sleep 1
	ag_load "$home" "$p" "dir=$d"
	t_check "B$v: Agent_OnAttach returned 0" [ "$AG_LOAD_RC" = 0 ]
	sleep 0.3
	t_check "B$v: files" files_ok "$d" "$p"
	t_check "B$v: map format, no duplicates" ag_py map "$d/perf-$p.map"
	t_check "B$v: journal valid, starts with EPOCH 1" ag_py journal "$d/jsym-$p.journal"
	t_check "B$v: log names the replay" log_has "$d/jsym-$p.log" 'replay \(epoch 1\): [0-9]+ methods'
	t_check "B$v: flush thread is the daemon agent thread jsym-flush" \
		bash -c "'$home/bin/jcmd' $p Thread.print | grep -q '\"jsym-flush\".* daemon'"
	t_check "B$v: coverage of the JDK's map" coverage_vs_jdk "$home" "$p" "$d"

	echo "--- C: re-attach twice"
	ag_load "$home" "$p" "dir=$d"
	t_check "C$v: second attach returned 0" [ "$AG_LOAD_RC" = 0 ]
	ag_load "$home" "$p" "dir=$d,flush_ms=50"
	t_check "C$v: third attach returned 0" [ "$AG_LOAD_RC" = 0 ]
	sleep 0.3
	t_check "C$v: no duplicate map lines" ag_py map "$d/perf-$p.map"
	t_check "C$v: journal valid" ag_py journal "$d/jsym-$p.journal"
	t_check "C$v: two refreshes logged" \
		[ "$(grep -c 'attached again: refreshing' "$d/jsym-$p.log")" = 2 ]
	t_check "C$v: refresh found everything already known" \
		log_has "$d/jsym-$p.log" 'replay \(epoch 2\): [0-9]+ methods, [0-9]+ stubs new, [1-9][0-9]* already known'

	echo "--- D: stop, then load again"
	ag_load "$home" "$p" "dir=$d,stop"
	t_check "D$v: stop returned 0" [ "$AG_LOAD_RC" = 0 ]
	t_check "D$v: stop logged" log_has "$d/jsym-$p.log" 'stopped: [0-9]+ loads'
	s1=$(md5sum <"$d/jsym-$p.journal")
	sleep 0.5
	t_check "D$v: journal unchanged while stopped" [ "$s1" = "$(md5sum <"$d/jsym-$p.journal")" ]
	ag_load "$home" "$p" "dir=$d"
	t_check "D$v: load after stop returned 0" [ "$AG_LOAD_RC" = 0 ]
	sleep 0.3
	t_check "D$v: journal continued (appending)" log_has "$d/jsym-$p.log" 'started: .*\(appending\)'
	t_check "D$v: journal valid across the restart" ag_py journal "$d/jsym-$p.journal"
	t_check "D$v: map rebuilt, no duplicates" ag_py map "$d/perf-$p.map"
	t_check "D$v: map still has Java methods" grep -q ' AgentBusy.round(' "$d/perf-$p.map"

	echo "--- E: unknown option"
	ag_load "$home" "$p" "dir=$d,bogus"
	t_check "E$v: Agent_OnAttach returned 1" [ "$AG_LOAD_RC" = 1 ]
	t_check "E$v: reason logged" log_has "$d/jsym-$p.log" "invalid options: unknown option 'bogus'"

	echo "--- F: hostile output directory"
	ag_load "$home" "$p" "dir=$d,stop"
	f=$AG_TMP/f$v
	mkdir -p "$f"
	echo keep >"$AG_TMP/victim$v"
	ln -s "$AG_TMP/victim$v" "$f/perf-$p.map"
	ag_load "$home" "$p" "dir=$f"
	t_check "F$v: load with a planted map symlink returned 0" [ "$AG_LOAD_RC" = 0 ]
	sleep 0.3
	t_check "F$v: symlink target untouched" [ "$(cat "$AG_TMP/victim$v")" = keep ]
	t_check "F$v: symlink still a symlink" [ -L "$f/perf-$p.map" ]
	t_check "F$v: refusal logged" log_has "$f/jsym-$p.log" 'symlink.*refusing'
	t_check "F$v: journal written anyway" ag_py journal "$f/jsym-$p.journal"
	ag_load "$home" "$p" "dir=$f,stop"
	g=$AG_TMP/g$v
	mkdir -p "$g"
	mkfifo "$g/jsym-$p.journal"
	timeout 30 true # keep the shape: the load below must return by itself
	ag_load "$home" "$p" "dir=$g"
	t_check "F$v: FIFO journal: Agent_OnAttach returned 3" [ "$AG_LOAD_RC" = 3 ]
	t_check "F$v: FIFO refusal logged" log_has "$g/jsym-$p.log" 'FIFO'
	t_check "F$v: JVM alive after all of it" kill -0 "$p"
	t_check "F$v: agent wrote nothing to the JVM's stdout/stderr" \
		bash -c "! grep -q 'jsym-agent\[' '$AG_TMP/b$v.out'"
	kill -TERM "$p"
done 3< <(t_jdks)
t_finish
