#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/bench/lookup_caps.sh - the memory and time of `jsym resolve` at the
# caps of its index (attach/lookup/include/lookup_lib.h; docs/lookup.md,
# "Limits"): perf maps and journals made here, at a cap and just past it,
# each read once under /usr/bin/time.  Prints the exit status, the max RSS
# and the elapsed time of each; never asserts.  Needs about 500 MB free in
# TMPDIR at a time (each file is removed after its run) and a minute or two.
set -u
build=${JSYM_BUILD:-$(dirname "$0")/../../glibc-build}
J=$build/jsym
[ -x "$J" ] || { echo "skip: $J not built (run make)"; exit 0; }
[ -x /usr/bin/time ] || { echo "skip: no /usr/bin/time (GNU time)"; exit 0; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 0; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/jsym-caps.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT

# map LINES NAME_PAD: LINES perf-map lines with 72-byte names, or with
# names of NAME_PAD bytes of x and a 6-digit number when NAME_PAD > 0
map() {
	awk -v n="$1" -v pad="$2" 'BEGIN{
		x = ""; for (k = 0; k < pad; k++) x = x "x"
		for (i = 0; i < n; i++)
			if (pad) printf "7f%010x c8 %s%06d\n", i * 256, x, i % 1000000
			else printf "7f%010x c8 long com.example.service.Class%06d.method%06d(int, java.lang.String)\n", i * 256, int(i / 8), i
	}' >"$dir/f"
}

# journal LOADS RANGES NAME_PAD: LOADS methods, each with one FRAMES record
# of RANGES ranges (depth 1) and one method, the display name padded
journal() {
	python3 - "$1" "$2" "$3" "$dir/f" <<'EOF'
import struct, sys
n, ranges, pad, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]

def record(kind, ts, body):
    body += b"\0" * (-len(body) % 8)
    return struct.pack("<HHIQ", kind, 0, 16 + len(body), ts) + body

with open(out, "wb") as f:
    f.write(b"JSYMJRN1" + struct.pack("<HHIIIQQ", 1, 64, 0, 7, 0, 0, 0) + b"caps".ljust(24, b"\0"))
    batch = []
    for i in range(n):
        start = 0x7f0000000000 + i * 0x1000
        cls, meth, sig = b"c.C%07d" % (i // 8), b"m%07d" % i, b"(I)J"
        name = b"long " + cls + b"." + meth + b"(int)" + b"x" * pad
        src = b"C%07d.java" % (i // 8)
        batch.append(record(1, i + 1, struct.pack("<QQQHHHH", i + 1, start, 0x400, len(cls),
                                                  len(meth), len(sig), len(name)) + cls + meth + sig + name))
        body = struct.pack("<QQIIII", i + 1, start, ranges, ranges, 1, 1)
        body += b"".join(struct.pack("<IIHH", k * 0x40, 0x40, 1, 0) for k in range(ranges))
        body += b"".join(struct.pack("<HHHH", 0, k, 10 + k, 0) for k in range(ranges))
        body += struct.pack("<6H", len(cls), len(meth), len(sig), len(name), len(src), 0)
        batch.append(record(6, i + 1, body + cls + meth + sig + name + src))
        if len(batch) >= 20000:
            f.write(b"".join(batch))
            batch = []
    f.write(b"".join(batch))
EOF
}

# run WHAT OPTION: resolve one address of file f, print the figures
run() {
	local size
	size=$(stat -c %s "$dir/f")
	/usr/bin/time -o "$dir/time" -f "%x %M %e" "$J" resolve "$2" "$dir/f" 7f0000000100 \
		>/dev/null 2>"$dir/err"
	# the last line: a failed command's is preceded by "Command exited ..."
	read -r rc rss el < <(tail -n 1 "$dir/time")
	printf '%-44s %5d MiB  exit %s  max RSS %5d MB  %5s s\n' "$1" $((size >> 20)) "$rc" \
		$((rss / 1000)) "$el"
	[ "$rc" = 0 ] || sed -n '1s/^/    /p' "$dir/err"
	rm -f "$dir/f"
}

map 1048576 0 && run "map: 1,048,576 lines (the entries cap)" --map
map 1048577 0 && run "map: 1,048,577 lines" --map
map 4194304 0 && run "map: 4,194,304 lines" --map
map 1048576 238 && run "map: 1,048,576 names of 244 bytes" --map
map 66000 4090 && run "map: 66,000 names of 4,096 bytes" --map
journal 1048576 5 65 && run "journal: 1,048,576 LOADs, FRAMES of 5 ranges" --journal
journal 1048576 6 65 && run "journal: 1,048,576 LOADs, FRAMES of 6 ranges" --journal
