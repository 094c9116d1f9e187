#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""matrix_table.py [LOG...] - docs/testing.md's JDK coverage table from the
`matrix: JDK=<n> feature=<f> result=<r>` lines the scenarios print
(default: every glibc-build/test-logs/*.log).  One row per JDK, one column
per feature; a cell is pass, FAIL, skip or '-' (not run); a feature seen
twice for one JDK shows the worse result.
"""
import glob
import re
import sys

LINE = re.compile(r'^matrix: JDK=(\S+) feature=(\S+) result=(pass|fail|skip)(?: reason=.*)?$')
RANK = {'fail': 3, 'pass': 2, 'skip': 1}


def jdk_key(j):
    m = re.match(r'(\d+)(.*)', j)
    return (int(m.group(1)), m.group(2)) if m else (999, j)


def main(paths):
    cells, features = {}, []
    for p in paths or sorted(glob.glob('glibc-build/test-logs/*.log')):
        for line in open(p, encoding='utf-8', errors='replace'):
            m = LINE.match(line.strip())
            if not m:
                continue
            jdk, feat, res = m.groups()
            if feat == 'all':
                continue
            if feat not in features:
                features.append(feat)
            old = cells.get((jdk, feat))
            if old is None or RANK[res] > RANK[old]:
                cells[(jdk, feat)] = res
    jdks = sorted({j for j, _ in cells}, key=jdk_key)
    if not jdks:
        print('matrix_table: no matrix lines found', file=sys.stderr)
        return 1
    show = {'pass': 'pass', 'fail': '**FAIL**', 'skip': 'skip'}
    print('| JDK | ' + ' | '.join(features) + ' |')
    print('|---|' + '---|' * len(features))
    for j in jdks:
        print('| %s | %s |' % (j, ' | '.join(show.get(cells.get((j, f)), '-') for f in features)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
