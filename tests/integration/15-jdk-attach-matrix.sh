#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 15-jdk-attach-matrix.sh - the attach side of jsym on every JDK of the
# `jdks` root (tests/kit/jdks.list: Debian's openjdk-N for 8 to 28), and
# the host's Temurin 25 where it is installed (bound into the same root at
# its own path), each JVM in a container of its own (PID 1, uid 1000
# without a passwd entry).
#
# One JVM per JDK (AgentBusy, compiled for Java 8 so that every JDK runs
# it), everything done against it in this order:
#   list          jsym list --json: HotSpot, the version (JDK 8 has no
#                 release file: read from libjvm.so), glibc, no agent,
#                 attach not disabled; a second JVM of the same JDK, given
#                 -XX:+DisableAttachMechanism in JAVA_TOOL_OPTIONS, listed
#                 as attach disabled, and jsym exec refuses it without a
#                 signal (no thread dump)
#   exec-properties, exec-threaddump, exec-jcmd (VM.version), and on JDK 8
#                 the jcmd it lacks (Compiler.codelist) named by the JVM
#   attach-host   jsym attach from the host: copied, probed, loaded, the map
#                 in the container with Java names
#   reattach-host the same again: refreshed, one agent mapped
#   attach-sidecar  the static musl jsym in a kubectl-debug-like sidecar
#                 (Docker's capabilities) attaches through /proc/1
#   detach        jsym detach: the copies the JVM does not map are gone
#   version-gate  JDK 8 only: given a release file that says 1.8.0_372
#                 (JDK-8305165, fixed in 8u382) jsym list shows that version
#                 and jsym attach refuses, naming the bug, loading nothing;
#                 after detach, --force loads with a warning
#   alttempdir    JDK 28 only, which runs with -XX:AltTempDir=/alt and a
#                 read-only /tmp: the socket, the copies and the agent's map
#                 are in /alt, nothing in /tmp (every step above went there)
#   alttempdir-missing, alttempdir-optionsfile  JDK 28 once more: with an
#                 AltTempDir that does not exist jsym says so at once and
#                 never signals; with one set in a -XX:VMOptionsFile (which
#                 jsym does not read) it is found where the JVM maps its
#                 hsperfdata, and with /tmp read-only jsym map writes its
#                 map there and jsym resolve --pid reads it there
#
# Each JDK x feature prints one line for docs/testing.md's coverage table:
#   matrix: JDK=11 feature=attach-host result=pass
# (result=fail names the failed check above it; result=skip says why).
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, chown"
J=$JSYM_BUILD/jsym
JM=$JSYM_MUSL_BUILD/jsym
[ -x "$J" ] && [ -x "$JM" ] || t_skip "jsym not built (make)"
[ -x "$KIT_HOST_JDK/bin/javac" ] || t_skip "no host javac to compile tests/java for Java 8"
rootfs=$(kit_rootfs jdks) || t_skip "no jdks root filesystem (tests/kit/rootfs.sh)"
[ -s "$rootfs/.jsym-jdks" ] || t_skip "the jdks root has no .jsym-jdks list"

# AgentBusy is the workload of tests/java that Java 8 can run.
classes=$KIT_DIR/java8
mkdir -p "$classes"
"$KIT_HOST_JDK/bin/javac" --release 8 -nowarn -d "$classes" \
	"$JSYM_ROOT/tests/java/AgentBusy.java" 2>"$KIT_DIR/javac.log" ||
	t_abort "javac --release 8 AgentBusy: $(cat "$KIT_DIR/javac.log")"

M_JDK=
M_FEATURE=
# m_begin FEATURE: the checks that follow are JDK $M_JDK's FEATURE.
m_begin() {
	M_FEATURE=$1
	t_case "JDK $M_JDK $1"
}
# m_end: print the matrix line of the current feature from its checks.
m_end() {
	t_matrix "$M_JDK" "$M_FEATURE" "$(t_case_result)"
}
# m_skip FEATURE REASON: a feature this JDK cannot have, said as such.
m_skip() {
	t_matrix "$M_JDK" "$1" skip "$2"
}
# list_entry PID: jsym list --json's object for PID, one line.
list_entry() {
	python3 -c 'import json,sys
for o in json.load(sys.stdin):
    if o["pid"] == int(sys.argv[1]): print(json.dumps(o, sort_keys=True))' "$1"
}

FEATURES="list exec-properties exec-threaddump exec-jcmd version-gate attach-host reattach-host attach-sidecar detach alttempdir"
# fake_release PID VERSION|"": write (or remove) the JDK's release file inside
# the container (its overlay), so jsym takes the JVM for that version.
fake_release() {
	local rel=$root$home/release
	if [ -n "$2" ]; then
		printf 'JAVA_VERSION="%s"\n' "$2" >"$rel"
	else
		rm -f "$rel"
	fi
}

# The JDKs: the jdks root's, then the host's Temurin 25 where it is there,
# bound into the same root at its own path (LABEL HOME VERSION [host]).
jdk_list() {
	local th
	cat "$rootfs/.jsym-jdks"
	th=$(t_jdks | awk '$2 == 25 && $1 ~ /temurin/ {print $1; exit}')
	[ -n "$th" ] && echo "25-temurin $th $(sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' "$th/release") host"
}

while read -r label home version where <&3; do
	M_JDK=$label
	major=${label%%-*}
	case $major in '' | \#*) continue ;; esac
	base=(--uid 1000 --gid 1000 --bind "$classes:/opt/jsym-java:ro")
	java=$rootfs$home/bin/java
	if [ "$where" = host ]; then
		base+=(--bind "$home:$home:ro")
		java=$home/bin/java
	fi
	kopts=("${base[@]}")
	if [ ! -x "$java" ]; then
		for f in $FEATURES; do m_skip "$f" "no $java"; done
		continue
	fi
	t_log "JDK $label ($version): $home"
	name=jdk$label
	outdir=/tmp
	jopts=(-Xmx64m -XX:+UseSerialGC)
	if [ "$major" -ge 28 ]; then
		# JDK-8384557: a container whose /tmp is unusable names another
		mkdir -p "$KIT_DIR/alt$major"
		chown 1000:1000 "$KIT_DIR/alt$major"
		kopts+=(--tmp-ro --bind "$KIT_DIR/alt$major:/alt")
		jopts+=(-XX:AltTempDir=/alt)
		outdir=/alt
	fi
	ct=$(kit_start "$name" "$rootfs" "${kopts[@]}" -- "$home/bin/java" "${jopts[@]}" \
		-cp /opt/jsym-java AgentBusy 900) || t_abort "kit_start $name"
	off=$(kit_start "$name-off" "$rootfs" "${base[@]}" \
		--env JAVA_TOOL_OPTIONS=-XX:+DisableAttachMechanism -- "$home/bin/java" -Xmx32m \
		-XX:+UseSerialGC -cp /opt/jsym-java AgentBusy 900) || t_abort "kit_start $name-off"
	if ! kit_wait_jvm "$ct" 60; then
		t_case "JDK $label start"
		t_fail "JDK $label did not start: $(tail -n 5 "$KIT_DIR/$name.log")"
		for f in $FEATURES; do t_matrix "$label" "$f" fail no-jvm; done
		continue
	fi
	root=/proc/$ct/root
	jv=$major
	[ "$major" = 8 ] && jv=1.8

	m_begin list
	t_run "$J" list --json
	t_expect_rc 0
	entry=$(list_entry "$ct" <<<"$T_OUT")
	t_contains "$entry" '"kind": "HotSpot"' "listed as HotSpot"
	t_contains "$entry" "\"major\": $major," "major $major"
	lv=$(sed -n 's/.*"version": "\([^"]*\)".*/\1/p' <<<"$entry")
	t_check "version '$lv' is the package's $version" test -n "$lv" -a "${version#"$lv"}" != "$version"
	t_contains "$entry" '"libc": "glibc"' "glibc"
	t_contains "$entry" '"agent": null' "no agent yet"
	t_contains "$entry" '"attach_disabled": false' "attach not disabled"
	t_contains "$entry" '"container": true' "in a container"
	if kit_wait_jvm "$off" 60; then
		t_contains "$(list_entry "$off" <<<"$T_OUT")" '"attach_disabled": true' \
			"JAVA_TOOL_OPTIONS=-XX:+DisableAttachMechanism: attach disabled"
		t_run timeout 60 "$J" exec "$off" properties
		t_expect_rc 2
		t_expect_err 'DisableAttachMechanism'
		t_eq "$(grep -c 'Full thread dump' "$KIT_DIR/$name-off.log")" 0 "not signalled"
	else
		t_fail "JDK $major with attach disabled did not start: $(tail -n 3 "$KIT_DIR/$name-off.log")"
	fi
	kit_stop "$name-off"
	m_end

	m_begin exec-properties
	t_run timeout 60 "$J" exec "$ct" properties
	t_expect_rc 0
	t_expect_out "^java\.version=$jv" "^java\.io\.tmpdir=/tmp"
	m_end

	m_begin exec-threaddump
	t_run timeout 60 "$J" exec "$ct" threaddump
	t_expect_rc 0
	t_expect_out '^Full thread dump OpenJDK' '"main"'
	m_end

	m_begin exec-jcmd
	t_run timeout 60 "$J" exec "$ct" jcmd VM.version
	t_expect_rc 0
	t_expect_out 'OpenJDK 64-Bit Server VM'
	if [ "$major" = 8 ]; then
		# JDK 8 has jcmd, but not the Compiler.* commands of 9+
		t_run timeout 60 "$J" exec "$ct" jcmd Compiler.codelist
		t_expect_rc 3
		t_expect_err 'Unknown diagnostic command'
	fi
	m_end

	if [ "$major" = 8 ]; then
		m_begin version-gate
		fake_release "$ct" 1.8.0_372
		t_run "$J" list --json
		t_contains "$(list_entry "$ct" <<<"$T_OUT")" '"version": "1.8.0_372"' "the release file wins over libjvm.so"
		t_run timeout 60 "$J" attach "$ct"
		t_expect_rc 2
		t_expect_err 'refusing to load the agent: JDK-8305165' '8u372' '--force'
		t_eq "$(t_agents "$ct")" "" "no agent loaded"
		t_eq "$(ls -d "$root$outdir"/jsym-* 2>/dev/null)" "" "nothing copied"
		fake_release "$ct" ""
	fi

	m_begin attach-host
	t_run timeout 120 "$J" attach -v "$ct"
	t_expect_rc 0
	t_expect_out "agent loaded \\(HotSpot [^,]*, glibc build, copied to $outdir/jsym-[0-9a-f]{12}-1-[0-9]+/glibc/libjsym-agent\\.so\\)" \
		"symbols in $outdir/perf-1\\.map"
	t_eq "$(t_agents "$ct")" "$(ls -d "$root$outdir"/jsym-*-1-*/glibc/libjsym-agent.so 2>/dev/null | sed "s#^$root##")" \
		"the JVM maps the copy in $outdir"
	for _ in $(seq 50); do grep -qE ' [A-Za-z]+\.[a-zA-Z]+\(' "$root$outdir/perf-1.map" 2>/dev/null && break; sleep 0.1; done
	t_check "the agent's map in $outdir names Java methods" grep -qE ' [A-Za-z]+\.[a-zA-Z]+\(' "$root$outdir/perf-1.map"
	t_eq "$(stat -c %u:%g "$root$outdir/perf-1.map" 2>&1)" 1000:1000 "the map is the JVM's"
	t_run "$J" list --json
	t_contains "$(list_entry "$ct" <<<"$T_OUT")" "\"agent\": \"$outdir/jsym-" "jsym list shows the agent"
	m_end

	m_begin reattach-host
	t_run timeout 60 "$J" attach "$ct"
	t_expect_rc 0
	t_expect_out 'agent refreshed'
	t_eq "$(t_agents "$ct" | wc -l)" 1 "one agent mapped"
	m_end

	m_begin attach-sidecar
	t_run kit_sidecar "$ct" --bind "$JSYM_ROOT:$JSYM_ROOT:ro" -- "$JM" attach -v 1
	t_expect_rc 0
	t_expect_out 'agent refreshed'
	t_eq "$(t_agents "$ct" | wc -l)" 1 "still one agent mapped"
	t_run kit_sidecar "$ct" --bind "$JSYM_ROOT:$JSYM_ROOT:ro" -- "$JM" exec 1 properties
	t_expect_rc 0
	t_expect_out "^java\.version=$jv"
	m_end

	m_begin detach
	t_run timeout 60 "$J" detach "$ct"
	t_expect_rc 0
	t_check "only the mapped agent is left of the copies" test "$(find "$root$outdir"/jsym-*-1-* -type f 2>/dev/null | wc -l)" = 1
	t_check "the JVM still runs" kill -0 "$ct"
	m_end

	if [ "$major" = 8 ]; then
		M_FEATURE=version-gate
		t_case "JDK 8 version-gate"
		fake_release "$ct" 1.8.0_372
		t_run timeout 60 "$J" attach --force "$ct"
		t_expect_rc 0
		t_expect_err 'warning: loading the agent anyway \(--force\): JDK-8305165'
		fake_release "$ct" ""
		m_end
	else
		m_skip version-gate "no JDK $major version is refused"
	fi

	if [ "$major" -ge 28 ]; then
		m_begin alttempdir
		t_check "the socket is $outdir/.java_pid1" test -S "$root/alt/.java_pid1"
		t_check "hsperfdata is in /alt" test -d "$root/alt/hsperfdata_uid1000"
		t_eq "$(ls -A "$root/tmp")" "" "nothing in the read-only /tmp"
		t_run "$J" exec -v "$ct" properties
		t_expect_err 'temp dir is /alt \(its hsperfdata is there\): its socket and trigger are there' \
			'socket /alt/\.java_pid1 exists'
		m_end
	else
		m_skip alttempdir "JDK $major has no -XX:AltTempDir (28 added it)"
		m_skip alttempdir-missing "JDK $major has no -XX:AltTempDir (28 added it)"
		m_skip alttempdir-optionsfile "JDK $major has no -XX:AltTempDir (28 added it)"
	fi
	kit_stop "$name"
done 3< <(jdk_list)

# JDK 28's AltTempDir that the JVM cannot use: named at once, no wait.
M_JDK=28
home=$(awk '$1 == 28 {print $2}' "$rootfs/.jsym-jdks")
if [ -z "$home" ] || [ ! -x "$rootfs$home/bin/java" ]; then
	m_skip alttempdir-missing "no JDK 28 in the jdks root"
	m_skip alttempdir-optionsfile "no JDK 28 in the jdks root"
else
	m_begin alttempdir-missing
	ct=$(kit_start alt-missing "$rootfs" --uid 1000 --gid 1000 --bind "$classes:/opt/jsym-java:ro" \
		-- "$home/bin/java" -Xmx64m -XX:AltTempDir=/missing -cp /opt/jsym-java AgentBusy 900) ||
		t_abort "kit_start alt-missing"
	kit_wait_jvm "$ct" 60 || t_abort "JDK 28 with /missing did not start"
	t_run timeout 30 "$J" exec "$ct" properties
	t_expect_rc 2
	t_expect_err 'temp dir is /missing \(-XX:AltTempDir\), which cannot be opened'
	t_eq "$(grep -c 'Full thread dump' "$KIT_DIR/alt-missing.log")" 0 "the JVM was not signalled"
	kit_stop alt-missing
	m_end

	# The flag where jsym does not read options (-XX:VMOptionsFile): the
	# directory of the hsperfdata file the JVM maps says it.
	m_begin alttempdir-optionsfile
	mkdir -p "$KIT_DIR/dir-alt2" "$KIT_DIR/vmopts"
	chown 1000:1000 "$KIT_DIR/dir-alt2"
	echo "-XX:AltTempDir=/alt2" >"$KIT_DIR/vmopts/opts"
	ct=$(kit_start alt-of "$rootfs" --uid 1000 --gid 1000 --bind "$classes:/opt/jsym-java:ro" \
		--tmp-ro --bind "$KIT_DIR/dir-alt2:/alt2" --bind "$KIT_DIR/vmopts:/opt/vmopts:ro" \
		-- "$home/bin/java" -Xmx64m -XX:VMOptionsFile=/opt/vmopts/opts \
		-cp /opt/jsym-java AgentBusy 900) || t_abort "kit_start alt-of"
	kit_wait_jvm "$ct" 60 || t_abort "JDK 28 with a VMOptionsFile did not start"
	t_run timeout 30 "$J" exec -v "$ct" properties
	t_expect_rc 0
	t_expect_err 'temp dir is /alt2 \(its hsperfdata is there\)'
	t_check "the socket is /alt2/.java_pid1" test -S "/proc/$ct/root/alt2/.java_pid1"
	# with /tmp read-only, jsym map writes where the agent would, and
	# resolve --pid reads there
	t_run timeout 60 "$J" map "$ct"
	t_expect_rc 0
	t_expect_out 'stubs in /alt2/perf-1\.map inside the JVM.s container \(perf looks in /tmp only'
	t_check "jsym map's map in /alt2 names Java methods" \
		grep -qE ' [A-Za-z]+\.[a-zA-Z]+\(' "/proc/$ct/root/alt2/perf-1.map"
	addr=$(awk '/ [A-Za-z]+\.[a-zA-Z]+\(/ {print $1; exit}' "/proc/$ct/root/alt2/perf-1.map")
	t_run "$J" resolve --pid "$ct" "$addr"
	t_expect_rc 0
	t_expect_out "^0x0*${addr#0x} +[^?]"
	kit_stop alt-of
	m_end
fi
t_finish
