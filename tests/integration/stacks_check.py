#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""stacks_check.py - judge whole Java stacks in `perf script` output.

  stacks_check.py summary SCRIPT
      one line: the Java-topped samples, how many reach call_stub, the
      median depth, and the frames of those samples that are unnamed
  stacks_check.py judge SCRIPT BASELINE MIN_PCT MAX_GAP MIN_DEPTH
      SCRIPT (default flags, DWARF unwinding) passes when at least MIN_PCT %
      of its Java-topped samples reach call_stub, no fewer than MAX_GAP
      points below BASELINE's share (the same workload with
      -XX:+PreserveFramePointer, frame pointers), their median depth is at
      least MIN_DEPTH and within 2 frames of BASELINE's, and every frame of
      them down to call_stub is named.  Samples topped by other JIT code
      (stubs, adapters) are counted and printed, not judged.
      Prints the reasons; exit 1 when it fails.

A sample is Java-topped when its first frame is a Java method (a name with
a signature, from a jitted-*.so of `perf inject --jit` or from the perf
map) or the interpreter.  call_stub is the stub through which every Java
thread makes its first Java call (named call_stub_stub from JDK 26 on): a
stack that reaches it was walked
through every Java frame.  Frames below call_stub (libjvm, libc) are
counted in the depth but not judged.
"""
import re
import statistics
import sys

FRAME = re.compile(r'^\s+([0-9a-f]+)\s+(.*?)\s+\((.*)\)\s*$')


def samples(path):
    """Each sample's frames, innermost first, as (symbol, dso) pairs."""
    cur = None
    with open(path, errors='replace') as f:
        for line in f:
            if not line.strip():
                if cur:
                    yield cur
                cur = None
                continue
            if not line[0].isspace():
                cur = []
                continue
            m = FRAME.match(line)
            if m and cur is not None:
                sym = re.sub(r'\+0x[0-9a-f]+$', '', m.group(2))
                cur.append((sym, m.group(3)))
    if cur:
        yield cur


def jit_dso(dso):
    return 'jitted-' in dso or re.search(r'/perf-\d+\.map$', dso) or dso == '[unknown]'


def is_java(sym, dso):
    return bool(jit_dso(dso)) and '(' in sym and sym.endswith(')')


def is_interp(sym):
    return sym.startswith('Interpreter')


# The call stub's name in the map: "call_stub" (JDK 8 to 25), "Stub
# Generator call_stub_stub" (JDK 26, 27), "call_stub_stub (stub gen)" (28).
CALL_STUB = re.compile(r'(^|\s)call_stub(_stub)?($|\s)')


def reaches(s):
    return any(CALL_STUB.search(fs) for fs, _ in s)


def summarize(path):
    tot = reach = jit = jit_reach = 0
    depths = []
    unnamed = {}
    for s in samples(path):
        sym, dso = s[0]
        if jit_dso(dso):
            jit += 1
            jit_reach += reaches(s)
        if not (is_java(sym, dso) or is_interp(sym)):
            continue
        tot += 1
        depths.append(len(s))
        for i, (fs, fd) in enumerate(s):
            if CALL_STUB.search(fs):
                reach += 1
                break
            if fs == '[unknown]' and jit_dso(fd):
                key = '%s <- %s' % (s[i - 1][0] if i else '-', s[i + 1][0] if i + 1 < len(s) else '-')
                unnamed[key] = unnamed.get(key, 0) + 1
    return {
        'jit_topped': jit,
        'jit_reach': jit_reach,
        'java_topped': tot,
        'reach': reach,
        'pct': 100.0 * reach / tot if tot else 0.0,
        'median_depth': statistics.median(depths) if depths else 0,
        'unnamed': unnamed,
    }


def line(label, r):
    return ('%s: %d Java-topped samples, %d reach call_stub (%.1f%%), median depth %g, '
            '%d unnamed frames; all JIT-topped: %d of %d reach call_stub'
            % (label, r['java_topped'], r['reach'], r['pct'], r['median_depth'],
               sum(r['unnamed'].values()), r['jit_reach'], r['jit_topped']))


def main(a):
    if len(a) == 2 and a[0] == 'summary':
        print(line('stacks', summarize(a[1])))
        return 0
    if len(a) != 6 or a[0] != 'judge':
        print(__doc__, file=sys.stderr)
        return 2
    got, base = summarize(a[1]), summarize(a[2])
    min_pct, max_gap, min_depth = float(a[3]), float(a[4]), float(a[5])
    print(line('default flags, --call-graph dwarf', got))
    print(line('-XX:+PreserveFramePointer, -g', base))
    bad = []
    if got['java_topped'] < 100:
        bad.append('only %d Java-topped samples (100 needed to judge)' % got['java_topped'])
    if got['pct'] < min_pct:
        bad.append('%.1f%% reach call_stub, under %g%%' % (got['pct'], min_pct))
    if got['pct'] < base['pct'] - max_gap:
        bad.append('%.1f%% reach call_stub, more than %g points under the flag\'s %.1f%%'
                   % (got['pct'], max_gap, base['pct']))
    if got['median_depth'] < min_depth:
        bad.append('median depth %g, under %g' % (got['median_depth'], min_depth))
    if abs(got['median_depth'] - base['median_depth']) > 2:
        bad.append('median depth %g, more than 2 frames from the flag\'s %g (frames skipped '
                   'or made up)' % (got['median_depth'], base['median_depth']))
    if got['unnamed']:
        top = sorted(got['unnamed'].items(), key=lambda kv: -kv[1])[:5]
        bad.append('unnamed frames: ' + '; '.join('%d x %s' % (n, k) for k, n in top))
    for b in bad:
        print('FAIL: ' + b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
