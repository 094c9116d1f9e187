#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""map_check.py - checks of `jsym map` output (tests/integration/60-map-*.sh).

  map_check.py coverage JDKMAP MAP MIN_PERCENT [AFTER_MAP]
      every Java method of the JDK's Compiler.perfmap snapshot is in MAP with
      the same start, size and name; a method missing from MAP counts only if
      it is also in AFTER_MAP (a jcmd snapshot taken after MAP: what is gone
      from it was unloaded in between, not missed)
  map_check.py stable MAP1 MAP2 MIN_PERCENT
      Java entries of MAP1 still in MAP2 (same start and size) have the same name
  map_check.py codelist CODELIST MAP MIN_PERCENT
      of the live nmethods in jcmd Compiler.codelist's output ("ID LEVEL STATE
      Class.method(sig) [header, code_begin - code_end]"), MIN_PERCENT have a
      MAP entry starting inside their code whose name holds the method's name
      (MethodHandle's linkTo*/invokeBasic intrinsics: any entry, as the agent
      names them generically)
  map_check.py format MAP      lowercase hex without 0x, sorted, no overlaps
  map_check.py absent MAP REGEX   no line of MAP names a method matching REGEX
Exit 0 = ok, 1 = check failed (reason on stderr).
"""
import bisect
import re
import sys

JAVA = re.compile(r'^\S+ \S+\.[^ .(]+\(.*\)$')
LINE = re.compile(r'^(0x)?([0-9a-fA-F]+) (0x)?([0-9a-fA-F]+) (.*)$')


def fail(msg):
    print('FAIL: ' + msg, file=sys.stderr)
    sys.exit(1)


def read(path):
    out = []
    for n, line in enumerate(open(path, encoding='utf-8', errors='replace'), 1):
        m = LINE.match(line.rstrip('\n'))
        if not m:
            fail('%s:%d: not a perf-map line: %r' % (path, n, line))
        out.append((int(m.group(2), 16), int(m.group(4), 16), m.group(5), m.group(0)))
    return out


def coverage(jdkmap, mymap, min_pct, after=None):
    jdk = [e for e in read(jdkmap) if JAVA.match(e[2])]
    mine = {(s, z): n for s, z, n, _ in read(mymap)}
    later = {(s, z) for s, z, n, _ in read(after)} if after else None
    total = hit = same = gone = 0
    missing, differ = [], []
    for s, z, n, _ in jdk:
        if (s, z) in mine:
            total += 1
            hit += 1
            if mine[(s, z)] == n:
                same += 1
            else:
                differ.append('JDK: %s | jsym: %s' % (n, mine[(s, z)]))
        elif later is not None and (s, z) not in later:
            gone += 1
        else:
            total += 1
            missing.append('%x %x %s' % (s, z, n))
    pct = 100.0 * same / total if total else 0.0
    print('coverage: %d of %d Java methods of the JDK map with the same start, size and '
          'name (%.2f%%); %d at the same place under another name, %d unloaded in between'
          % (same, total, pct, hit - same, gone))
    for m in missing[:5]:
        print('  missing: ' + m, file=sys.stderr)
    for d in differ[:5]:
        print('  differs: ' + d, file=sys.stderr)
    if total == 0 or pct < min_pct:
        fail('coverage %.2f%% below %.2f%%' % (pct, min_pct))


def stable(a, b, min_pct):
    first = {(s, z): n for s, z, n, _ in read(a) if JAVA.match(n)}
    second = {(s, z): n for s, z, n, _ in read(b)}
    both = [k for k in first if k in second]
    same = sum(1 for k in both if first[k] == second[k])
    pct = 100.0 * same / len(both) if both else 0.0
    print('stable: %d of %d Java entries kept their name between snapshots (%.2f%%), '
          '%d of %d still live' % (same, len(both), pct, len(both), len(first)))
    if not both or pct < min_pct:
        fail('stable %.2f%% below %.2f%%' % (pct, min_pct))


MH_INTRINSICS = {'java.lang.invoke.MethodHandle.' + n for n in (
    'invokeBasic', 'linkToVirtual', 'linkToStatic', 'linkToSpecial', 'linkToInterface',
    'linkToNative')}
CODELIST = re.compile(r'^(\d+) (-?\d+) (\d+) (\S+) \[0x([0-9a-f]+), 0x([0-9a-f]+) - 0x([0-9a-f]+)\]')


def codelist(listing, mymap, min_pct):
    starts = sorted((s, n) for s, z, n, _ in read(mymap))
    keys = [s for s, _ in starts]
    total = hit = generic = 0
    missing = []
    for line in open(listing, encoding='utf-8', errors='replace'):
        m = CODELIST.match(line.strip())
        if not m or m.group(3) != '0':          # state 0: in use
            continue
        lo, hi = int(m.group(5), 16), int(m.group(7), 16)
        qualified = m.group(4).split('(')[0]
        name = qualified.rsplit('.', 1)[-1]
        total += 1
        i = bisect.bisect_left(keys, lo)
        here = [n for s, n in starts[i:i + 4] if s < hi]
        if any(name in n for n in here):
            hit += 1
        elif here and qualified in MH_INTRINSICS:
            hit += 1                        # one generic name for all signatures
            generic += 1
        else:
            missing.append(line.strip())
    pct = 100.0 * hit / total if total else 0.0
    print('codelist: %d of %d live nmethods have a map entry in their code under their '
          'name (%.2f%%; %d MethodHandle intrinsics under a generic name)'
          % (hit, total, pct, generic))
    for m in missing[:5]:
        print('  missing: ' + m, file=sys.stderr)
    if total == 0 or pct < min_pct:
        fail('codelist coverage %.2f%% below %.2f%%' % (pct, min_pct))


def fmt(path):
    prev_end = 0
    e = read(path)
    for s, z, n, raw in e:
        if raw.startswith('0x') or ' 0x' in raw[:40] or raw.split(' ')[0] != raw.split(' ')[0].lower():
            fail('%s: not lowercase hex without 0x: %r' % (path, raw))
        if s < prev_end:
            fail('%s: %x overlaps the line before' % (path, s))
        prev_end = s + z
    java = sum(1 for x in e if JAVA.match(x[2]))
    print('format ok: %d lines, %d Java methods, sorted, no overlaps' % (len(e), java))


def absent(path, regex):
    r = re.compile(regex)
    bad = [x[3] for x in read(path) if r.search(x[2])]
    for b in bad[:5]:
        print('  stale: ' + b, file=sys.stderr)
    if bad:
        fail('%d lines of %s match %s' % (len(bad), path, regex))
    print('absent: no line matches %s' % regex)


def main(a):
    if len(a) >= 4 and a[0] == 'coverage':
        coverage(a[1], a[2], float(a[3]), a[4] if len(a) > 4 else None)
    elif len(a) == 4 and a[0] == 'stable':
        stable(a[1], a[2], float(a[3]))
    elif len(a) == 4 and a[0] == 'codelist':
        codelist(a[1], a[2], float(a[3]))
    elif len(a) == 2 and a[0] == 'format':
        fmt(a[1])
    elif len(a) == 3 and a[0] == 'absent':
        absent(a[1], a[2])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == '__main__':
    main(sys.argv[1:])
