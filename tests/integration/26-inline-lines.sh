#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 26-inline-lines: whole inline stacks with source lines, on JDK 17 and 25
# of the host (Debian's 17, Temurin 25) and the JDK matrix's others (8,
# 11, 21, 25, 26, 27, 28, in containers).
#
# InlineWork (tests/java) runs with its inlining forced by CompileCommand and
# the JVM's own view printed (PrintInlining), and jsym's agent with `lines`.
# For every inline-chain range of the compiled Outer.run, independently of
# jsym's reader:
#   - every caller -> callee step of the chain is an inlining PrintInlining
#     reports (caller bci and callee), and the caller's bytecode at that bci
#     (javap -c) invokes the callee;
#   - every frame's line is what the class's line table (javap -l) gives for
#     its bci;
#   - a chain Inner.step <- Middle.call <- Outer.run exists;
# then `jsym resolve --pid` prints, under each such address, exactly that
# stack innermost first (`Class.method (File.java:N) [inlined]` ... the
# compiled method last), --json gives the same frames, and the example
# program linked against libjsym-lookup.so (docs/examples) prints the same
# frame lines through the public API.
set -u
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/integration/agent_lib.bash"
ag_init
JSYM=$JSYM_BUILD/jsym
EXAMPLE=$JSYM_BUILD/examples/jsym-lookup-example
[ -x "$JSYM" ] && [ -x "$EXAMPLE" ] || t_skip "jsym or the lookup example not built (run make)"

# check_chains JOURNAL JAVAP PRINTINLINING ADDRS EXPECT: the verdict on the
# journal's chains; writes the addresses to ask and the stacks to expect.
check_chains() {
	python3 - "$@" <<'PY'
import os, re, sys
sys.path.insert(0, os.environ['JSYM_ROOT'] + '/tests/integration')
from agent_check import read_journal
journal, javap, pi, out_addrs, out_expect = sys.argv[1:6]

# javap -c -l: per method, bci -> invoked "Class.method" and the line table
code, lines, cur = {}, {}, None
for l in open(javap):
    m = re.match(r'^[\w ]*class ([\w$.]+).*\{$', l)
    if m:
        cls = m.group(1)
        continue
    m = re.match(r'^  (?:[\w\[\]$.<>]+ )*([\w$<>]+)\(.*\);$', l)
    if m:
        cur = (cls, m.group(1))
        code[cur], lines[cur] = {}, []
        continue
    m = re.match(r'^\s+(\d+): invoke\w+\s+#\d+\s+// Method ([\w$/.]+)\.(\w+):', l)
    if m and cur:
        code[cur][int(m.group(1))] = (m.group(2).replace('/', '.'), m.group(3))
    m = re.match(r'^\s+line (\d+): (\d+)$', l)
    if m and cur:
        lines[cur].append((int(m.group(2)), int(m.group(1))))

def line_of(meth, bci):
    best = 0
    for start, line in sorted(lines.get(meth, [])):
        if start <= bci:
            best = line
    return best

# PrintInlining: "@ BCI   Class::method (N bytes)   <reason>", indented by depth
inlined = set()
for l in open(pi, errors='replace'):
    m = re.search(r'@ (\d+)\s+([\w$.]+)::([\w$<>]+) \(\d+ bytes\)\s+(.*)$', l)
    if m and 'inline' in m.group(4) and 'fail' not in m.group(4) and 'too' not in m.group(4):
        inlined.add((int(m.group(1)), m.group(2).replace('/', '.'), m.group(3)))

_, recs = read_journal(journal)
live, chains = {}, {}
for r in recs:
    if r['type'] == 1:
        live[r['id']] = r
    elif r['type'] == 2:
        live.pop(r['id'], None)
    elif r['type'] == 6 and r['id'] in live:
        chains.setdefault(r['id'], []).extend(r['ranges'])
bad, deep, checked = 0, 0, 0
addrs, expect = [], []
for rid, ranges in chains.items():
    load = live[rid]
    if load['cls'] != 'InlineWork$Outer' or load['method'] != 'run':
        continue
    for g in ranges:
        chain = g['chain']
        if len(chain) < 2:
            continue
        checked += 1
        names = [(m['cls'], m['method']) for m, _, _ in chain]
        if names[0] != ('InlineWork$Outer', 'run'):
            print('FAIL: chain not rooted in Outer.run: %r' % names); bad += 1
        for k, (m, bci, line) in enumerate(chain):
            meth = (m['cls'], m['method'])
            if m['file'] != 'InlineWork.java':
                print('FAIL: %r: file %r' % (meth, m['file'])); bad += 1
            # bci -1: JVMTI's method entry (innermost frame only): its first line
            if (bci < 0 and k + 1 < len(chain)) or line != line_of(meth, max(bci, 0)):
                print('FAIL: %r bci %d: line %d, javap says %d' % (meth, bci, line, line_of(meth, max(bci, 0)))); bad += 1
            if k + 1 < len(chain):
                callee = (chain[k + 1][0]['cls'], chain[k + 1][0]['method'])
                if code.get(meth, {}).get(bci) != callee:
                    print('FAIL: %r bci %d does not invoke %r (javap: %r)' % (meth, bci, callee, code.get(meth, {}).get(bci))); bad += 1
                if (bci, callee[0], callee[1]) not in inlined:
                    print('FAIL: PrintInlining has no inlining of %r at bci %d' % (callee, bci)); bad += 1
        if names == [('InlineWork$Outer', 'run'), ('InlineWork$Middle', 'call'), ('InlineWork$Inner', 'step')]:
            deep += 1
        a = load['start'] + g['off'] + g['size'] // 2
        addrs.append('%x' % a)
        stack = []
        for k, (m, bci, line) in enumerate(reversed(chain)):
            stack.append('    %s.%s (%s:%d)%s' % (m['cls'], m['method'], m['file'], line,
                                                 ' [inlined]' if k + 1 < len(chain) else ''))
        expect.append('\n'.join(stack))
open(out_addrs, 'w').write('\n'.join(addrs) + '\n')
open(out_expect, 'w').write('\n'.join(expect) + '\n')
print('%d inlined ranges of Outer.run checked against javap and PrintInlining, %d Inner<-Middle<-Outer, '
      '%d mismatches; PrintInlining: %d inlinings' % (checked, deep, bad, len(inlined)))
sys.exit(1 if bad or deep == 0 or checked < 3 else 0)
PY
}

# frames_of OUTPUT: the frame lines of each answer, answers joined in order
frames_of() {
	awk '/^    / {print; next} {if (NR > 1) print "--"}' "$1" | grep -v '^--$'
}

# The library other programs link: only the public API, all at JSYM_LOOKUP_1.0.
t_case "library"
for b in "$JSYM_BUILD" "${JSYM_MUSL_BUILD:-$JSYM_ROOT/musl-build}"; do
	so=$b/libjsym-lookup.so.1
	[ -f "$so" ] || continue
	exports=$(readelf --dyn-syms -W "$so" | awk '$7 != "UND" && $5 != "LOCAL" && $8 ~ /^[a-z]/ {print $8}' | sort)
	t_eq "$(echo "$exports" | tr '\n' ' ')" "$(printf '%s@@JSYM_LOOKUP_1.0 ' jsym_lookup_close \
		jsym_lookup_error jsym_lookup_open_files jsym_lookup_open_pid jsym_lookup_refresh \
		jsym_lookup_resolve jsym_lookup_resolve_at jsym_lookup_set_time jsym_lookup_version)" \
		"$so exports exactly the nine jsym_lookup_* at JSYM_LOOKUP_1.0"
	t_check "$so: soname libjsym-lookup.so.1" \
		bash -c "readelf -d '$so' | grep -q 'SONAME.*\[libjsym-lookup.so.1\]'"
	t_check "$b: header, .pc and example exist" test -f "$b/include/jsym/lookup.h" -a \
		-f "$b/jsym-lookup.pc" -a -x "$b/examples/jsym-lookup-example"
done

# one_jdk LABEL JAVAC_RELEASE [ct ROOTFS HOME | host HOME]: InlineWork with
# the agent's `lines`, on a JVM of the host or in a kit container (PID 1)
# of the JDK matrix's root; javac and javap are the host's JDK 17.
one_jdk() {
	local major=$1 release=$2 where=$3 cls d p journal out rc dir=
	shift 3
	t_case "jdk$major"
	cls=$AG_TMP/cls$major
	mkdir -p "$cls"
	"$KIT_HOST_JDK/bin/javac" --release "$release" -d "$cls" "$JSYM_ROOT/tests/java/InlineWork.java" ||
		t_abort "javac $major"
	(cd "$cls" && "$KIT_HOST_JDK/bin/javap" -c -l -p 'InlineWork$Outer' 'InlineWork$Middle' \
		'InlineWork$Inner') >"$AG_TMP/javap$major" || t_abort "javap $major"
	local jvm=(-XX:+UnlockDiagnosticVMOptions -XX:+PrintInlining -XX:+DebugNonSafepoints
		'-XX:CompileCommand=inline,InlineWork$Middle::call'
		'-XX:CompileCommand=inline,InlineWork$Inner::step'
		'-XX:CompileCommand=dontinline,InlineWork$Outer::run')
	if [ "$where" = host ]; then
		d=$AG_TMP/out$major
		mkdir -p "$d"
		dir=$d
		ag_start "w$major" "$1" "-agentpath:$AG_LIB=dir=$d,lines" "${jvm[@]}" -cp "$cls" -- InlineWork 0
		p=$AG_PID
		journal=$d/jsym-$p.journal
		out=$AG_TMP/w$major.out
	else
		p=$(kit_start "w$major" "$1" --bind "$cls:/opt/cls:ro" --bind "$JSYM_BUILD:$JSYM_BUILD:ro" \
			-- "$2/bin/java" "-agentpath:$AG_LIB=lines" "${jvm[@]}" -cp /opt/cls InlineWork 0) ||
			t_abort "kit_start w$major"
		journal=/proc/$p/root/tmp/jsym-1.journal
		out=$KIT_DIR/w$major.log
	fi
	sleep 5 # C1 then C2 compile Outer.run
	t_check "journal written" test -s "$journal"
	cp "$journal" "$AG_TMP/j$major"
	check_chains "$AG_TMP/j$major" "$AG_TMP/javap$major" "$out" \
		"$AG_TMP/addrs$major" "$AG_TMP/expect$major" >"$AG_TMP/verdict$major"
	rc=$?
	cat "$AG_TMP/verdict$major"
	t_check "chains and lines agree with javap and PrintInlining" [ $rc = 0 ]
	# jsym resolve --pid: the stacks, innermost first (a container's files
	# are found in its /tmp, from the host)
	local args=(--pid "$p")
	[ -n "$dir" ] && args+=(--dir "$dir")
	"$JSYM" resolve "${args[@]}" <"$AG_TMP/addrs$major" >"$AG_TMP/res$major"
	frames_of "$AG_TMP/res$major" >"$AG_TMP/resf$major"
	t_check "jsym resolve prints each stack innermost first with file:line" \
		diff -u "$AG_TMP/expect$major" "$AG_TMP/resf$major"
	echo "    e.g.: $(head -1 "$AG_TMP/addrs$major")"
	"$JSYM" resolve "${args[@]}" "$(grep -m1 . "$AG_TMP/addrs$major")" | sed 's/^/    /'
	# --json: the same frames
	"$JSYM" resolve "${args[@]}" --json <"$AG_TMP/addrs$major" >"$AG_TMP/json$major"
	t_check "--json frames: the same stacks, inlined flags, lines and bcis" python3 - \
		"$AG_TMP/json$major" "$AG_TMP/expect$major" <<'PY'
import json, sys
got = []
for l in open(sys.argv[1]):
    j = json.loads(l)
    fr = j['frames']
    assert [f['inlined'] for f in fr] == [True] * (len(fr) - 1) + [False], fr
    assert all(f['bci'] >= 0 for f in fr[1:]), fr  # only the innermost may be at its entry
    got.append('\n'.join('    %s.%s (%s:%d)%s' % (f['class'], f['method'], f['file'], f['line'],
                         ' [inlined]' if f['inlined'] else '') for f in fr))
assert '\n'.join(got) + '\n' == open(sys.argv[2]).read()
PY
	# the public API, from a program outside jsym
	xargs "$EXAMPLE" "${args[@]}" <"$AG_TMP/addrs$major" >"$AG_TMP/ex$major"
	frames_of "$AG_TMP/ex$major" >"$AG_TMP/exf$major"
	t_check "libjsym-lookup.so (docs/examples) gives the same stacks" \
		diff -u "$AG_TMP/expect$major" "$AG_TMP/exf$major"
	if [ "$where" = host ]; then kill "$p" 2>/dev/null; else kit_stop "w$major"; fi
	t_matrix "$major" inline "$(t_case_result)"
}

found=0
while read -r home major <&3; do
	case $major in 17 | 25) ;; *) continue ;; esac
	found=$((found + 1))
	label=$major
	[[ $home == *temurin* ]] && label=$major-temurin
	one_jdk "$label" 17 host "$home"
done 3< <(t_jdks)
# The matrix's other JDKs (Debian's, in containers: their glibc is newer
# than the host's); 17 ran on the host above, the host's 25 is Temurin
if [ "$(id -u)" = 0 ]; then
	rootfs=$(kit_rootfs jdks)
	while read -r major home _ <&3; do
		case $major in 17) continue ;; esac
		found=$((found + 1))
		one_jdk "$major" "$((major < 17 ? major : 17))" ct "$rootfs" "$home"
	done 3<"$rootfs/.jsym-jdks"
else
	t_log "not root: the matrix's JDK 11 and 21 need containers"
fi
[ "$found" -gt 0 ] || t_skip "needs JDK 17 or 25 with javac and javap under /usr/lib/jvm, or root"
t_finish
