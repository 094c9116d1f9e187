#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""jitdump_check.py DUMP - check the unwinding data of an agent's jitdump.

For every JIT_CODE_UNWINDING_INFO (id 4) and the CODE_LOAD (id 0) after it:
  - the record's three sizes agree with its data (.eh_frame, then the
    .eh_frame_hdr of eh_frame_hdr_size bytes; mapped size >= both);
  - placed as `perf inject --jit` places them (.eh_frame at the code's size
    rounded up to 8 from the code's start), the header's table has one
    entry, whose FDE begins exactly at the code's start and covers at least
    the code the load carries;
  - perf maps [code start, start + size rounded up to 8 + mapped size): no
    other load's code may start inside that range after the code (perf
    would name that code from this load's file, or lose these tables).
Prints one summary line and each problem; exit 1 when there is one.
"""
import struct
import sys


def sdata4(b, off):
    return struct.unpack_from('<i', b, off)[0]


def check_tables(load, data, eh_size, hdr_size):
    """Problems of one load's tables, as strings."""
    addr, size = load['addr'], load['size']
    eh_at = addr + ((size + 7) & ~7)           # where perf puts .eh_frame
    hdr_at = eh_at + eh_size
    hdr = data[eh_size:eh_size + hdr_size]
    if len(hdr) < 20 or hdr[0] != 1 or hdr[1:4] != b'\x1b\x03\x3b':
        return ['%s: a header that is not version 1, pcrel/udata4/datarel' % load['name']]
    eh_ptr = hdr_at + 4 + sdata4(hdr, 4)
    count = struct.unpack_from('<I', hdr, 8)[0]
    loc = hdr_at + sdata4(hdr, 12)
    fde_at = hdr_at + sdata4(hdr, 16)
    bad = []
    if eh_ptr != eh_at:
        bad.append('%s: the header points to .eh_frame at %+d' % (load['name'], eh_ptr - eh_at))
    if count != 1 or loc != addr:
        bad.append('%s: the table has %d entries from %#x, not one at the code %#x'
                   % (load['name'], count, loc, addr))
    off = fde_at - eh_at
    if off < 8 or off + 16 > eh_size:
        return bad + ['%s: the FDE is outside .eh_frame' % load['name']]
    begin = fde_at + 8 + sdata4(data, off + 8)
    span = struct.unpack_from('<I', data, off + 12)[0]
    if begin != addr or span < size:
        bad.append('%s: the FDE covers %#x+%#x, not the code %#x+%#x'
                   % (load['name'], begin, span, addr, size))
    return bad


def main(path):
    d = open(path, 'rb').read()
    if len(d) < 40 or struct.unpack_from('<I', d, 0)[0] != 0x4A695444:
        print('%s: not a jitdump' % path)
        return 1
    off, pending, loads, bad = 40, None, [], []
    while off + 16 <= len(d):
        rid, total, _ = struct.unpack_from('<IIQ', d, off)
        if total < 16 or off + total > len(d):
            break
        body = d[off + 16:off + total]
        if rid == 4:
            usize, hsize, msize = struct.unpack_from('<QQQ', body, 0)
            if hsize == 0 or hsize >= usize or msize < usize or 24 + usize > len(body):
                bad.append('an unwinding record with sizes %d/%d/%d' % (usize, hsize, msize))
                pending = None
            else:
                pending = (body[24:24 + usize], usize - hsize, hsize, msize)
        elif rid == 0:
            _, _, _, addr, size, index = struct.unpack_from('<IIQQQQ', body, 0)
            end = body.index(b'\0', 40)
            load = {'addr': addr, 'size': size, 'name': body[40:end].decode(errors='replace'),
                    'map_end': addr + size}
            if pending:
                data, eh_size, hdr_size, msize = pending
                bad += check_tables(load, data, eh_size, hdr_size)
                load['map_end'] = addr + ((size + 7) & ~7) + msize
                load['tables'] = True
            loads.append(load)
            pending = None
        off += total
    starts = sorted(l['addr'] for l in loads)
    import bisect
    over = 0
    for l in loads:
        if not l.get('tables'):
            continue
        i = bisect.bisect_right(starts, l['addr'] + l['size'] - 1)
        if i < len(starts) and starts[i] < l['map_end']:
            over += 1
            bad.append('%s at %#x: its tables (to %#x) lie over code at %#x'
                       % (l['name'], l['addr'], l['map_end'], starts[i]))
    with_tables = sum(1 for l in loads if l.get('tables'))
    print('%s: %d code loads, %d with unwinding data, %d tables over other code, %d problems'
          % (path, len(loads), with_tables, over, len(bad)))
    for b in bad[:20]:
        print('problem: ' + b)
    return 1 if bad or not with_tables else 0


if __name__ == '__main__':
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
