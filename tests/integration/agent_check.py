#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""agent_check.py - checks used by tests/integration/20-agent-*.sh.

  agent_check.py journal FILE            validate a journal, print a summary
  agent_check.py map FILE                validate a perf map (format, no dups)
  agent_check.py coverage JDKMAP MAP JOURNAL MIN_PERCENT
                                         every Java method of the JDK's map
                                         that is still live is in MAP with the
                                         same start and size
  agent_check.py unloaded MAP JOURNAL NAME  no live line names NAME; every LOAD
                                         of NAME in the journal has its UNLOAD
Exit 0 = ok, 1 = check failed (reason on stderr).
"""
import re
import struct
import sys

JAVA_LINE = re.compile(r'^\S+ \S+\.[^ .(]+\(.*\)$')


def fail(msg):
    print('FAIL: ' + msg, file=sys.stderr)
    sys.exit(1)


def read_journal(path):
    data = open(path, 'rb').read()
    if len(data) < 64 or data[:8] != b'JSYMJRN1':
        fail('%s: bad header' % path)
    ver, hsize, flags, pid = struct.unpack_from('<HHII', data, 8)
    if ver != 1 or hsize != 64 or flags != 0:
        fail('%s: header version %d size %d flags %d' % (path, ver, hsize, flags))
    recs = []
    off = hsize
    while off + 16 <= len(data):
        typ, rflags, size, ts = struct.unpack_from('<HHIQ', data, off)
        if size < 16 or size % 8 or rflags:
            fail('%s: bad record at %d: type %d size %d' % (path, off, typ, size))
        if off + size > len(data):
            break  # still being written
        body = data[off + 16:off + size]
        rec = {'type': typ, 'ts': ts, 'off': off}
        if typ in (1, 4):
            rid, start, csize, cl, ml, sl, nl = struct.unpack_from('<QQQHHHH', body)
            s = body[32:]
            rec.update(id=rid, start=start, size=csize,
                       cls=s[:cl].decode(), method=s[cl:cl + ml].decode(),
                       sig=s[cl + ml:cl + ml + sl].decode(),
                       name=s[cl + ml + sl:cl + ml + sl + nl].decode())
            if 32 + cl + ml + sl + nl > len(body) or any(body[32 + cl + ml + sl + nl:]):
                fail('%s: LOAD at %d: strings overrun or non-zero padding' % (path, off))
        elif typ == 2:
            rec['id'], rec['start'] = struct.unpack_from('<QQ', body)
        elif typ == 3:
            rid, start, csize, nl = struct.unpack_from('<QQQH', body)
            rec.update(id=rid, start=start, size=csize, name=body[32:32 + nl].decode())
        elif typ == 5:
            rec['reason'] = struct.unpack_from('<Q', body)[0]
        elif typ == 6:
            rec.update(read_frames(path, off, body))
        recs.append(rec)
        off += size
    return pid, recs


def read_frames(path, off, body):
    """A FRAMES record (docs/journal-format.md): id, code start, and its
    ranges, each with its chain outermost first as (method, bci, line)."""
    rid, start, nr, nf, nm, flags = struct.unpack_from('<QQIIII', body)
    pos = 32 + 12 * nr + 8 * nf
    methods = []
    for _ in range(nm):
        lens = struct.unpack_from('<HHHHH', body, pos)
        pos += 12
        strs = []
        for n in lens:
            strs.append(body[pos:pos + n].decode())
            pos += n
        methods.append(dict(zip(('cls', 'method', 'sig', 'name', 'file'), strs)))
    if pos > len(body) or any(body[pos:]):
        fail('%s: FRAMES at %d: tables overrun or non-zero padding' % (path, off))
    ranges, f = [], 32 + 12 * nr
    for i in range(nr):
        roff, rsize, depth = struct.unpack_from('<IIH', body, 32 + 12 * i)
        chain = []
        for _ in range(depth):
            m, bci, line = struct.unpack_from('<HHH', body, f)
            f += 8
            chain.append((methods[m], -1 if bci == 0xffff else bci, line))
        ranges.append({'off': roff, 'size': rsize, 'chain': chain})
    if f != 32 + 12 * nr + 8 * nf:
        fail('%s: FRAMES at %d: depths do not add up to %d frames' % (path, off, nf))
    return {'id': rid, 'start': start, 'flags': flags, 'ranges': ranges}


def check_journal(path):
    pid, recs = read_journal(path)
    live = {}
    by_start = {}
    superseded = 0
    last_id = 0
    counts = {1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0}
    for r in recs:
        counts[r['type']] = counts.get(r['type'], 0) + 1
        if r['type'] in (1, 3):
            if r['id'] <= last_id:
                fail('ids not increasing: %d after %d' % (r['id'], last_id))
            last_id = r['id']
            old = by_start.get(r['start'])
            if old is not None and old in live:
                del live[old]  # a newer entry at the same address wins
                superseded += 1
            live[r['id']] = r
            by_start[r['start']] = r['id']
        elif r['type'] == 2:
            if r['id'] not in live:
                fail('UNLOAD of id %d that is not live' % r['id'])
            if live[r['id']]['start'] != r['start']:
                fail('UNLOAD id %d start mismatch' % r['id'])
            del live[r['id']]
        elif r['type'] == 4:
            # only old agents wrote INLINE (readers still take it); this
            # agent has no path that writes one
            fail('INLINE record for id %d: the agent writes FRAMES' % r['id'])
        elif r['type'] == 6:
            if r['id'] not in live:
                fail('FRAMES for id %d that is not live' % r['id'])
            p = live[r['id']]
            if r['start'] != p['start']:
                fail('FRAMES for id %d: start %x, its LOAD is at %x' % (r['id'], r['start'], p['start']))
            for g in r['ranges']:
                if g['off'] + g['size'] > p['size'] or not g['chain']:
                    fail('FRAMES range +%x+%x outside LOAD %d or empty' % (g['off'], g['size'], r['id']))
                if g['chain'][0][0]['name'] != p['name'] and p['name'].find('intrinsic') < 0:
                    fail('FRAMES of id %d: outermost frame %r is not the LOAD %r'
                         % (r['id'], g['chain'][0][0]['name'], p['name']))
    print('journal ok: pid %d, %d LOAD, %d UNLOAD, %d STUB, %d INLINE, %d FRAMES, %d EPOCH, %d live, '
          '%d superseded at the same address'
          % (pid, counts[1], counts[2], counts[3], counts[4], counts[6], counts[5], len(live),
             superseded))
    return recs, live


def read_map(path, zero_x=False):
    entries = []
    pat = re.compile(r'^(0x)?([0-9a-fA-F]+) (0x)?([0-9a-fA-F]+) (.*)$')
    for n, line in enumerate(open(path, encoding='utf-8', errors='replace'), 1):
        line = line.rstrip('\n')
        m = pat.match(line)
        if not m:
            fail('%s:%d: not a perf-map line: %r' % (path, n, line))
        if not zero_x and (m.group(1) or m.group(3) or
                           m.group(2) != m.group(2).lower() or m.group(4) != m.group(4).lower()):
            fail('%s:%d: not lowercase hex without 0x: %r' % (path, n, line))
        entries.append((int(m.group(2), 16), int(m.group(4), 16), m.group(5)))
    return entries


def check_map(path):
    e = read_map(path)
    seen = set()
    for t in e:
        if t in seen:
            fail('%s: duplicate line %x %x %s' % (path, t[0], t[1], t[2]))
        seen.add(t)
    java = sum(1 for t in e if JAVA_LINE.match(t[2]))
    print('map ok: %d lines, %d Java methods, no duplicates' % (len(e), java))


def coverage(jdkmap, mymap, journal, min_pct):
    jdk = [t for t in read_map(jdkmap, zero_x=True) if JAVA_LINE.match(t[2])]
    mine = {(s, z): n for s, z, n in read_map(mymap)}
    _, recs = read_journal(journal)
    unloaded = {r['start'] for r in recs if r['type'] == 2}
    total = hit = names = gone = intrinsics = 0
    missing = []
    differ = []
    for s, z, n in jdk:
        if (s, z) in mine:
            total += 1
            hit += 1
            names += mine[(s, z)] == n
            if mine[(s, z)].endswith('.<linkTo*/invokeBasic intrinsic>'):
                intrinsics += 1  # one jmethodID for all: named generically on purpose
            elif mine[(s, z)] != n:
                differ.append('JDK: %s | jsym: %s' % (n, mine[(s, z)]))
        elif s in unloaded:
            gone += 1  # unloaded since the JDK's snapshot: not live any more
        else:
            total += 1
            missing.append('%x %x %s' % (s, z, n))
    pct = 100.0 * hit / total if total else 0.0
    npct = 100.0 * names / hit if hit else 0.0
    print('coverage: %d of %d live Java methods of the JDK map (%.1f%%), same name for %.1f%%'
          ' (+%d MethodHandle intrinsics named generically); %d unloaded since'
          % (hit, total, pct, npct, intrinsics, gone))
    for m in missing[:10]:
        print('  missing: ' + m)
    for m in differ[:5]:
        print('  name differs: ' + m)
    if total == 0 or pct < min_pct:
        fail('coverage %.1f%% below %s%%' % (pct, min_pct))
    if hit - intrinsics > 0 and 100.0 * names / (hit - intrinsics) < 99.0:
        fail('only %d of %d names equal the JDK\'s' % (names, hit - intrinsics))


def unloaded(mymap, journal, name):
    lines = [t for t in read_map(mymap) if name in t[2]]
    if lines:
        fail('%d map lines still name %s, e.g. %x %x %s' % ((len(lines), name) + lines[0]))
    recs, live = check_journal(journal)
    loads = [r for r in recs if r['type'] == 1 and name in r['name']]
    ended = {r['id'] for r in recs if r['type'] == 2}
    open_ = [r for r in loads if r['id'] not in ended]
    print('unload: %d LOADs of %s, %d ended by UNLOAD, 0 map lines' % (len(loads), name,
                                                                       len(loads) - len(open_)))
    if not loads:
        fail('no LOAD of %s in the journal' % name)
    if open_:
        fail('%d LOADs of %s have no UNLOAD' % (len(open_), name))


def main(a):
    if len(a) == 2 and a[0] == 'journal':
        check_journal(a[1])
    elif len(a) == 2 and a[0] == 'map':
        check_map(a[1])
    elif len(a) == 5 and a[0] == 'coverage':
        coverage(a[1], a[2], a[3], float(a[4]))
    elif len(a) == 4 and a[0] == 'unloaded':
        unloaded(a[1], a[2], a[3])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == '__main__':
    main(sys.argv[1:])
