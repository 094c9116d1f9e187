# SPDX-License-Identifier: Apache-2.0
# tests/lib/jdk.sh - the host's HotSpot JDKs.  Sourced by tests/lib/lib.sh.

# t_jdk_major HOME: the JDK's major version (8, 17, 25) from HOME/release;
# 0 when it cannot be read.
t_jdk_major() {
	local v
	v=$(sed -n 's/^JAVA_VERSION="\([0-9.]*\).*/\1/p' "$1/release" 2>/dev/null)
	case $v in
	1.*) v=${v#1.} ;; # 1.8.0_402 is 8
	esac
	v=${v%%.*}
	echo "${v:-0}"
}

# t_jdks: every HotSpot JDK under /usr/lib/jvm (T_JVM_DIR overrides) that a
# scenario can both run and attach to: bin/java, bin/jcmd and
# lib/server/libjvm.so, not an OpenJ9 build.  One line per JDK, `HOME MAJOR`,
# HOME with symlinks resolved so that an alias (java-1.17.0-openjdk-amd64 ->
# java-17-openjdk-amd64) counts once; oldest major first.
#
#   while read -r home major <&3; do ...; done 3< <(t_jdks)
#
# (Read on a descriptor of its own: java and jcmd in the loop must not eat
# the list from stdin.)
t_jdks() {
	local d real
	for d in "${T_JVM_DIR:-/usr/lib/jvm}"/*/; do
		real=$(readlink -f "$d") || continue
		if [ ! -x "$real/bin/java" ] || [ ! -x "$real/bin/jcmd" ] ||
			[ ! -f "$real/lib/server/libjvm.so" ]; then
			continue
		fi
		grep -qi '^JVM_VARIANT="openj9"' "$real/release" 2>/dev/null && continue
		echo "$real $(t_jdk_major "$real")"
	done | sort -u | sort -k2,2n -k1,1
}
