# SPDX-License-Identifier: Apache-2.0
# tests/kit/kit_util.sh - the kit's logging, error exit, cleanup, Java build.
# Sourced by tests/kit/kit.sh; not meant to be sourced alone.  Scenarios
# check, skip and find JDKs with tests/lib (t_check, t_skip, t_jdks, ...).

# kit_log MSG... : a progress line on stderr (stdout is for values).
kit_log() {
	echo "kit: $*" >&2
}

# kit_fail MSG... : the kit's own error exit (a container that cannot start,
# a rootfs that cannot be built): print `FAIL: MSG` on stderr and exit 1 (the
# trap cleans up).  Scenarios use t_abort, which also counts the failure.
kit_fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# kit_on_exit CMD : run CMD (eval'ed) in kit_cleanup, before the containers
# are stopped.  Use this instead of your own `trap ... EXIT`, which would
# replace the kit's (if you must trap, call kit_cleanup in your handler).
kit_on_exit() {
	KIT_ON_EXIT+=("$1")
}

# kit_cleanup : stop every container of this script, remove $KIT_DIR.
# Idempotent; installed as the EXIT/INT/TERM trap by kit.sh.
kit_cleanup() {
	local c d
	for c in "${KIT_ON_EXIT[@]}"; do
		eval "$c" || true
	done
	KIT_ON_EXIT=()
	[ -d "${KIT_DIR:-}" ] || return 0
	for d in "$KIT_DIR"/*/; do
		[ -f "$d/keeper" ] || continue
		kit_stop "$(basename "$d")" || true
	done
	rm -rf "$KIT_DIR"
}

# True while PID exists and is not a zombie.
_kit_alive() {
	local st
	[ -r "/proc/$1/stat" ] || return 1
	st=$(sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# kit_java_build [RELEASE=17] : compile tests/java/*.java with the host JDK's
# `javac --release RELEASE` into $JSYM_BUILD/java (java8 etc. for another
# release: the JDK matrix runs them on JDK 8 and 11) when a source is newer
# than the last build; print that directory.
kit_java_build() {
	local release=${1:-17} out stamp src newer=0
	out=$JSYM_BUILD/java
	[ "$release" = 17 ] || out=$JSYM_BUILD/java$release
	stamp=$out/.stamp
	for src in "$JSYM_ROOT"/tests/java/*.java; do
		[ -e "$src" ] || continue
		[ "$src" -nt "$stamp" ] && newer=1
	done
	if [ $newer = 1 ] || [ ! -e "$stamp" ]; then
		[ -x "$KIT_HOST_JDK/bin/javac" ] ||
			kit_fail "no javac in $KIT_HOST_JDK (apt-get install openjdk-17-jdk-headless)"
		mkdir -p "$out"
		(
			exec 9>"$out/.lock"
			flock 9
			"$KIT_HOST_JDK/bin/javac" --release "$release" -d "$out" "$JSYM_ROOT"/tests/java/*.java >&2 &&
				touch "$stamp"
		) || kit_fail "javac failed on tests/java"
	fi
	echo "$out"
}

# kit_wait_jvm HOSTPID [TIMEOUT_S=30] : wait until HOSTPID has libjvm.so
# mapped and has run for about a second since; 1 if it died or timed out.
kit_wait_jvm() {
	local pid=$1 timeout=${2:-30} i=0 seen=-1
	while [ $i -lt $((timeout * 10)) ]; do
		_kit_alive "$pid" || return 1
		if [ $seen -lt 0 ] && grep -q 'libjvm\.so' "/proc/$pid/maps" 2>/dev/null; then
			seen=$i
		fi
		if [ $seen -ge 0 ] && [ $((i - seen)) -ge 10 ]; then
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
