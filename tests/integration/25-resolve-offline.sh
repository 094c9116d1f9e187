#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 25-resolve-offline.sh - `jsym resolve` on files alone, as a regular
# command: names from a hostile perf map reach the terminal escaped (ESC,
# the UTF-8 C1 control U+009B that some terminals take as CSI, DEL, the
# bidi override U+202E that shows "exe.jpg" as "gpj.exe"), the JSON
# output stays valid JSON with the bytes intact, and the exit codes are the
# CLI's (1 usage, 2 files missing); a map past the cap on entries is
# refused whole with the cap named; a device node or FIFO planted where
# `resolve --pid` reads a target's map and journal is never opened.  Fast:
# no JVM, no root (as root the planted map is a device node).
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
J=$JSYM_BUILD/jsym
[ -x "$J" ] || t_skip "jsym not built (make)"
map=$KIT_DIR/perf-4242.map
# one name with ESC [31m, one with U+009B (\302\233) then 2J, one with DEL,
# one with U+202E (\342\200\256)
printf '7f0000001000 100 a\033[31mred\n7f0000002000 100 b\302\2332Jclear\n7f0000003000 100 c\177del\n7f0000004000 100 void Plain.run()\n7f0000005000 100 d\342\200\256gpj.exe\n' >"$map"

t_case text-output-escapes-target-bytes
t_run "$J" resolve --map "$map" 7f0000001010 7f0000002010 7f0000003010 7f0000004010 7f0000009000 \
	7f0000005010
t_expect_rc 0
t_expect_out '^0x7f0000001010  a\\x1b\[31mred\+0x10 ' '^0x7f0000002010  b\\xc2\\x9b2Jclear\+0x10 ' \
	'^0x7f0000003010  c\\x7fdel\+0x10 ' '^0x7f0000004010  void Plain\.run\(\)\+0x10 ' \
	'^0x7f0000009000  \?\?$' '^0x7f0000005010  d\\xe2\\x80\\xaegpj\.exe\+0x10 '
t_check "no ESC, DEL, C1 byte or bidi override on stdout" \
	python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); sys.exit(any(c in d for c in (b"\x1b", b"\x7f", b"\xc2\x9b", b"\xe2\x80\xae")))' \
	"$KIT_DIR/t_run.out"

t_case json-output-keeps-the-bytes
t_run "$J" resolve --json --map "$map" 7f0000001010 7f0000002010
t_expect_rc 0
t_check "each line is JSON and names the map's bytes exactly" python3 -c '
import json, sys
names = [json.loads(l)["name"] for l in open(sys.argv[1], encoding="utf-8")]
sys.exit(names != ["a\x1b[31mred", "b\u009b2Jclear"])' "$KIT_DIR/t_run.out"

t_case exit-codes
t_run "$J" resolve --pid 0
t_expect_rc 1
t_expect_err '^jsym: resolve: bad pid'
t_run "$J" resolve --map "$map" --journal "$map" 7f0000001010
t_expect_rc 1
t_run "$J" resolve --map "$KIT_DIR/none.map" 7f0000001010
t_expect_rc 2
t_expect_err '^jsym: cannot open .*none\.map'

t_case a-map-past-the-cap-on-entries
# Issue 33 row 5: a map of 1,048,576 lines (LOOKUP_MAX_ENTRIES) is read,
# one line more is refused whole, naming the cap (exit 2, nothing printed).
big=$KIT_DIR/perf-cap.map
awk 'BEGIN{for(i=0;i<1048576;i++) printf "7f00%08x 10 m%d\n", i*16, i}' >"$big"
t_run "$J" resolve --map "$big" 7f0000fffff0
t_expect_rc 0
t_expect_out '^0x7f0000fffff0  m1048575\+0x0 '
echo "7f0010000000 10 one.more" >>"$big"
t_run "$J" resolve --map "$big" 7f0000fffff0
t_expect_rc 2
t_expect_err "^jsym: $big: more than 1048576 live code ranges, jsym's cap on entries \(docs/lookup.md"
t_check "nothing resolved past the cap" test ! -s "$KIT_DIR/t_run.out"
rm -f "$big"

t_case planted-nodes-not-opened
# What `resolve --pid` reads is the target's: a container can put a device
# node (as root: one with /dev/null's numbers, harmless if opened) or a FIFO
# where its map and journal belong.  Each is refused by its type and never
# opened (issue 17 row 1; inotify sees every real open, none of O_PATH).
sleep 300 </dev/null >/dev/null 2>&1 &
spid=$!
kit_on_exit "kill $spid 2>/dev/null; rm -f /tmp/perf-$spid.map /tmp/jsym-$spid.journal"
if [ "$(id -u)" = 0 ]; then
	mknod "/tmp/perf-$spid.map" c 1 3
	kind=device
else
	mkfifo "/tmp/perf-$spid.map"
	kind=FIFO
fi
mkfifo "/tmp/jsym-$spid.journal"
for f in "perf-$spid.map" "jsym-$spid.journal"; do
	t_watch_open "/tmp/$f"
	t_run timeout 20 "$J" resolve --pid "$spid" 7f0000001000
	t_eq "$(t_watch_result)" unopened "the planted $f ($([ "${f#perf}" != "$f" ] && echo "$kind" || echo FIFO)) was not opened"
	t_expect_rc 2
	t_expect_err "/tmp/$f is not a regular file, refusing to read it"
done
t_finish
