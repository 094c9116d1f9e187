# SPDX-License-Identifier: Apache-2.0
# tests/lib/deploy.sh - checks of what `jsym attach` delivers into a
# container.  Sourced by tests/lib/lib.sh.

# t_copies_are DIR IDS [SUFFIX]: the per-target directory DIR (a host path)
# holds both builds' agent and probe, each owned by IDS (uid:gid) and equal
# to the same file of $JSYM_ROOT/{glibc,musl}-build<SUFFIX> (SUFFIX:
# "-aarch64" for the aarch64 trees).
t_copies_are() {
	local dir=$1 ids=$2 sfx=${3:-} l f
	for l in glibc musl; do
		for f in libjsym-agent.so jsym-probe; do
			t_eq "$(stat -c %u:%g "$dir/$l/$f" 2>&1)" "$ids" "$l/$f owned by the JVM's ids"
			t_check "$l/$f equals the build" cmp -s "$dir/$l/$f" "$JSYM_ROOT/$l-build$sfx/$f"
		done
	done
}

# t_detach_keeps_mapped PID: `jsym detach PID`, whose JVM maps the glibc
# build jsym copied into its /tmp, removes the three copies it does not map
# and leaves in /tmp (beside the JVM's own hsperfdata and attach socket)
# only the mapped build, the agent's journal, its log and the map.
t_detach_keeps_mapped() {
	local pid=$1 left
	t_run "$JSYM_BUILD/jsym" detach "$pid"
	t_expect_rc 0
	t_expect_out 'removed 3 copied files; kept the mapped /tmp/jsym-'
	# the per-target directory's name as H
	left=$(cd "/proc/$pid/root/tmp" && find . -mindepth 1 \( -name 'hsperfdata_*' -o \
		-name '.java_pid*' \) -prune -o -print | sed -E 's/jsym-[0-9a-f]{12}-1-[0-9]+/jsym-H/' |
		sort | tr '\n' ' ')
	t_eq "$left" "./jsym-1.journal ./jsym-1.log ./jsym-H ./jsym-H/glibc ./jsym-H/glibc/libjsym-agent.so ./perf-1.map " \
		"left in /tmp: the mapped build, the journal, the agent's log, the map"
}
