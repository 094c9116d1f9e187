# SPDX-License-Identifier: Apache-2.0
# tests/lib/procs.sh - what scenarios look at in a process and its files.
# Sourced by lib.sh.
#
#   t_agents PID            the distinct jsym agents PID maps (files, as the
#                           host names them, or memfds), one a line
#   t_owner PATH            its uid:gid
#   t_wait_log FILE TEXT SECS   0 once TEXT is in FILE, else 1 after SECS
#                           (says which text it missed)
#   t_same_ranges TRUTH MAP 0 when both hold the same multiset of lines; says
#                           how many differ and shows a few
#   t_perf_record PID SECS OUT  perf record -g of PID for SECS into OUT; 1 when
#                           perf cannot sample here (the reason: t_perf_why OUT)
#   t_perf_jit OUT PID      the samples' lines (ip sym dso) whose dso is the
#                           JIT map perf reads for PID, /tmp/perf-PID.map
#   T_JAVA_RE               a perf script symbol that names a Java method

t_agents() {
	awk '/libjsym-agent|memfd:jsym-agent/ {print $6}' "/proc/$1/maps" | sort -u
}

t_owner() { stat -c %u:%g "$1"; }

t_wait_log() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "    '$2' not in $1 after $3 s"
	return 1
}

t_same_ranges() {
	python3 - "$1" "$2" <<'EOF_PY'
import collections, sys
def lines(p):
    with open(p, encoding="utf-8", errors="surrogateescape") as f:
        return collections.Counter(f.read().splitlines())
try:
    t, m = lines(sys.argv[1]), lines(sys.argv[2])
except OSError as e:
    print("    cannot read:", e)
    sys.exit(1)
missing, extra = t - m, m - t
if not missing and not extra:
    print("    %d ranges, the same in both" % sum(t.values()))
    sys.exit(0)
print("    %d live ranges missing from the map, %d lines in the map not live"
      % (sum(missing.values()), sum(extra.values())))
for l in sorted(missing)[:5]:
    print("    missing:", l)
for l in sorted(extra)[:5]:
    print("    stale:  ", l)
sys.exit(1)
EOF_PY
}

T_JAVA_RE=' [A-Za-z_$][^ ]*\.[A-Za-z_$<][^ ]*\('

t_perf_record() {
	command -v perf >/dev/null || { echo "perf is not installed" >"$3.log"; return 1; }
	timeout 30 perf record -q -e cpu-clock -g -p "$1" -o "$3" -- sleep "$2" >"$3.log" 2>&1
}

t_perf_why() { head -n 1 "$1.log" 2>/dev/null; }

t_perf_jit() {
	perf script -i "$1" -F ip,sym,dso 2>/dev/null | grep -E "\(/tmp/perf-$2\.map\)" || true
}
