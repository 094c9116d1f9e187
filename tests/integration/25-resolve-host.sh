#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 25-resolve-host.sh - `jsym resolve` names JIT addresses of a live JDK 17
# exactly as the agent's perf map does.
#
# A JVM runs AgentBusy with -agentpath:libjsym-agent.so=dir=DIR.  From two map
# snapshots a second apart we keep the lines present in both (code that was
# neither unloaded nor replaced meanwhile) and ask `jsym resolve --pid` (which
# reads the journal through /proc/PID/root) for the first, middle and last
# byte of each, plus the byte after each range where no range covers it
# (must be ??), plus a low address no code can be at.  Also: the perf-map
# fallback, --journal/--map offline modes, --json, the stdin filter, errors;
# every answer for a copy of the journal (with inlined ranges) against an
# independent reading of it; after the JVM exits, --at.

# resolve_verdict MAP1 MAP2 ANSWERS MODE [MIN_CHECKED]: judge the resolver's
# answers (ANSWERS: its text output) against two map snapshots.  Also used by
# 25-resolve-container.sh as `bash 25-resolve-host.sh verdict ARGS...`
# (and resolve_addrs below as `... addrs MAP`).
resolve_verdict() {
	python3 - "$@" <<'EOF'
import sys
m1, m2, out, mode = sys.argv[1:5]
min_checked = int(sys.argv[5]) if len(sys.argv) > 5 else 150

def load(path):
    r = []
    for l in open(path, encoding='utf-8', errors='replace'):
        if not l.endswith('\n'):
            break
        a, s, name = l.rstrip('\n').split(' ', 2)
        r.append((int(a, 16), int(s, 16), name))
    return r

def owner(lines, addr):  # later line wins
    w = None
    for a, s, n in lines:
        if a <= addr < a + s:
            w = n
    return w

l1, l2 = load(m1), load(m2)
stable = set(l1) & set(l2)
answers = []
for line in open(out, encoding='utf-8', errors='replace'):
    if line.startswith('    '):
        continue  # a frame of the inline stack under its address
    addr, rest = line.rstrip('\n').split('  ', 1)
    answers.append((int(addr, 16), rest))
checked = mism = unres = 0
for addr, rest in answers:
    if addr == 0x10:
        if rest != '??':
            print('FAIL: 0x10 resolved to %r' % rest); mism += 1
        continue
    e1, e2 = owner(l1, addr), owner(l2, addr)
    if e1 != e2:
        continue  # changed between the snapshots: no verdict
    if e1 is None:
        if rest != '??':
            print('FAIL: %x is in no map range but resolved to %r' % (addr, rest)); mism += 1
        unres += 1
        continue
    a, s, n = next(((a, s, n) for a, s, n in reversed(l1) if a <= addr < a + s))
    if (a, s, n) not in stable:
        continue
    want = '%s+0x%x  [' % (n, addr - a)
    checked += 1
    if not rest.startswith(want) or ('0x%x+0x%x]' % (a, s)) not in rest:
        mism += 1
        if mism < 10:
            print('FAIL: %x: map says %r, resolve says %r' % (addr, want, rest))
print('%s: %d answers, %d checked against stable map lines, %d uncovered, %d mismatches, '
      '%d stable of %d lines' % (mode, len(answers), checked, unres, mism, len(stable), len(l1)))
sys.exit(1 if mism or checked < min_checked or len(stable) < 0.8 * len(l1) else 0)
EOF
}
# resolve_addrs MAP: the first, middle and last byte of every complete line
# of MAP and the byte after it, one line per map line; then 10 (no code there).
resolve_addrs() {
	python3 - "$1" <<'EOF'
import sys
for l in open(sys.argv[1], encoding='utf-8', errors='replace'):
    if not l.endswith('\n'):
        break
    a, s = (int(x, 16) for x in l.split(' ', 2)[:2])
    print('%x 0x%x %x %x' % (a, a + s // 2, a + s - 1, a + s))
print('10')
EOF
}
# journal_oracle JOURNAL ADDRS_OUT EXPECT_OUT [UNTIL_NS]: read JOURNAL
# independently of jsym (through agent_check.py's parser), write addresses to
# ask (edges of every live range, first/middle/last byte of every inlined
# range) and the answer `jsym resolve --journal` must print for each.
journal_oracle() {
	python3 - "$@" <<'EOF'
import os, sys
out_addrs, out_expect = sys.argv[2], sys.argv[3]
until = int(sys.argv[4]) if len(sys.argv) > 4 else 0
journal = sys.argv[1]
# the agent tests' own journal checks on our copy, then their parser
sys.path.insert(0, os.environ['JSYM_ROOT'] + '/tests/integration')
from agent_check import check_journal, read_journal
check_journal(journal)
_, recs = read_journal(journal)
live, by_start, inl, chains = {}, {}, {}, {}
for r in recs:
    if until and r['ts'] > until:
        break  # like lookup_set_until: the first later record stops the reading
    if r['type'] in (1, 3):
        old = by_start.get(r['start'])
        if old in live:
            del live[old]  # a new range at the same start supersedes
        live[r['id']] = r
        by_start[r['start']] = r['id']
        inl[r['id']] = []
    elif r['type'] == 2:
        live.pop(r['id'], None)
    elif r['type'] == 4 and r['id'] in live:
        inl[r['id']].append(r)
    elif r['type'] == 6 and r['id'] in live and live[r['id']]['start'] == r['start']:
        for g in r['ranges']:
            chains.setdefault(r['id'], []).append(
                (r['start'] + g['off'], r['start'] + g['off'] + g['size'], g['chain']))
addrs = set()
for r in live.values():
    addrs.update((r['start'], r['start'] + r['size'] - 1, r['start'] + r['size']))
    for i in inl[r['id']]:
        addrs.update((i['start'], i['start'] + i['size'] // 2, i['start'] + i['size'] - 1))
    for cs, ce, _ in chains.get(r['id'], []):
        addrs.update((cs, (cs + ce) // 2, ce - 1))
addrs = sorted(addrs)

def stack(rid, a):
    """The frame lines jsym prints under an address: the chain of the range
    with the last start <= a (ranges sorted by start), innermost first."""
    hold = None
    for cs, ce, chain in sorted(chains.get(rid, []), key=lambda c: c[0]):
        if cs <= a:
            hold = (cs, ce, chain)
    if not hold or a >= hold[1]:
        return ''
    out = []
    for k, (m, bci, line) in enumerate(reversed(hold[2])):
        t = '    %s.%s' % (m['cls'], m['method'])
        if m['file'] or line:
            t += ' (%s%s)' % (m['file'] or '?', ':%d' % line if line else '')
        out.append(t + (' [inlined]' if k + 1 < len(hold[2]) else '') + '\n')
    return ''.join(out)
ents = sorted(live.values(), key=lambda r: r['start'])
with open(out_addrs, 'w') as fa, open(out_expect, 'w') as fe:
    for a in addrs:
        best = None
        for r in ents:
            if r['start'] > a:
                break
            if a < r['start'] + r['size'] and (best is None or r['id'] > best['id']):
                best = r
        fa.write('%x\n' % a)
        if best is None:
            fe.write('0x%x  ??\n' % a)
            continue
        line = '0x%x  %s+0x%x  [' % (a, best['name'], a - best['start'])
        if best['type'] == 1:
            line += 'class %s, method %s, sig %s, ' % (best['cls'], best['method'], best['sig'])
        else:
            line += 'stub, '
        line += '0x%x+0x%x]' % (best['start'], best['size'])
        chain = sorted((i for i in inl[best['id']] if i['start'] <= a < i['start'] + i['size']),
                       key=lambda i: i['size'])
        if chain:
            line += '  inlined: ' + ' < '.join(i['name'] for i in chain)
        fe.write(line + '\n' + stack(best['id'], a))
print('journal: %d live ranges, %d inlined ranges of live methods, %d addresses'
      % (len(live), sum(len(inl[i]) for i in live), len(addrs)))
EOF
}
case ${1:-} in
verdict | addrs)
	mode=$1
	shift
	"resolve_$mode" "$@"
	exit
	;;
esac

source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/integration/agent_lib.bash"
ag_init
JSYM=$JSYM_BUILD/jsym
[ -x "$JSYM" ] || t_skip "jsym not built: $JSYM (run make)"
"$JSYM" resolve --help >/dev/null 2>&1 || t_skip "this jsym has no resolve (attach/lookup/lookup.mk not linked)"
home=/usr/lib/jvm/java-17-openjdk-amd64
[ -x "$home/bin/java" ] || t_skip "needs JDK 17 (apt-get install openjdk-17-jdk-headless)"
cls=$(ag_classes)
d=$AG_TMP/agentdir
mkdir -p "$d"

ag_start busy "$home" "-agentpath:$AG_LIB=dir=$d,unfold" -XX:+UnlockDiagnosticVMOptions \
	-XX:+DebugNonSafepoints -cp "$cls" -- AgentBusy 300
p=$AG_PID
ag_wait_out busy "agent-busy: started" 60 || exit 1
sleep 2
map=$d/perf-$p.map
journal=$d/jsym-$p.journal
t_check "agent wrote map and journal" bash -c "[ -s '$map' ] && [ -s '$journal' ]"
cp "$map" "$AG_TMP/m1"
sleep 0.4 # the journal is flushed with the map; give the flush thread a period

resolve_addrs "$AG_TMP/m1" >"$AG_TMP/addrs" || exit 1
"$JSYM" resolve --pid "$p" --dir "$d" -v <"$AG_TMP/addrs" >"$AG_TMP/out" 2>"$AG_TMP/err"
rc=$?
cat "$AG_TMP/err"
t_check "jsym resolve --pid ran (exit 0)" [ $rc = 0 ]
cp "$map" "$AG_TMP/m2"

compare() { # MODE OUTFILE
	resolve_verdict "$AG_TMP/m1" "$AG_TMP/m2" "$2" "$1"
}
t_check "journal (--pid): first, middle, last byte of every stable map range; ?? outside" \
	compare pid "$AG_TMP/out"
t_check "-v names the journal it used" grep -q "jsym-$p.journal: [0-9]* records" "$AG_TMP/err"
t_check "answered every address, one line each (and frame lines under it)" \
	[ "$(grep -vc '^    ' "$AG_TMP/out")" = "$(wc -w <"$AG_TMP/addrs")" ]
t_check "a Java method is named with class, method and signature" \
	grep -qE '  long AgentBusy\.heavyCompute\(int\)\+0x[0-9a-f]+  \[class AgentBusy, method heavyCompute, sig \(I\)J, 0x' "$AG_TMP/out"

# The journal itself, with inlined ranges (unfold): a copy does not change
# under us, so every answer can be judged by reading the copy independently.
cp "$journal" "$AG_TMP/j.copy"
journal_oracle "$AG_TMP/j.copy" "$AG_TMP/addrs-j" "$AG_TMP/expect-j" || exit 1
"$JSYM" resolve --journal "$AG_TMP/j.copy" <"$AG_TMP/addrs-j" >"$AG_TMP/out-jc"
t_check "--journal: every answer equals an independent reading of the journal" \
	diff -u "$AG_TMP/expect-j" "$AG_TMP/out-jc"
n=$(grep -c ' \[inlined\]$' "$AG_TMP/out-jc")
echo "    answers inside inlined methods: $n"
t_check "unfold: addresses inside inlined methods are named with them" [ "$n" -gt 20 ]

# Offline modes give the same answers.
"$JSYM" resolve --journal "$journal" <"$AG_TMP/addrs" >"$AG_TMP/out-j" 2>&1
t_check "--journal FILE: same checks" compare journal "$AG_TMP/out-j"
"$JSYM" resolve --map "$AG_TMP/m2" <"$AG_TMP/addrs" >"$AG_TMP/out-m" 2>&1
t_check "--map FILE: same checks" compare map "$AG_TMP/out-m"

# Fallback to the perf map when there is no journal.
fb=$AG_TMP/fb
mkdir -p "$fb"
cp "$AG_TMP/m2" "$fb/perf-$p.map"
"$JSYM" resolve --pid "$p" --dir "$fb" -v <"$AG_TMP/addrs" >"$AG_TMP/out-fb" 2>"$AG_TMP/err-fb"
t_check "no journal: falls back to perf-<pid>.map" compare fallback "$AG_TMP/out-fb"
t_check "-v says it fell back" grep -q "no journal, using the perf map" "$AG_TMP/err-fb"

# JSON: one valid object per address.
head -40 "$AG_TMP/addrs" | "$JSYM" resolve --pid "$p" --dir "$d" --json >"$AG_TMP/out-json"
t_check "--json: one JSON object per address, names as in the text output" python3 - \
	"$AG_TMP/out-json" "$AG_TMP/out" "$(head -40 "$AG_TMP/addrs" | wc -w)" <<'EOF'
import json, sys
js = [json.loads(l) for l in open(sys.argv[1])]
txt = [l for l in open(sys.argv[2]).read().splitlines() if not l.startswith('    ')][:len(js)]
assert len(js) == int(sys.argv[3]), (len(js), sys.argv[3])
for j, t in zip(js, txt):
    assert int(j['addr'], 16) == int(t.split()[0], 16)
    if j['resolved']:
        assert t.split('  ')[1] == '%s+%s' % (j['name'], j['offset']), (j, t)
    else:
        assert t.endswith('  ??'), t
EOF

# As a pipe filter: each line answered before the next is written.
first=$(head -1 "$AG_TMP/addrs" | cut -d' ' -f1)
coproc R { "$JSYM" resolve --pid "$p" --dir "$d" --follow; }
rpid=$R_PID # bash unsets R_PID once the coprocess has ended
echo "$first" >&"${R[1]}"
IFS= read -r -t 10 ans <&"${R[0]}"
echo "    filter answered: $ans"
t_check "stdin filter answers a line at once (--follow)" [ "${ans%%  *}" = "0x$first" ]
exec {R[1]}>&-
wait "$rpid"
t_check "filter exits 0 at end of input" [ $? = 0 ]

# Errors name the path and the remedy, exit 2; usage errors exit 1.
"$JSYM" resolve --pid "$p" 10 >/dev/null 2>"$AG_TMP/err-none"
rc=$?
cat "$AG_TMP/err-none"
t_check "no files in /tmp: exit 2" [ $rc = 2 ]
t_check "no files: message names the path and the fix" \
	grep -q "no symbol files for JVM $p in /proc/$p/root/tmp.*attach the agent first" "$AG_TMP/err-none"
"$JSYM" resolve 10 >/dev/null 2>&1
t_check "no --pid/--journal/--map: exit 1" [ $? = 1 ]
"$JSYM" resolve --help | grep -q '^Usage: jsym resolve'
t_check "--help: usage on stdout, exit 0" [ "${PIPESTATUS[0]}" = 0 ]
t_check "JVM still alive" kill -0 "$p"

# After the JVM exits the agent closes every range: resolving then needs --at.
until=$(python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))')
sleep 0.3
kill -TERM "$p"
for i in $(seq 1 100); do
	kill -0 "$p" 2>/dev/null || break
	sleep 0.1
done
t_check "JVM exited" bash -c "! kill -0 $p 2>/dev/null"
"$JSYM" resolve --journal "$journal" <"$AG_TMP/addrs-j" >"$AG_TMP/out-x" 2>"$AG_TMP/err-x"
cat "$AG_TMP/err-x"
t_check "after exit: every answer ?? and a hint to use --at" \
	bash -c "! grep -qv '  ??\$' '$AG_TMP/out-x' && grep -q 'give --at SECONDS' '$AG_TMP/err-x'"
journal_oracle "$journal" "$AG_TMP/addrs-at" "$AG_TMP/expect-at" "$until" || exit 1
at=$(printf '%d.%09d' $((until / 1000000000)) $((until % 1000000000)))
"$JSYM" resolve --journal "$journal" --at "$at" <"$AG_TMP/addrs-at" >"$AG_TMP/out-at"
t_check "after exit, --at $at: the code as it was then" diff -u "$AG_TMP/expect-at" "$AG_TMP/out-at"
t_finish
