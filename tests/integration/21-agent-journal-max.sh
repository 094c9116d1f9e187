#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 21-agent-journal-max.sh - the bounded journal and the final map, under the
# churn of the HotSpot emulator (tests/emu/hs_emu, docs/emulators.md):
#  1 journal_max=128k, ~3000 events/s for 10 s (as many unloads as loads, so
#    the live code stays near 150 ranges, ~20 KiB of records): the journal,
#    sampled every 10 ms, never passes 128 KiB (+ one flush), is started over several times
#    (new inode, EPOCH 4 first); a `jsym resolve --pid --follow` running all
#    along, fed addresses throughout, ends with exactly the truth: every live
#    range named, every range that was live once but is not now `??` (nothing
#    missed, nothing applied twice across the switches); `jsym resolve --pid`
#    names every live range; `--at` before the start-over is an error naming
#    the earliest time covered, after it an answer.
#  2 `stop` in the middle of the churn: the map equals the live set the
#    journal ends with its UNLOADs (no unload of the last 500 ms left in it).
#  3 SIGTERM in the middle of the churn (Agent_OnUnload): the map equals the
#    truth the emulator writes when it stops its JIT.
#  4 `unfold` under journal_max=64k with inline records (--inline-info) and
#    loads only, so most of the live code lives through every start-over:
#    after several, the journal alone still holds, for every live LOAD, its
#    FRAMES (the agent keeps them with the live entry), and `jsym resolve
#    --pid` of an address in the inlined range of every live method prints
#    its inline stack.  (The emulator has no line tables, so no `lines`: that
#    is 26-inline-lines, on real JDKs.)
set -u
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
JSYM=$JSYM_BUILD/jsym
EMU=$JSYM_BUILD/tests/emu/hs_emu
AGENT=$JSYM_BUILD/libjsym-agent.so
[ -x "$EMU" ] && [ -f "$AGENT" ] || t_skip "not built: $EMU, $AGENT (run make)"
command -v python3 >/dev/null || t_skip "needs python3"
T=$(mktemp -d /tmp/jsym-jmax.XXXXXX)
chmod 755 "$T"
EMU_PIDS=()
cleanup() {
	local p
	for p in "${EMU_PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		rm -f "/tmp/.java_pid$p" "/tmp/.attach_pid$p"
	done
	rm -rf "$T"
}
kit_on_exit cleanup

# emu NAME ARGS...: start the emulator in $T/NAME, EMU_PID
emu() {
	local d=$T/$1
	shift
	mkdir -p "$d/out"
	(cd "$d" && exec "$EMU" --truth "$d/truth" --log "$d/emu.log" "$@" >"$d/emu.out" 2>&1) &
	EMU_PID=$!
	EMU_PIDS+=("$EMU_PID")
	for i in $(seq 1 100); do
		grep -q 'started:' "$d/emu.log" 2>/dev/null && return 0
		sleep 0.1
	done
	t_abort "emulator $1 did not start"
}



t_case "journal_max"
emu one --events 30000 --rate 3000 --initial 150 --unload 49 --late-unload 2 \
	--stub-events 0 --seed 11
P1=$EMU_PID
D=$T/one/out
t_run timeout 30 "$JSYM" exec "$P1" load "$AGENT" true "dir=$D,flush_ms=20,journal_max=128k"
t_expect_rc 0
J=$D/jsym-$P1.journal
# sampler: journal size and inode every 10 ms, until the generator is idle
python3 - "$J" "$T/one/emu.log" >"$T/one/samples" <<'PY' &
import os, sys, time
j, log = sys.argv[1:3]
while True:
    try:
        st = os.stat(j)
        print("%.3f %d %d" % (time.monotonic(), st.st_size, st.st_ino), flush=True)
    except FileNotFoundError:
        print("%.3f missing" % time.monotonic(), flush=True)
    if "generator: idle" in open(log).read():
        break
    time.sleep(0.01)
PY
SAMPLER=$!
# follower: jsym resolve --follow for the whole run, fed addresses of the
# map every 50 ms; at the end, every range ever seen in the map
mkfifo "$T/one/fifo"
python3 - "$JSYM" "$P1" "$D" "$T/one/emu.log" "$T/one/truth" >"$T/one/follower" 2>&1 <<'PY' &
import subprocess, sys, time, os
jsym, pid, d, log, truth = sys.argv[1:6]
p = subprocess.Popen([jsym, "resolve", "--pid", pid, "--dir", d, "--follow"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
                     errors="surrogateescape")
def ask(addrs):
    out = []
    for a in addrs:
        p.stdin.write("%x\n" % a)
        p.stdin.flush()
        out.append(p.stdout.readline().rstrip("\n"))
    return out
def ranges(path):
    r = {}
    try:
        for l in open(path, errors="surrogateescape"):
            s, z, n = l.rstrip("\n").split(" ", 2)
            r[(int(s, 16), int(z, 16))] = n
    except (FileNotFoundError, ValueError):
        pass
    return r
seen = {}
asked = 0
while "generator: idle" not in open(log).read():
    m = ranges(os.path.join(d, "perf-%s.map" % pid))
    seen.update(m)
    ask([s for s, z in list(m)[:20]])
    asked += 1
    time.sleep(0.05)
time.sleep(1.5)
live = ranges(truth)
bad = 0
# every live range: first and last byte give the truth's name
for (s, z), n in live.items():
    for a in (s, s + z - 1):
        got = ask([a])[0].replace("?", " ")   # jsym prints control bytes as ?
        if not got.split("  ")[1].startswith(n + "+"):
            bad += 1
            if bad < 5: print("live wrong: %x %s -> %s" % (a, n, got))
# every range seen once but not live now, at a byte no live range covers: ??
starts = sorted(live)
def covered(a):
    return any(s <= a < s + z for s, z in starts)
gone = 0
for (s, z), n in seen.items():
    if (s, z) in live or covered(s):
        continue
    gone += 1
    got = ask([s])[0]
    if not got.endswith("??"):
        bad += 1
        if bad < 10: print("ghost: %x %s -> %s" % (s, n, got))
p.stdin.close()
p.wait()
print("follower: %d polls, %d live ranges checked, %d dead ranges checked, %d wrong"
      % (asked, len(live), gone, bad))
sys.exit(1 if bad else 0)
PY
FOLLOWER=$!
t_wait_log "$T/one/emu.log" 'generator: idle' 60 || t_fail "generator did not finish"
wait "$SAMPLER"
wait "$FOLLOWER"
FRC=$?
sed 's/^/    /' "$T/one/follower" | tail -5
t_check "follower: live ranges named, dead ones ??, across every start-over" [ "$FRC" = 0 ]
read -r n max inodes < <(awk '$2 != "missing" {n++; if ($2 > m) m = $2; i[$3] = 1}
	END {printf "%d %d %d\n", n, m, length(i)}' "$T/one/samples")
t_log "journal: $n samples, largest $max bytes, $inodes files (inodes)"
t_check "never missing while sampled" eval "! grep -q missing '$T/one/samples'"
t_check "never above 128 KiB + one 20 ms flush (~8 KiB here): $max" [ "$max" -le $((131072 + 8192)) ]
t_check "started over several times: $inodes inodes" [ "$inodes" -ge 4 ]
grep 'journal started over' "$D/jsym-$P1.log" | tail -1 | sed 's/^/    /'
sleep 1
awk '{print $1}' "$T/one/truth" >"$T/one/addrs"
t_run timeout 30 "$JSYM" resolve --pid "$P1" --dir "$D" "$(head -1 "$T/one/addrs")"
python3 - "$JSYM" "$P1" "$D" "$T/one/truth" <<'PY'
import subprocess, sys
jsym, pid, d, truth = sys.argv[1:5]
live = [l.rstrip("\n").split(" ", 2) for l in open(truth, errors="surrogateescape")]
out = subprocess.run([jsym, "resolve", "--pid", pid, "--dir", d] + [s for s, z, n in live],
                     capture_output=True, text=True, errors="surrogateescape").stdout.splitlines()
bad = [(l, o) for l, o in zip(live, out)
       if not o.replace("?", " ").split("  ")[1].startswith(l[2] + "+0x0")]
print("    resolve --pid: %d live ranges, %d wrong" % (len(live), len(bad)))
sys.exit(1 if bad or len(out) != len(live) else 0)
PY
t_check "resolve --pid names every live range" [ $? = 0 ]
t_run timeout 30 "$JSYM" resolve --pid "$P1" --dir "$D" --at 1.5 "$(head -1 "$T/one/addrs")"
t_expect_rc 2
t_expect_err 'before the earliest time .*jsym-[0-9]+\.journal covers, [0-9]+\.[0-9]{6}.*journal_max'
from=$(python3 - "$J" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read(64 + 24)
t, size, ts, reason = struct.unpack_from("<HxxIQQ", b, 64)
print("%d.%09d" % (ts // 10**9 + 1, 0) if t == 5 and reason == 4 else "none")
PY
)
t_run timeout 30 "$JSYM" resolve --pid "$P1" --dir "$D" --at "$from" "$(head -1 "$T/one/addrs")"
t_expect_rc 0
kill -TERM "$P1"

# stop_live JOURNAL MAP: MAP is the set of ranges the agent held at `stop`
# (the UNLOADs its stop wrote end exactly those)
stop_live() {
	python3 - "$1" "$2" <<'PY'
import collections, struct, sys
b = open(sys.argv[1], "rb").read()
off, recs, tss = 64, [], []
while off + 16 <= len(b):
    t, size, ts = struct.unpack_from("<HxxIQ", b, off)
    body = b[off + 16:off + size]
    recs.append((t, body))
    tss.append(ts)
    off += size
live, order = {}, []
states = []
for t, body in recs:
    if t in (1, 3):
        i, s, z = struct.unpack_from("<QQQ", body)
        if t == 1:
            lens = struct.unpack_from("<HHHH", body, 24)
            name = body[32 + sum(lens[:3]):32 + sum(lens)].decode(errors="surrogateescape")
        else:
            n = struct.unpack_from("<H", body, 24)[0]
            name = body[32:32 + n].decode(errors="surrogateescape")
        for k in [k for k, v in live.items() if v[0] == s]:
            del live[k]
        live[i] = (s, z, name.replace("\n", " "))
    elif t == 2:
        live.pop(struct.unpack_from("<Q", body)[0], None)
    states.append(dict(live))
# The last EPOCH 3 and the run of UNLOADs before it: stop's own UNLOADs end
# everything live, but ordinary UNLOADs may come just before them and the
# records do not say where the batch begins.  So every boundary j in that run
# whose following UNLOADs end exactly what was live is a candidate, and the
# map must equal one of them (each a live set of the run's last moments; a
# range unloaded before the run, the rate-limit bug, matches none).
e = max(k for k, (t, body) in enumerate(recs) if t == 5 and struct.unpack_from("<Q", body)[0] == 3)
k = e - 1
while k >= 0 and recs[k][0] == 2:
    k -= 1
mp = collections.Counter(open(sys.argv[2], errors="surrogateescape").read().splitlines())
best = None
for j in range(k, e - 1):
    ids = {struct.unpack_from("<Q", recs[m][1])[0] for m in range(j + 1, e)}
    if set(states[j]) != ids or not ids:
        continue
    want = collections.Counter("%x %x %s" % v for v in states[j].values())
    if want == mp:
        print("    the map equals the live set %d records before EPOCH 3 (%d ranges; "
              "%d UNLOADs in the run)" % (e - j, len(want), e - 1 - k))
        sys.exit(0)
    d = len(want - mp) + len(mp - want)
    if best is None or d < best[0]:
        best = (d, want - mp, mp - want)
print("    the map equals no live set of the stop's last moments; nearest differs by %d:"
      % best[0])
for l in sorted(best[1])[:5]:
    print("    missing:", l)
for l in sorted(best[2])[:5]:
    print("    stale:", l)
sys.exit(1)
PY
}

t_case "stop under churn"
emu two --events 100000 --rate 3000 --initial 300 --seed 12
P2=$EMU_PID
t_run timeout 30 "$JSYM" exec "$P2" load "$AGENT" true "dir=$T/two/out,flush_ms=20"
sleep 3
t_run timeout 30 "$JSYM" exec "$P2" load "$AGENT" true stop
t_expect_rc 0
t_check "the map after stop is the live set at stop" \
	stop_live "$T/two/out/jsym-$P2.journal" "$T/two/out/perf-$P2.map"
kill -TERM "$P2"

t_case "JVM exit under churn"
emu three --events 100000 --rate 3000 --initial 300 --seed 13
P3=$EMU_PID
t_run timeout 30 "$JSYM" exec "$P3" load "$AGENT" true "dir=$T/three/out,flush_ms=20"
sleep 3
kill -TERM "$P3"
wait "$P3"
t_check "the map after exit equals the emulator's final truth" \
	t_same_ranges "$T/three/truth" "$T/three/out/perf-$P3.map"
# frames_kept JOURNAL TRUTH RESOLVE_OUT: the journal read alone has a FRAMES
# for every live LOAD, and each live method's answer is its inline stack
frames_kept() {
	python3 - "$1" "$2" "$3" "$JSYM_ROOT/tests/integration" <<'PY'
import sys
sys.path.insert(0, sys.argv[4])
import agent_check
pid, recs = agent_check.read_journal(sys.argv[1])
first = recs[0] if recs else {}
print("    journal: %d records, the first %s" % (len(recs),
      "EPOCH 4" if first.get("type") == 5 and first.get("reason") == 4 else first))
live, frames = {}, set()
for r in recs:
    if r["type"] == 1:
        live[r["id"]] = r
    elif r["type"] == 2:
        live.pop(r["id"], None)
    elif r["type"] == 6:
        frames.add(r["id"])
bad = [r for i, r in live.items() if i not in frames]
print("    %d live LOADs, %d without their FRAMES" % (len(live), len(bad)))
for r in bad[:5]:
    print("    no FRAMES: %x %s" % (r["start"], r["name"]))
# resolve --pid answers: a line per address, then its frames (innermost first)
answers, cur = [], None
for l in open(sys.argv[3], errors="surrogateescape"):
    if l.startswith("    "):
        cur[1].append(l.strip())
    else:
        cur = (l.rstrip("\n"), [])
        answers.append(cur)
meths = [l.rstrip("\n").split(" ", 2) for l in open(sys.argv[2]) if "gen." in l]
wrong = 0
for (s, z, n), (line, fr) in zip(meths, answers):
    root = n.split("(")[0].split(" ")[-1]
    if (len(fr) != 2 or not fr[0].endswith(" [inlined]") or fr[1] != root
            or " %s+0x" % n not in line):
        wrong += 1
        if wrong < 5:
            print("    not its inline stack: %s -> %s %s" % (n, line, fr))
print("    resolve --pid: %d live methods, %d without their inline stack" % (len(meths), wrong))
ok = first.get("type") == 5 and first.get("reason") == 4 and live and not bad
sys.exit(0 if ok and len(answers) == len(meths) and not wrong else 1)
PY
}

t_case "unfold FRAMES across start-overs"
emu four --events 2000 --rate 1000 --initial 150 --unload 0 --late-unload 0 \
	--stub-events 0 --seed 14 --inline-info
P4=$EMU_PID
D4=$T/four/out
t_run timeout 30 "$JSYM" exec "$P4" load "$AGENT" true "dir=$D4,flush_ms=20,journal_max=64k,unfold"
t_expect_rc 0
t_wait_log "$T/four/emu.log" 'generator: idle' 60 || t_fail "generator did not finish"
sleep 1
over=$(sed -n 's/.*journal started over.*; \([0-9]*\) times so far.*/\1/p' "$D4/jsym-$P4.log" | tail -1)
t_check "started over several times with unfold: ${over:-0}" [ "${over:-0}" -ge 4 ]
# an address in the inlined range of every live method: the emulator's
# second PC descriptor is at start + size/2 (16-aligned), the range before it
# ends there
python3 - "$T/four/truth" >"$T/four/addrs" <<'PY'
import sys
for l in open(sys.argv[1]):
    s, z, n = l.rstrip("\n").split(" ", 2)
    if "gen." in n:
        print("%x" % (int(s, 16) + (int(z, 16) // 2 & ~0xf)))
PY
t_check "the emulator still runs" kill -0 "$P4"
"$JSYM" resolve --pid "$P4" --dir "$D4" <"$T/four/addrs" >"$T/four/answers"
head -3 "$T/four/answers" | sed 's/^/    /'
t_check "the journal alone has every live LOAD's FRAMES; resolve --pid prints their stacks" \
	frames_kept "$D4/jsym-$P4.journal" "$T/four/truth" "$T/four/answers" ||
	grep -h 'stopping\|stopped' "$D4/jsym-$P4.log" | cut -c1-240 | sed 's/^/    /'
# On a shared machine a `jsym attach --all` of someone else's run also takes
# the emulators: with its own options it restarts the agent elsewhere.
grep -q "attached again with another" "$T"/*/out/jsym-*.log 2>/dev/null &&
	t_log "note: another jsym attached to this scenario's emulators (a concurrent attach --all?)"
kill -TERM "$P4"
t_finish
