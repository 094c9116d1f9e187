#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 27-stacks-folded: `jsym stacks` folds perf's samples of a JVM with the
# inline stacks of its journal (issue 32's folded output).
#
# tests/java/InlineWork.java runs on the host's JDK 17 with the JDK's
# DEFAULT flags (C2 inlines Middle.call and Inner.step into Outer.run by
# itself) and the agent from its start (-agentpath:...=dir=D,jitdump,lines;
# code compiled before a later `jsym attach` has inline stacks only at
# calls and safepoints, which the hot loop's samples miss), then the
# documented pipeline (docs/cli.md, "jsym stacks"):
#   perf record -k mono -F 499 --call-graph dwarf,16384 -p PID -- sleep 4
#   perf inject --jit
#   perf script --no-inline | jsym stacks --pid PID --dir D [--lines]
# Checks, independently of jsym's reader where they can be:
#   - the counts of the folded lines add up to the samples perf script
#     printed (its header lines), with and without --lines;
#   - an InlineWork inlined method is a frame of its own, marked _[i],
#     right under its caller (Outer.run;Middle.call_[i]);
#   - for one sample topped by Outer.run in a jitted-PID-ID.so, its
#     absolute address (the journal's LOAD ID start, read by
#     agent_check.py, + perf's +0xOFF) given to `jsym resolve --pid`
#     prints the same stack, innermost first, with the same lines, as the
#     folded line of that one sample ends with.
set -u
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/integration/agent_lib.bash"
t_need_root "perf on a JVM with dwarf callchains, jsym attach"
command -v perf >/dev/null || t_skip "needs perf (linux-perf)"
ag_init
JSYM=$JSYM_BUILD/jsym
[ -x "$JSYM" ] || t_skip "jsym not built (make)"
home=$(t_jdks | awk '$2 == 17 {print $1; exit}')
[ -n "$home" ] && [ -x "$home/bin/javac" ] || t_skip "needs the host's JDK 17 with javac"

t_case "fold"
cls=$AG_TMP/cls
d=$AG_TMP/out
mkdir -p "$cls" "$d"
chmod 777 "$d"
"$home/bin/javac" --release 17 -d "$cls" "$JSYM_ROOT/tests/java/InlineWork.java" || t_abort "javac"
ag_start w "$home" "-agentpath:$AG_LIB=dir=$d,jitdump,lines" -cp "$cls" -- InlineWork 0
p=$AG_PID
sleep 5 # C1 then C2 compile Outer.run
journal=$d/jsym-$p.journal
t_check "journal written" test -s "$journal"
timeout 60 perf record -q -k mono -F 499 --call-graph dwarf,16384 -p "$p" -o "$AG_TMP/p.data" \
	-- sleep 4 >"$AG_TMP/record.log" 2>&1
t_check "perf record" test -s "$AG_TMP/p.data"
perf inject --jit -i "$AG_TMP/p.data" -o "$AG_TMP/pj.data" >"$AG_TMP/inject.log" 2>&1
perf script --no-inline -i "$AG_TMP/pj.data" >"$AG_TMP/script.txt" 2>"$AG_TMP/script.err"
samples=$(grep -c '^[^[:space:]]' "$AG_TMP/script.txt")
t_check "perf script printed samples ($samples)" [ "$samples" -gt 100 ]
t_check "jitted DSOs in the callchains" grep -q "jitted-[0-9]*-[0-9]*\.so" "$AG_TMP/script.txt"

"$JSYM" stacks --pid "$p" --dir "$d" -v <"$AG_TMP/script.txt" >"$AG_TMP/folded" 2>"$AG_TMP/stacks.err"
t_check "jsym stacks exits 0" [ $? = 0 ]
sed 's/^/    /' "$AG_TMP/stacks.err"
"$JSYM" stacks --pid "$p" --dir "$d" --lines <"$AG_TMP/script.txt" >"$AG_TMP/folded-lines"
t_check "jsym stacks --lines exits 0" [ $? = 0 ]
for f in folded folded-lines; do
	total=$(awk '{s += $NF} END {print s + 0}' "$AG_TMP/$f")
	t_eq "$total" "$samples" "$f: the counts add up to the samples"
	t_check "$f: every line is STACK COUNT" \
		bash -c "! grep -Ev '^[^ ].* [1-9][0-9]*$' '$AG_TMP/$f'"
done
echo "    the hottest stacks (--lines), leaf-most frames:"
sort -t' ' -k2 -rn "$AG_TMP/folded-lines" | awk '{print $NF, $0}' | sort -rn | head -n 3 |
	awk '{n = split($0, f, ";"); print "      " f[n-2] ";" f[n-1] ";" f[n]}'
t_check "Middle.call is its own frame, inlined, under Outer.run" \
	grep -Eq 'InlineWork\$Outer\.run(_\[i\])?;InlineWork\$Middle\.call_\[i\]' "$AG_TMP/folded"
t_check "Inner.step is its own frame, inlined, under Middle.call" \
	grep -Eq 'InlineWork\$Middle\.call_\[i\];InlineWork\$Inner\.step_\[i\]' "$AG_TMP/folded"

t_case "agrees-with-resolve"
# one sample topped by Outer.run: its address, and the sample alone
cp "$journal" "$AG_TMP/journal"
python3 - "$AG_TMP/script.txt" "$AG_TMP/journal" "$AG_TMP/one.txt" "$AG_TMP/addr" <<'PY'
import os, re, sys
sys.path.insert(0, os.environ['JSYM_ROOT'] + '/tests/integration')
from agent_check import read_journal
script, journal, out_one, out_addr = sys.argv[1:5]
_, recs = read_journal(journal)
start = {r['id']: r['start'] for r in recs if r['type'] == 1}
for block in open(script, errors='replace').read().split('\n\n'):
    lines = block.strip('\n').split('\n')
    if len(lines) < 2:
        continue
    m = re.match(r'^\s+[0-9a-f]+ .*InlineWork\$Outer\.run.*\+0x([0-9a-f]+) \(.*/jitted-\d+-(\d+)\.so\)$', lines[1])
    if m and int(m.group(2)) in start:
        open(out_one, 'w').write(block.strip('\n') + '\n\n')
        open(out_addr, 'w').write('%x\n' % (start[int(m.group(2))] + int(m.group(1), 16)))
        sys.exit(0)
sys.exit(1)
PY
t_check "a sample topped by Outer.run in a jitted DSO, its address from the journal" [ $? = 0 ]
addr=$(cat "$AG_TMP/addr" 2>/dev/null)
"$JSYM" resolve --pid "$p" --dir "$d" "$addr" >"$AG_TMP/resolve"
sed 's/^/    /' "$AG_TMP/resolve"
# resolve's stack, innermost first, as folded frames root first
awk '/^    / {sub(/^    /, ""); inl = sub(/ \[inlined\]$/, ""); n = split($0, w, " ");
	fl = w[2]; gsub(/[()]/, "", fl); f[++k] = w[1] ":" fl (inl ? "_[i]" : "")}
	END {for (i = k; i > 0; i--) printf "%s%s", f[i], (i > 1 ? ";" : "\n")}' \
	"$AG_TMP/resolve" >"$AG_TMP/expect"
"$JSYM" stacks --pid "$p" --dir "$d" --lines <"$AG_TMP/one.txt" >"$AG_TMP/one.folded"
echo "    folded: $(cat "$AG_TMP/one.folded")"
t_check "resolve printed an inline stack for $addr" grep -q '_\[i\]' "$AG_TMP/expect"
t_check "the folded sample ends with resolve's stack ($(cat "$AG_TMP/expect"))" \
	grep -qF ";$(cat "$AG_TMP/expect") 1" "$AG_TMP/one.folded"
t_finish
