# SPDX-License-Identifier: Apache-2.0
# tests/lib/median.sh - the one median and the one clock of the benchmarks
# (tests/bench/*.sh).  Sourced.
#   clock_us VAR  VAR = the wall clock in microseconds, read without a fork
#                 (bash's EPOCHREALTIME, its locale's decimal mark taken
#                 out): `$(date +%s%N)` forks and execs date, 1.5 ms on a
#                 2-core VM, and two of them stood in every figure timed
#   median N...   the median of the numbers: the lower middle one of an even
#                 count, so it is always a measured value (whole or not); 0
#                 when there is none
#   median -      the same of the numbers on stdin, one a line
median() {
	if [ "${1:-}" = - ]; then
		cat
	elif [ $# -gt 0 ]; then
		printf '%s\n' "$@"
	fi | sort -g | awk '{v[NR] = $1} END {print NR ? v[int((NR + 1) / 2)] : 0}'
}

clock_us() {
	printf -v "$1" '%s' "${EPOCHREALTIME//[!0-9]/}"
}
