#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""matrix_check.py - the JDK matrix's comparisons (74-map-jdk-matrix.sh).

  matrix_check.py same A B MIN_PCT [B0]
      the Java methods of map A are in map B (or in B0, a snapshot of the
      same map taken before A: what was unloaded between A and B) with the
      same start, size and name (MethodHandle intrinsics: same start and
      size; the agent names them all alike, docs/perf-map.md)
  matrix_check.py codelist CODELIST MAP MIN_PCT
      every live method of `jcmd Compiler.codelist` (JDK 9+) is in MAP with
      its start and size (code_begin..code_end)
  matrix_check.py logcomp LOG MAP MIN_PCT
      JDK 8: every Java method of MAP that -XX:+LogCompilation logged as an
      nmethod starts at its instructions and ends after its stubs, at or
      before its data (LogCompilation gives no code_end: the stubs end
      between stub_offset and the first data section)
Prints one line of figures; exit 0 = ok, 1 = below MIN_PCT (why on stderr).
"""
import html
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import map_check  # noqa: E402  (the one perf-map line reader)

JAVA = re.compile(r'^\S+ \S+\.[^ .(]+\(.*\)$')
INTRINSIC = 'java.lang.invoke.MethodHandle.<linkTo*/invokeBasic intrinsic>'
CODELIST = re.compile(r'^(\d+) (-?\d+) (\d+) (.+) \[0x([0-9a-f]+), 0x([0-9a-f]+) - 0x([0-9a-f]+)\]$')
DATA = ('oops_offset', 'metadata_offset', 'scopes_data_offset', 'scopes_pcs_offset',
        'dependencies_offset', 'handler_table_offset', 'nul_chk_table_offset')


def read_map(path):
    """MAP as {start: (size, name)}, parsed by map_check.py's reader."""
    return {s: (z, n) for s, z, n, _ in map_check.read(path)}


def verdict(what, hit, total, min_pct, bad):
    pct = 100.0 * hit / total if total else 0.0
    print('%s: %d of %d (%.2f%%)' % (what, hit, total, pct))
    for b in bad[:5]:
        print('  ' + b, file=sys.stderr)
    if total == 0 or pct < min_pct:
        print('FAIL: %.2f%% below %.2f%%' % (pct, min_pct), file=sys.stderr)
        sys.exit(1)


def same(a, b, min_pct, b0=None):
    ma, mb = read_map(a), read_map(b)
    if b0:
        for k, v in read_map(b0).items():
            mb.setdefault(k, v)
    total = hit = 0
    bad = []
    for s, (z, n) in ma.items():
        if not (JAVA.match(n) or n == INTRINSIC):
            continue
        total += 1
        o = mb.get(s)
        if o and o[0] == z and (o[1] == n or n == INTRINSIC or o[1] == INTRINSIC):
            hit += 1
        else:
            bad.append('%x %x %s | %s' % (s, z, n, o))
    verdict('Java methods with the same start, size and name', hit, total, min_pct, bad)


def codelist(path, mapfile, min_pct):
    m = read_map(mapfile)
    total = hit = 0
    bad = []
    for line in open(path, encoding='utf-8', errors='replace'):
        c = CODELIST.match(line.strip())
        if not c or int(c.group(3)) >= 3:       # zombie or unloaded: not live code
            continue
        begin, end = int(c.group(6), 16), int(c.group(7), 16)
        total += 1
        if m.get(begin, (None,))[0] == end - begin:
            hit += 1
        else:
            bad.append('codelist %x %x %s | map %s' % (begin, end - begin, c.group(4), m.get(begin)))
    verdict('codelist methods at the same start with the same size', hit, total, min_pct, bad)


def logcomp(path, mapfile, min_pct):
    m = read_map(mapfile)
    logged = {}
    for line in open(path, encoding='utf-8', errors='replace'):
        if not line.startswith('<nmethod ') or not line.rstrip().endswith('/>'):
            continue
        a = dict(re.findall(r"(\w+)='([^']*)'", line))
        if 'address' not in a or 'insts_offset' not in a or 'stub_offset' not in a:
            continue            # native wrappers have no stubs
        base = int(a['address'], 16)
        data = [int(a[k]) for k in DATA if k in a]
        logged[base + int(a['insts_offset'])] = (base + int(a['stub_offset']),
                                                 base + min(data) if data else base + int(a['size']),
                                                 html.unescape(a.get('method', '?')))
    total = hit = 0
    bad = []
    for s, (z, n) in m.items():
        if not JAVA.match(n) or s not in logged:
            continue
        stubs, data, meth = logged[s]
        total += 1
        if stubs < s + z <= data:
            hit += 1
        else:
            bad.append('%x %x %s | stubs at %x, data at %x (%s)' % (s, z, n, stubs, data, meth))
    verdict('logged nmethods whose range covers instructions and stubs', hit, total, min_pct, bad)


def main(a):
    if len(a) == 5 and a[0] == 'same':
        same(a[1], a[2], float(a[3]), a[4])
    elif len(a) == 4 and a[0] in ('same', 'codelist', 'logcomp'):
        {'same': same, 'codelist': codelist, 'logcomp': logcomp}[a[0]](a[1], a[2], float(a[3]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == '__main__':
    main(sys.argv[1:])
