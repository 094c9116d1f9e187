#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# mk/demo.sh - jsym's real job on a built-in demo: a JVM in a container.
#
# `make demo` (root) builds jsym, then:
#  1. starts the sample workload (tests/java/Workload.java, compiled with the
#     host JDK) as PID 1 of a Debian 12 container, uid 1000, with the
#     container's own JRE and the JDK's default flags (no
#     -XX:+PreserveFramePointer): a runc container started by podman when both
#     work here (tests/kit/podman.sh), else one of the test kit's (tests/kit);
#     it says which;
#  2. `jsym attach --options unfold,jitdump` from the host, then the same from
#     a kubectl-debug-like sidecar (the runtime's default capabilities): under
#     runc a container of the image of deploy/Dockerfile (built once per
#     source tree), else the build tree bound at /opt/jsym; the second
#     attach refreshes the running agent;
#  3. samples the JVM with `perf record -k mono --call-graph dwarf -p
#     HOSTPID`, counts the JIT samples named from the container's
#     /tmp/perf-1.map, then `perf inject --jit` (the agent's jitdump: the
#     code and its unwinding data) and prints the hottest Java methods and
#     one whole call stack, Java frames down to call_stub and the thread's
#     start; then bpftrace's ustack(perf) when bpftrace is installed and can
#     run (it walks frame pointers: the top frame of a default-flags JVM);
#  4. `jsym resolve --pid HOSTPID` on sampled addresses, one of them inside
#     code the JIT inlined (the agent's `unfold` journals inlined ranges).
#
# The container's root filesystem is the kit's `debian` tree, built once with
# debootstrap (a few minutes) and cached in $JSYM_CACHE (default
# /var/cache/jsym/rootfs as root, else .cache/rootfs/).  When containers cannot be made here (no namespaces, no
# overlay, no archive for debootstrap) the demo says why and runs the same
# steps on a host JVM instead.  A step the machine cannot do (no perf events,
# no bpftrace) is named and skipped; the exit status is 0 unless jsym itself
# failed.  Everything lives in the kit's state directory ($KIT_DIR, in /tmp)
# or in containers; the kit's exit trap stops them and removes it.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
	cat >&2 <<'EOF'
jsym demo: needs root.
  It runs the sample JVM in a container made of Linux namespaces (mount and
  PID namespaces, an overlay root, pivot_root; tests/kit), attaches jsym from
  the host and from a sidecar, and samples the JVM with perf: all of that
  needs root.  Run it as root:  sudo make demo
  (Building needs no root: `make` alone works as any user.)
EOF
	exit 1
fi

# The kit: containers, sidecars, the root filesystem cache, and the EXIT/INT/
# TERM trap that stops every container and removes $KIT_DIR; podman.sh: the
# same roots as real runc containers, when podman and runc work here.
# shellcheck source=tests/kit/kit.sh
source tests/kit/kit.sh
# shellcheck source=tests/kit/podman.sh
source tests/kit/podman.sh
J=$JSYM_BUILD/jsym
start_secs=$SECONDS
failed=0

if [ -t 1 ]; then
	step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
	step() { printf '\n== %s\n' "$*"; }
fi
say() { printf '  %s\n' "$*"; }
# fail MSG: a jsym step went wrong; the demo goes on, then exits 1.
fail() {
	printf '  FAILED: %s\n' "$*"
	failed=1
}
# die MSG: nothing sensible can follow.
die() {
	printf '\njsym demo: %s\n' "$*" >&2
	exit 1
}
# indent FILE [N]: the first N (default all) lines of FILE, indented.
indent() {
	if [ -n "${2:-}" ]; then head -n "$2" "$1"; else cat "$1"; fi | sed 's/^/    /'
}

printf 'jsym demo: a JIT-heavy JVM in a container; jsym attaches to it from the\n'
printf 'host and from a sidecar; perf names its Java frames and walks its whole\n'
printf 'stacks, without -XX:+PreserveFramePointer.\n'

# ---------------------------------------------------------------- the JVM
classes=$(kit_java_build) || die "cannot compile tests/java/Workload.java with $KIT_HOST_JDK"
mode=container
ct=""
why_host=""

step "1. the sample JVM in a Debian 12 container (uid 1000, PID 1, its own JRE)"
if [ -f "$JSYM_CACHE/debian/.jsym-rootfs" ]; then
	say "root filesystem: the kit's 'debian' tree, cached in $JSYM_CACHE/debian"
else
	say "first run: building the container's root filesystem (the kit's 'debian' tree:"
	say "debootstrap --variant=minbase bookworm plus openjdk-17-jre-headless) from"
	say "Debian's archive; this takes a few minutes, once: it is cached in $JSYM_CACHE"
fi
# The kit's progress ("kit: building rootfs ...") and, on failure, the end of
# the build's log go to stderr as they come.
# The runtime: runc through podman, as users run containers, when podman can
# start one here (JSYM_DEMO_RUNTIME=kit asks for the kit's own containers);
# else the kit's namespaces.
runtime=kit
if ! rootfs=$(kit_rootfs debian); then
	mode=host
	why_host="the container's root filesystem could not be built here (see above)"
elif [ "${JSYM_DEMO_RUNTIME:-}" != kit ] && pod_usable; then
	runtime=runc
	if ! ct=$(pod_jvm app debian 2>"$KIT_DIR/start.err"); then
		mode=host
		why_host="a runc container cannot be started here: $(tail -n 1 "$KIT_DIR/start.err")"
	fi
elif ! ct=$(kit_start app "$rootfs" --uid 1000 --gid 1000 --bind "$classes:/opt/app:ro" \
	-- "$KIT_CT_JAVA" -Xmx128m -cp /opt/app Workload 0 \
	2>"$KIT_DIR/start.err"); then
	mode=host
	why_host="a container cannot be started here: $(tail -n 1 "$KIT_DIR/start.err")"
fi
if [ "$runtime" = runc ]; then
	say "runtime: runc, driven by podman ($(podman --version | awk '{print $3}'), runc $(runc --version | awk 'NR == 1 {print $3}'))"
else
	say "runtime: the test kit's own containers (Linux namespaces, tests/kit)${POD_WHY:+; not runc: $POD_WHY}"
fi

if [ "$mode" = container ]; then
	kit_wait_jvm "$ct" 60 || die "the container JVM did not start: $(tail -n 5 "$KIT_DIR/app.log")"
	jvm=$ct
	jvm_root=/proc/$ct/root
	nspid=1
	say "tests/java/Workload.java compiled with the host JDK ($KIT_HOST_JDK) into $classes"
	if [ "$runtime" = runc ]; then
		say "runc container $(pod_name app): $KIT_CT_JAVA -Xmx64m"
		say "  -cp /opt/app Workload 0   (the JDK's default flags; the classes bound read-only at /opt/app),"
		say "  cgroup $(tail -n 1 "/proc/$ct/cgroup" | cut -d: -f3)"
		podman logs "$(pod_name app)" >"$KIT_DIR/app.log" 2>&1
	else
		say "container 'app': $KIT_CT_JAVA -Xmx128m"
		say "  -cp /opt/app Workload 0   (the JDK's default flags; the classes bound read-only at /opt/app)"
	fi
	say "host pid $ct; inside: pid $(awk '/^NSpid:/ {print $NF}' "/proc/$ct/status"), uid $(awk '/^Uid:/ {print $2}' "/proc/$ct/status"), its own /tmp, root and JRE"
else
	say "NOTE: $why_host"
	say "NOTE: so this run shows the same steps on a JVM started on this machine"
	say "      directly (no container, no sidecar)."
	java=$KIT_HOST_JDK/bin/java
	"$java" -Xmx128m -cp "$classes" Workload 0 \
		>"$KIT_DIR/app.log" 2>&1 </dev/null &
	jvm=$!
	# The kit knows nothing of this JVM: stop it and remove its files ourselves.
	kit_on_exit "kill $jvm 2>/dev/null; wait $jvm 2>/dev/null; rm -f /tmp/perf-$jvm.map /tmp/perf-$jvm.map.tmp /tmp/jsym-$jvm.journal /tmp/jsym-$jvm.log; rm -rf /tmp/jsym-jit-$jvm"
	kit_wait_jvm "$jvm" 60 || die "the JVM did not start: $(tail -n 5 "$KIT_DIR/app.log")"
	jvm_root=""
	nspid=$jvm
	say "host JVM: pid $jvm, $java -Xmx128m ... Workload 0 (the JDK's default flags)"
fi
for _ in $(seq 50); do
	[ "$runtime" = runc ] && podman logs "$(pod_name app)" >"$KIT_DIR/app.log" 2>&1
	grep -q 'workload: started' "$KIT_DIR/app.log" 2>/dev/null && break
	sleep 0.1
done
say "waiting 3 s for the JIT to compile the hot methods: to perf they are"
say "anonymous memory so far"
sleep 3

# ---------------------------------------------------------------- attach
map=$jvm_root/tmp/perf-$nspid.map
journal=$jvm_root/tmp/jsym-$nspid.journal
dump=$jvm_root/tmp/jsym-jit-$nspid/jit-$nspid.dump
step "2. jsym attach --options unfold,jitdump $jvm   (from the host)"
if "$J" attach --options unfold,jitdump "$jvm" >"$KIT_DIR/attach.out" 2>&1; then
	indent "$KIT_DIR/attach.out"
else
	indent "$KIT_DIR/attach.out"
	die "jsym attach failed (exit status above); nothing can be named"
fi
for _ in $(seq 50); do
	[ -s "$map" ] && [ -s "$journal" ] && [ -s "$dump" ] && break
	sleep 0.1
done
sleep 1
[ -s "$map" ] || die "the agent wrote no perf map at $map"
if [ "$mode" = container ]; then
	say "what the agent keeps in the container's /tmp (the host sees it as $jvm_root/tmp):"
else
	say "what the agent keeps in /tmp:"
fi
say "  perf-$nspid.map: $(wc -l <"$map") live code ranges (owner uid $(stat -c %u "$map")), for perf"
say "  jsym-$nspid.journal: $(($(stat -c %s "$journal") / 1024)) KiB, loads, unloads and (unfold) inlined ranges, for jsym resolve"
if [ -s "$dump" ]; then
	say "  jsym-jit-$nspid/jit-$nspid.dump: $(($(stat -c %s "$dump") / 1024)) KiB, (jitdump) the code and its unwinding data, for perf inject --jit"
else
	say "  no jsym-jit-$nspid/jit-$nspid.dump: the agent's log says why ($jvm_root/tmp/jsym-$nspid.log)"
fi
say "a few lines of the map (START SIZE name):"
grep -E ' [a-z]+ (Arith|Strs|Colls|Recur)\.' "$map" | head -n 5 | sed 's/^/    /' || true

agents() { awk '/libjsym-agent/ {print $6}' "/proc/$jvm/maps" | sort -u | grep -c . || true; }
if [ "$mode" = container ]; then
	# the sidecar: under runc, a container of the image users deploy
	# (deploy/Dockerfile, built here from local base images, cached per
	# source tree); else, and when it cannot be built, the build tree bound
	# at /opt/jsym
	sjsym=/opt/jsym/musl-build/jsym
	if [ "$runtime" = runc ]; then
		say "building the image of deploy/Dockerfile for the sidecar (once per source tree)..."
		if pod_jsym_image 2>"$KIT_DIR/image.err"; then
			sjsym=jsym
			sidecar() { pod_sidecar app "image:$POD_JSYM_IMAGE" -- "$@"; }
		else
			say "(no image: $(tail -n 1 "$KIT_DIR/image.err"); the build tree is bound instead)"
			sidecar() { pod_sidecar app debian -v "$PWD:/opt/jsym:ro" -- "$@"; }
		fi
	fi
	step "3. the same from a sidecar: $sjsym attach --options unfold,jitdump 1"
	say "a kubectl-debug-like container in the JVM's PID namespace, root with"
	if [ "$runtime" = runc ]; then
		say "podman's default capabilities (no SYS_ADMIN, no SYS_PTRACE; podman run"
		if [ "$sjsym" = jsym ]; then
			say "--pid container:$(pod_name app)), of the image $POD_JSYM_IMAGE"
			say "($POD_IMAGE_BUILT); the JVM is PID 1 there"
		else
			say "--pid container:$(pod_name app)), the build tree bound read-only at"
			say "/opt/jsym; the JVM is PID 1 there"
		fi
	else
		say "Docker's default capabilities (no SYS_ADMIN, no SYS_PTRACE), the build"
		say "tree bound read-only at /opt/jsym; the JVM is PID 1 there"
		sidecar() { kit_sidecar "$ct" --bind "$PWD:/opt/jsym:ro" -- "$@"; }
	fi
	if sidecar "$sjsym" attach --options unfold,jitdump 1 >"$KIT_DIR/sidecar.out" 2>&1; then
		indent "$KIT_DIR/sidecar.out"
	else
		indent "$KIT_DIR/sidecar.out"
		fail "jsym attach from the sidecar"
	fi
else
	step "3. a second jsym attach --options unfold,jitdump $jvm (no sidecar without containers)"
	if "$J" attach --options unfold,jitdump "$jvm" >"$KIT_DIR/sidecar.out" 2>&1; then
		indent "$KIT_DIR/sidecar.out"
	else
		indent "$KIT_DIR/sidecar.out"
		fail "the second jsym attach"
	fi
fi
say "a second attach refreshes the agent already running: the JVM maps $(agents)"
say "jsym agent, and the agent logged $(grep -c 'attached again: refreshing' "$jvm_root/tmp/jsym-$nspid.log" || true) refresh"

# ---------------------------------------------------------------- perf
# Sampled JIT addresses (for resolve) come from perf when it can sample.
# perf record and perf inject keep a copy of each DSO they saw in a build-id
# cache, ~/.debug by default: with perf inject's jitted-*.so some 30 MB a
# run.  The demo's cache is in $KIT_DIR, removed with it.
data=$KIT_DIR/perf.data
jdata=$KIT_DIR/perf.jit.data
sampled=$KIT_DIR/sampled
: >"$sampled"
perf_cmd=(perf --buildid-dir "$KIT_DIR/buildid")
step "4. perf record -k mono --call-graph dwarf -p $jvm for 4 s, perf inject --jit (as root, on the host)"
if ! command -v perf >/dev/null; then
	say "perf is not installed (apt-get install linux-perf): skipped"
elif ! "${perf_cmd[@]}" record -q -e cpu-clock -o "$KIT_DIR/probe.data" -- true >"$KIT_DIR/probe.log" 2>&1; then
	say "perf cannot sample on this machine: skipped ($(head -n 1 "$KIT_DIR/probe.log"))"
elif ! timeout 60 "${perf_cmd[@]}" record -k mono -e cpu-clock -F 499 --call-graph dwarf,16384 -p "$jvm" \
	-o "$data" -- sleep 4 >"$KIT_DIR/perf.log" 2>&1; then
	say "perf record failed: skipped; it said:"
	indent "$KIT_DIR/perf.log" 5
else
	# perf finds the map itself: for a process in another mount namespace it
	# reads /tmp/perf-<nspid>.map there.  -f: a perf that checks the map's
	# owner would otherwise skip a map owned by the JVM's uid
	# (docs/perf-map.md); the perf of Debian 12 reads it either way.
	# --no-inline: perf script would otherwise run addr2line on every DSO
	# of the stacks (minutes).
	"${perf_cmd[@]}" script -f --no-inline -i "$data" -F ip,sym,dso -G 2>/dev/null >"$KIT_DIR/leaves" || true
	total=$(grep -c . "$KIT_DIR/leaves" || true)
	jit=$(grep -c "(/tmp/perf-$jvm\.map)" "$KIT_DIR/leaves" || true)
	unnamed=$(grep "(/tmp/perf-$jvm\.map)" "$KIT_DIR/leaves" | grep -c '\[unknown\]' || true)
	say "$total samples, each with 16 KiB of its thread's stack; $jit of them in JIT code,"
	say "$((jit - unnamed)) of those named from the agent's map"
	grep "(/tmp/perf-$jvm\.map)" "$KIT_DIR/leaves" | awk '{print $1}' >"$sampled" || true
	# perf inject --jit: a jitted-*.so per method and stub of the agent's
	# jitdump (in the JVM's /tmp, found through the dump's mmap in the
	# samples), with its .eh_frame: perf's DWARF unwinder walks the JIT's
	# frames with it.  (perf needs the container running for this.)
	if ! timeout 120 "${perf_cmd[@]}" inject --jit -i "$data" -o "$jdata" >"$KIT_DIR/inject.log" 2>&1; then
		say "perf inject --jit failed; it said:"
		indent "$KIT_DIR/inject.log" 5
	else
		say "hottest Java methods (perf report -i perf.jit.data --no-children --sort dso,sym,"
		say "jitted-*.so lines):"
		"${perf_cmd[@]}" report -f --no-inline -i "$jdata" --stdio --no-children --sort dso,sym -g none 2>/dev/null |
			awk '$2 ~ /^jitted-/ { s = $0; sub(/.*\[\.\] /, "", s); if (s ~ /\(/) printf "    %7s  %s\n", $1, s }' |
			head -n 8 || true
		say "and counting what they call (perf report --children: it needs whole stacks):"
		"${perf_cmd[@]}" report -f --no-inline -i "$jdata" --stdio --children --sort sym -g none 2>/dev/null |
			awk '/\[\.\] / { s = $0; sub(/.*\[\.\] /, "", s); if (s ~ /\(/) printf "    %7s  %s\n", $1, s }' |
			head -n 5 || true
		# Of the samples whose top frame is Java code (a method or the
		# interpreter), those whose stack reaches call_stub, the stub of
		# the thread's first Java call; and one of those with a compiled
		# method on top and a Workload method in it, down to the thread's
		# start in libc, short enough to read, with the most distinct Java
		# methods.
		"${perf_cmd[@]}" script -f --no-inline -i "$jdata" -F ip,sym,symoff,dso 2>/dev/null |
			awk -v out="$KIT_DIR/stack" -v work=' (Arith|Strs|Colls|Recur|Bigs|Funcs|Rx)\\.' '
				function java(l) { return l ~ /jitted-[^\/]*\.so\)$/ && l ~ /\)\+0x[0-9a-f]+ \(/ }
				function sample(   i, reach, nj, k, w) {
					if (!n) return
					if (!java(f[1]) && f[1] !~ / Interpreter\+0x/) return
					tot++
					for (i = 1; i <= n; i++) if (f[i] ~ / call_stub\+0x/) reach = 1
					if (!reach) return
					walked++
					if (n > 24 || !java(f[1]) || f[n] !~ /\/libc[.-]/) return
					split("", seen)
					for (i = 1; i <= n; i++) {
						k = f[i]
						sub(/^[ \t]*[0-9a-f]+ /, "", k)
						sub(/\+0x[0-9a-f]+ \(.*/, "", k)
						if (java(f[i]) && !(k in seen)) { seen[k] = 1; nj++ }
						if (java(f[i]) && f[i] ~ work) w = 1
					}
					if (!w || nj <= best) return
					best = nj
					bn = n
					for (i = 1; i <= n; i++) b[i] = f[i]
				}
				/^$/ { sample(); n = 0; next }
				{ f[++n] = $0 }
				END {
					sample()
					printf "%d %d\n", walked, tot
					for (i = 1; i <= bn; i++) {
						l = b[i]
						sub(/^[ \t]*[0-9a-f]+ /, "", l)
						if (match(l, /\([^()]*\)$/)) {
							d = substr(l, RSTART + 1, RLENGTH - 2)
							sub(/.*\//, "", d)
							l = substr(l, 1, RSTART - 1) "(" d ")"
						}
						print l >out
					}
				}' >"$KIT_DIR/walked" || true
		read -r walked java_topped <"$KIT_DIR/walked" || true
		say "${walked:-0} of the ${java_topped:-0} samples topped by Java code reach call_stub (the"
		say "thread's first Java call): perf walked their whole stacks"
		if [ -s "$KIT_DIR/stack" ]; then
			say "one of them (perf script -i perf.jit.data), innermost first:"
			sed 's/^/    /' "$KIT_DIR/stack"
		fi
	fi
fi

step "5. bpftrace: the JVM's user stacks from eBPF, ustack(perf), 3 s"
if ! command -v bpftrace >/dev/null; then
	say "bpftrace is not installed: skipped (apt-get install bpftrace, about"
	say "30 MB with LLVM, to see the same names from eBPF)"
else
	if [ "$mode" = container ]; then
		# The container's PID namespace: bpftrace's `pid` is the kernel's
		# global pid, which differs from $jvm when this runs in a container.
		filter="curtask->nsproxy->pid_ns_for_children->ns.inum == $(stat -L -c %i "/proc/$jvm/ns/pid")"
	else
		filter="pid == $jvm"
	fi
	prog="profile:hz:99 /$filter/ { @[ustack(perf, 5)] = count(); }
		interval:s:3 { print(@, 2); clear(@); exit(); }"
	say "bpftrace -e 'profile:hz:99 /<the JVM>/ { @[ustack(perf, 5)] = count(); } ...'"
	say "(the two most frequent stacks; bpftrace reads the same map perf does)"
	say "bpftrace's ustack walks frame pointers: a default-flags JVM shows its top frame;"
	say "perf --call-graph dwarf above has the whole stack"
	if timeout 30 bpftrace -e "$prog" >"$KIT_DIR/bpftrace.out" 2>"$KIT_DIR/bpftrace.err" &&
		grep -q '^@\[' "$KIT_DIR/bpftrace.out"; then
		grep -v -e '^$' -e '^Attaching ' "$KIT_DIR/bpftrace.out" | sed 's/^[[:space:]]*/    /'
	else
		say "bpftrace cannot run here: skipped; it said:"
		grep -v RLIMIT_MEMLOCK "$KIT_DIR/bpftrace.err" | head -n 3 | sed 's/^/    /'
		[ -s "$KIT_DIR/bpftrace.out" ] && indent "$KIT_DIR/bpftrace.out" 3
	fi
fi

# ---------------------------------------------------------------- resolve
# Candidates: every sampled JIT address, else (no perf) 32 addresses spread
# over each Workload method of the map.  All are resolved once, quietly; the
# demo shows three named ones from different methods and one whose code the
# JIT inlined, resolved again in one visible command.
# spread: 32 addresses spread over each of the first 40 Workload methods of
# the map.
spread() {
	grep -E ' [a-z]+ (Arith|Strs|Colls|Recur|Bigs|Funcs|Rx)\.' "$map" | head -n 40 |
		while read -r start size _; do
			for i in $(seq 0 31); do
				printf '0x%x\n' $((0x$start + 0x$size * i / 32))
			done
		done || true
}
# inlined_addrs [ERE]: from `jsym resolve` output (an address line, then
# its stack indented, innermost first), the addresses whose stack has an
# inlined frame (matching ERE, when given).
inlined_addrs() {
	awk -v re="${1:-.}" '/^0x/ {a = $1; next}
		/^ +.*\[inlined\]/ && a != "" && $0 ~ re {print a; a = ""}'
}
if [ ! -s "$sampled" ]; then
	spread >"$sampled"
	src="addresses spread over Workload methods of the map (no perf samples)"
else
	src="addresses perf sampled"
fi
# Most often sampled first, so the three named ones are from hot methods.
sort "$sampled" | uniq -c | sort -k1,1nr -k2 | awk '{print $2}' |
	"$J" resolve --pid "$jvm" >"$KIT_DIR/candidates" 2>&1 || true
named=$(grep -E '  [^ ].* (Arith|Strs|Colls|Recur|Bigs|Funcs|Rx)\.[A-Za-z0-9_$]+\(.*\)\+0x[0-9a-f]+  \[class ' "$KIT_DIR/candidates" |
	sed 's/\(^[^ ]*\) .*\[class \([^,]*\), method \([^,]*\),.*/\1 \2.\3/' |
	awk '!seen[$2]++ {print $1}' | head -n 3 || true)
inl=$(inlined_addrs '(Arith|Strs|Colls|Recur|Bigs|Funcs|Rx)\.' <"$KIT_DIR/candidates" | head -n 1 || true)
[ -n "$inl" ] || inl=$(inlined_addrs <"$KIT_DIR/candidates" | head -n 1 || true)
if [ -z "$inl" ]; then
	# No sample fell in inlined code: look for some in the Workload methods.
	inl=$(spread | "$J" resolve --pid "$jvm" 2>/dev/null | inlined_addrs | head -n 1 || true)
	[ -z "$inl" ] || src="$src, and one in inlined code found in the map"
fi
# shellcheck disable=SC2086 # one address per word
addrs=$(printf '%s\n' $named $inl | grep . | awk '!seen[$0]++' | tr '\n' ' ' || true)

step "6. jsym resolve --pid $jvm ADDR...   ($src)"
say "the journal's names, with class, method, signature, range, and for an"
say "address in inlined code, the inlined methods innermost first:"
if [ -z "$addrs" ]; then
	fail "jsym resolve named none of $(sort -u "$sampled" | grep -c .) candidate addresses"
	indent "$KIT_DIR/candidates" 5
else
	# shellcheck disable=SC2086
	if "$J" resolve --pid "$jvm" $addrs >"$KIT_DIR/resolve.out" 2>&1; then
		cat "$KIT_DIR/resolve.out"
	else
		indent "$KIT_DIR/resolve.out"
		fail "jsym resolve"
	fi
	[ -n "$inl" ] || say "(no address in inlined code found this time)"
fi

echo
if [ "$failed" -ne 0 ]; then
	echo "jsym demo: FAILED (see above) after $((SECONDS - start_secs)) s"
	exit 1
fi
if [ "$mode" = container ]; then
	echo "demo done in $((SECONDS - start_secs)) s: the container is stopped and $KIT_DIR removed"
else
	echo "demo done in $((SECONDS - start_secs)) s (host JVM: $why_host): the JVM is stopped and its files removed"
fi
