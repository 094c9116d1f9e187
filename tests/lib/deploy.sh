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
