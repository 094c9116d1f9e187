#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 58-deploy-probe-confined.sh - the libc probe runs code the container
# controls (its loader, its libc, anything its /etc/ld.so.preload names), so
# it must run with nothing of the host's: no capabilities even when the JVM
# runs as root, no_new_privs (a set-uid file in the container gives
# nothing), in the JVM's pid and net namespaces (no host pid to signal or
# ptrace, no host loopback), outside jsym's session (no host terminal to
# type into) and with no descriptor jsym inherited from its caller.
#
# The container (root, its own net ns) plants /etc/ld.so.preload naming a
# library that records what it sees; jsym attach then runs the probe, and
# the record must show none of the host's.  The same for a memfd delivery.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces, a root JVM"
J=$JSYM_BUILD/jsym
[ -x "$J" ] || t_skip "jsym not built (make)"
command -v gcc >/dev/null || t_skip "no gcc to build the recording library"
classes=$(kit_java_build)
rootfs=$(kit_rootfs debian)

evil=$KIT_DIR/evil
mkdir -p "$evil"
cat >"$evil/evil.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
struct hdr { unsigned v; int pid; };
struct dat { unsigned e, p, i; };
__attribute__((constructor)) static void evidence(void)
{
	struct hdr h = { 0x20080522u, 0 };
	struct dat d[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	char self[32], fds[256] = "", line[512];
	struct if_nameindex *ifs = if_nameindex();
	int nif = 0, fd;
	ssize_t n = readlink("/proc/self", self, sizeof(self) - 1);

	if (n > 0)
		self[n] = 0;
	else
		strcpy(self, "none");
	syscall(SYS_capget, &h, d);
	/* open descriptors, but the memfds a memfd probe runs from */
	for (int i = 3; i < 256; i++) {
		char lp[64], to[64] = "";

		if (fcntl(i, F_GETFD) < 0)
			continue;
		snprintf(lp, sizeof(lp), "/proc/self/fd/%d", i);
		if (readlink(lp, to, sizeof(to) - 1) > 0 && !strncmp(to, "/memfd:jsym-", 12))
			continue;
		snprintf(fds + strlen(fds), sizeof(fds) - strlen(fds), "%d,", i);
	}
	for (struct if_nameindex *p = ifs; p && p->if_index; p++)
		nif++;
	fd = open("/tmp/probe-evidence", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "caps %08x%08x %08x%08x self %s sid %d nnp %d ifs %d fds %s\n",
		     d[1].e, d[0].e, d[1].p, d[0].p, self, (int)getsid(0),
		     prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), nif, fds[0] ? fds : "-");
	(void)!write(fd, line, (size_t)n);
	close(fd);
}
C
gcc -shared -fPIC -O1 -o "$evil/evil.so" "$evil/evil.c" || t_abort "cannot build the recording library"

start() {
	local name=$1 pid
	shift
	pid=$(kit_start "$name" "$rootfs" --net --bind "$classes:/opt/jsym-java:ro" \
		--bind "$evil:/opt/evil:ro" "$@" \
		-- "$KIT_CT_JAVA" -Xmx96m -cp /opt/jsym-java Workload 0)
	kit_wait_jvm "$pid" 60 || t_abort "container JVM $name did not start: $(cat "$KIT_DIR/$name.log")"
	echo "$pid"
}
my_sid=$(ps -o sid= -p $$ | tr -d ' ')
host_ifs=$(ls /sys/class/net | wc -l)

# confined CT: every line the planted library wrote shows nothing of the host.
confined() {
	local ct=$1 ev="/proc/$1/root/tmp/probe-evidence" line
	t_check "the planted library ran in the probe" test -s "$ev"
	while read -r line; do
		t_log "probe saw: $line"
		set -- $line
		t_eq "$2 $3" "0000000000000000 0000000000000000" "no capabilities (effective, permitted) in the probe of a root JVM"
		t_check "the probe is in the JVM's pid namespace (its /proc/self resolves)" test "$5" != none
		t_check "the probe is out of jsym's session" test "$7" != "$my_sid"
		t_eq "$9" 1 "no_new_privs in the probe"
		if [ "$host_ifs" -gt 1 ]; then
			t_eq "${11}" 1 "the probe is in the JVM's net namespace (lo only)"
		fi
		t_eq "${13}" - "no descriptor of jsym's caller in the probe"
	done <"$ev"
}

t_case copy
ct=$(start pc1)
echo /opt/evil/evil.so >"/proc/$ct/root/etc/ld.so.preload"
t_run timeout 60 "$J" attach -v --delivery copy "$ct" 9</etc/hostname
t_expect_rc 0
confined "$ct"
kit_stop pc1

t_case memfd
ct=$(start pc2)
echo /opt/evil/evil.so >"/proc/$ct/root/etc/ld.so.preload"
t_run timeout 60 "$J" attach -v --delivery memfd "$ct" 9</etc/hostname
t_expect_rc 0
confined "$ct"
kit_stop pc2

t_finish
