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

# t_jdk_matrix ROOTFS FEATURE FUNC: call `FUNC LABEL MAJOR HOME [KIT_START
# OPTIONS...]` for every JDK of the kit's jdks root ROOTFS (its .jsym-jdks
# list), then for the host's Temurin 25 bound into it at its own path
# (label 25-temurin), where present; a matrix line `FEATURE skip` says
# when it is not.  JSYM_JDKS="8 28" runs those JDKs only (while working
# on one), the host's Temurin left out.
t_jdk_matrix() {
	local rootfs=$1 feature=$2 func=$3 major home temurin
	while read -r major home _ <&3; do
		[ -z "${JSYM_JDKS:-}" ] || [[ " $JSYM_JDKS " == *" $major "* ]] || continue
		"$func" "$major" "$major" "$home"
	done 3<"$rootfs/.jsym-jdks"
	temurin=$(t_jdks | awk '$2 == 25 && $1 ~ /temurin/ {print $1; exit}')
	if [ -n "${JSYM_JDKS:-}" ]; then
		t_log "JSYM_JDKS=$JSYM_JDKS: the host's Temurin left out"
	elif [ -n "$temurin" ]; then
		"$func" 25-temurin 25 "$temurin" --bind "$temurin:$temurin:ro"
	else
		t_matrix 25-temurin "$feature" skip
		t_log "no Temurin 25 under /usr/lib/jvm: Debian's JDKs only"
	fi
}

# t_jvm_wait_quiet PID HOME [TIMEOUT_S=60]: wait until the JIT compiler of
# the HotSpot JVM PID has gone quiet, asking it with HOME/bin/jcmd (PID is
# the host's: a container JVM too).  Quiet: two samples in a row, a second
# apart, each with no compile running or queued (Compiler.queue) and with
# the same code list (Compiler.codelist: every nmethod's id, level, state
# and place).  For a check that needs a JVM whose code heap holds still
# while jsym reads it (`"partial":false`).  Logs how long it waited; 1, with
# a line saying the JVM never went quiet, when TIMEOUT_S passed first or
# the JVM is gone: the caller still runs its check, which may then fail.
t_jvm_wait_quiet() {
	local pid=$1 jcmd=$2/bin/jcmd timeout=${3:-60} start=$SECONDS out busy list
	local prev='' why='no sample yet' cmds=$KIT_DIR/quiet.jcmd
	printf 'Compiler.queue\nCompiler.codelist\n' >"$cmds"
	while [ $((SECONDS - start)) -lt "$timeout" ]; do
		_kit_alive "$pid" || {
			why='the JVM is gone'
			break
		}
		# One jcmd for both commands: a jcmd is a JVM start of its own.
		if out=$("$jcmd" "$pid" -f "$cmds" 2>&1 </dev/null); then
			# Compile tasks: each line under `Current compiles:` and each
			# one but `Empty` under `C1/C2 compile queue:`, up to a blank.
			busy=$(awk '/^Current compiles:/ { s = 1; next }
				/compile queue:$/ { s = 2; next }
				/^[[:space:]]*$/ { s = 0; next }
				s == 1 || (s == 2 && $1 != "Empty") { n++ }
				END { print n + 0 }' <<<"$out")
			list=$(grep -E '^[0-9]+ -?[0-9]+ [0-9]+ .*\[0x' <<<"$out")
			if [ "$busy" != 0 ]; then
				why="$busy compiles running or queued"
				prev=''
			elif [ -z "$list" ]; then
				why='no code list in its answer'
			elif [ "$list" = "$prev" ]; then
				t_log "JVM $pid: JIT quiet after $((SECONDS - start)) s ($(grep -c '' <<<"$list") nmethods)"
				return 0
			else
				why='its code list changed'
				prev=$list
			fi
		else
			why="jcmd failed: $(tail -n 1 <<<"$out")"
			prev=''
		fi
		sleep 1
	done
	t_log "JVM $pid never went quiet in $timeout s (last: $why): checking anyway"
	return 1
}

# t_jvm_tmp PID: what the host JVM PID leaves in the host's /tmp, there now,
# one path a line: its perf data and attach socket, jsym's trigger, map,
# journal, log and jitdump.  PID may be a glob: '[0-9]*' is every JVM's
# (tests/run-integration.sh's leak check).
t_jvm_tmp() {
	local g
	for g in "/tmp/perf-$1.map" "/tmp/perf-$1.map.tmp" "/tmp/jsym-$1.log" \
		"/tmp/jsym-$1.journal" "/tmp/jsym-$1.journal.tmp" "/tmp/jsym-jit-$1" "/tmp/jit-$1.dump" \
		"/tmp/.java_pid$1" "/tmp/.attach_pid$1" "/tmp/hsperfdata_*/$1"; do
		compgen -G "$g"
	done
	return 0
}

# t_jvm_forget PID...: remove what the host JVMs PID..., stopped, left in the
# host's /tmp (t_jvm_tmp; a JVM killed with KILL removes none of it, and
# the integration runner counts what is left as a leak).
t_jvm_forget() {
	local p
	for p in "$@"; do
		t_jvm_tmp "$p"
	done | xargs -r -d '\n' rm -rf
}
