#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 61-install-tree.sh - `make install` makes a tree that works on its own,
# as the root of a debug image (deploy/Dockerfile), and `make uninstall`
# takes back exactly what it put.
#
#   - install into a temporary DESTDIR (PREFIX=/usr/local): exactly the
#     documented files and modes; bin/jsym is static; the lookup library's
#     public header, libjsym-lookup.so.1 (+ the .so link) and pkg-config
#     file: docs/examples/lookup_example.c and a small program build with
#     them alone, link the .so.1 and run
#   - the tree is copied elsewhere and becomes the whole root file system of
#     a sidecar (kit_sidecar --rootfs): nothing else is there, no libc
#   - `kubectl debug --profile=general`: the sidecar shares the pod's pid
#     namespace with the runtime's default capabilities plus SYS_PTRACE;
#     /usr/local/bin/jsym attach 1 copies the agent into a Debian container
#     JVM (uid 1000) and the JVM writes its map; `jsym list` sees it
#   - the DaemonSet (deploy/kubernetes/daemonset.yaml): a sidecar in the
#     host's pid namespace with exactly the manifest's capabilities attaches
#     a container JVM by its host pid
#   - `--profile=restricted` (no capabilities): exit 2, a message naming the
#     missing capability, nothing written in the container
#   - make uninstall: DESTDIR holds directories only
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, chown"
[ -x "$JSYM_MUSL_BUILD/jsym" ] || t_skip "jsym not built (make)"
command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null ||
	t_skip "python3-yaml missing (mk/deps.sh test installs it)"

dest=$KIT_DIR/dest
image=$KIT_DIR/image
prefix=/usr/local
# Docker's and containerd's default capabilities (kit_sidecar's default).
runtime_caps=chown,dac_override,fowner,fsetid,kill,setgid,setuid,setpcap,net_bind_service,net_raw,sys_chroot,mknod,audit_write,setfcap

t_case install
t_run make -s -C "$JSYM_ROOT" install PREFIX=$prefix DESTDIR="$dest"
t_expect_rc 0
want="bin/jsym 755
include/jsym/lookup.h 644
lib/jsym/glibc/jsym-probe 755
lib/jsym/glibc/libjsym-agent.so 755
lib/jsym/musl/jsym-probe 755
lib/jsym/musl/libjsym-agent.so 755
lib/libjsym-lookup.a 644
lib/libjsym-lookup.so -> libjsym-lookup.so.1
lib/libjsym-lookup.so.1 644
lib/pkgconfig/jsym-lookup.pc 644
share/doc/jsym/LICENSE 644
share/man/man1/jsym.1 644"
got=$(cd "$dest$prefix" && find . -not -type d -printf '%P %m %l\n' |
	awk '$3 != "" {print $1, "->", $3; next} {print $1, $2}' | sort)
t_eq "$got" "$want" "exactly the documented files, with their modes"
t_eq "$(find "$dest" -mindepth 1 -maxdepth 1 -printf '%P')" usr "nothing outside PREFIX"
t_check "the licence is the repository's Apache-2.0 text" \
	eval "cmp -s '$dest$prefix/share/doc/jsym/LICENSE' '$JSYM_ROOT/LICENSE' && grep -q 'Apache License' '$JSYM_ROOT/LICENSE' && grep -q 'Version 2.0, January 2004' '$JSYM_ROOT/LICENSE'"
t_check "bin/jsym is the musl build" cmp -s "$dest$prefix/bin/jsym" "$JSYM_MUSL_BUILD/jsym"
t_check "bin/jsym is static (no program interpreter)" \
	eval "! readelf -lW '$dest$prefix/bin/jsym' | grep -q INTERP"
for l in glibc musl; do
	for f in libjsym-agent.so jsym-probe; do
		t_check "lib/jsym/$l/$f is the $l build" cmp -s "$dest$prefix/lib/jsym/$l/$f" "$JSYM_ROOT/$l-build/$f"
	done
done
t_run "$dest$prefix/bin/jsym" --version
t_expect_rc 0

t_case pkg-config
# Only the public API is installed: <jsym/lookup.h>.  A journal that is not
# there is -ENOENT, with *out NULL (the header's conventions).
cat >"$KIT_DIR/consumer.c" <<'C'
#include <errno.h>
#include <string.h>
#include <jsym/lookup.h>
int main(void)
{
	jsym_lookup *lk = (jsym_lookup *)1;
	int rc = jsym_lookup_open_files(&lk, "/nonexistent/jsym-1.journal", NULL);
	return !(rc == -ENOENT && lk == NULL && strlen(jsym_lookup_version()) > 0);
}
C
pc="pkg-config --define-variable=prefix=$dest$prefix"
export PKG_CONFIG_PATH=$dest$prefix/lib/pkgconfig
api=$(awk '/define JSYM_LOOKUP_VERSION_MAJOR/ {M = $3} /define JSYM_LOOKUP_VERSION_MINOR/ {m = $3}
	END {print M "." m}' "$dest$prefix/include/jsym/lookup.h")
t_eq "$($pc --modversion jsym-lookup)" "$api" "the .pc version is the public API's (lookup.h)"
t_run bash -c "gcc -Wall -Werror -o '$KIT_DIR/consumer' '$KIT_DIR/consumer.c' \$($pc --cflags --libs jsym-lookup)"
t_expect_rc 0
t_run bash -c "gcc -std=c99 -Wall -Wextra -Werror -o '$KIT_DIR/example' '$JSYM_ROOT/docs/examples/lookup_example.c' \$($pc --cflags --libs jsym-lookup)"
t_expect_rc 0
t_check "the programs link the .so.1 (soname)" eval \
	"readelf -d '$KIT_DIR/consumer' | grep -q 'NEEDED.*\[libjsym-lookup\.so\.1\]' &&
	 readelf -d '$KIT_DIR/example' | grep -q 'NEEDED.*\[libjsym-lookup\.so\.1\]'"
t_run env LD_LIBRARY_PATH="$dest$prefix/lib" "$KIT_DIR/consumer"
t_expect_rc 0
printf '7f0000001000 100 void Installed.check()\n' >"$KIT_DIR/perf-1.map"
t_run env LD_LIBRARY_PATH="$dest$prefix/lib" "$KIT_DIR/example" --map "$KIT_DIR/perf-1.map" 7f0000001010
t_expect_rc 0
t_expect_out 'Installed\.check'
unset PKG_CONFIG_PATH

t_case the-tree-alone-is-a-root
# A copy somewhere else: jsym finds its builds relative to itself.
cp -a "$dest" "$image"
t_eq "$(find "$image" -name 'ld-*' -o -name 'libc.so*' | wc -l)" 0 "no loader, no libc in the image"
classes=$(kit_java_build)
rootfs=$(kit_rootfs debian)
start() {
	local pid
	pid=$(kit_start "$1" "$rootfs" --uid 1000 --gid 1000 --bind "$classes:/opt/jsym-java:ro" \
		-- "$KIT_CT_JAVA" -Xmx128m -cp /opt/jsym-java Workload 0) || t_abort "kit_start $1"
	kit_wait_jvm "$pid" 60 || t_abort "container JVM $1 did not start: $(cat "$KIT_DIR/$1.log")"
	echo "$pid"
}
map_of() { # PID: wait up to 5 s for the JVM's map in its container
	local i
	for i in $(seq 50); do
		[ -s "/proc/$1/root/tmp/perf-1.map" ] && return 0
		sleep 0.1
	done
	return 1
}

t_case kubectl-debug-general
ct=$(start pod1)
t_run --as "sidecar(image, general) jsym attach 1" \
	kit_sidecar "$ct" --rootfs "$image" --caps "$runtime_caps,sys_ptrace" -- $prefix/bin/jsym attach 1
t_expect_rc 0
t_expect_out 'agent loaded \(HotSpot 17[^,]*, glibc build, copied to /tmp/jsym-[0-9a-f]{12}-[0-9]+-[0-9]+/glibc/libjsym-agent\.so\)'
t_check "the JVM's map in its container" map_of "$ct"
t_run --as "sidecar(image, general) jsym list" \
	kit_sidecar "$ct" --rootfs "$image" --caps "$runtime_caps,sys_ptrace" -- $prefix/bin/jsym list
t_expect_rc 0
t_expect_out '^1 +1 +1000 +HotSpot +17'
t_run --as "sidecar(image, general) jsym attach --all" \
	kit_sidecar "$ct" --rootfs "$image" --caps "$runtime_caps,sys_ptrace" -- $prefix/bin/jsym attach --all
t_expect_rc 0
t_expect_out '1 of 1|attached'

t_case daemonset-capabilities
caps=$(python3 -c '
import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d.get("kind") == "DaemonSet":
        c = d["spec"]["template"]["spec"]["containers"][0]["securityContext"]["capabilities"]
        print(",".join(x.lower() for x in c["add"]))' "$JSYM_ROOT/deploy/kubernetes/daemonset.yaml")
t_check "the manifest lists capabilities ($caps)" test -n "$caps"
ct2=$(start node1)
# hostPID: the sidecar joins the pid namespace of this script's shell.
t_run --as "sidecar(image, hostPID, $caps) jsym attach $ct2" \
	kit_sidecar $$ --rootfs "$image" --caps "$caps" -- $prefix/bin/jsym attach "$ct2"
t_expect_rc 0
t_expect_out "$ct2: agent loaded .*copied to /tmp/jsym-"
t_check "the JVM's map in its container" map_of "$ct2"

t_case kubectl-debug-restricted
ct3=$(start pod3)
t_run --as "sidecar(image, no capabilities) jsym attach 1" \
	kit_sidecar "$ct3" --rootfs "$image" --caps none -- $prefix/bin/jsym attach 1
t_expect_rc 2
t_expect_err 'CAP_[A-Z_]+'
t_eq "$(ls -a "/proc/$ct3/root/tmp" | grep -c '^jsym-')" 0 "nothing written in the container's /tmp"

t_case uninstall
t_run make -s -C "$JSYM_ROOT" uninstall PREFIX=$prefix DESTDIR="$dest"
t_expect_rc 0
t_eq "$(find "$dest" -not -type d)" "" "DESTDIR holds directories only"
t_check "the .so link is gone" eval "[ ! -L '$dest$prefix/lib/libjsym-lookup.so' ]"
t_check "lib/jsym, include/jsym and share/doc/jsym are gone" \
	eval "[ ! -e '$dest$prefix/lib/jsym' ] && [ ! -e '$dest$prefix/include/jsym' ] && [ ! -e '$dest$prefix/share/doc/jsym' ]"
t_finish
