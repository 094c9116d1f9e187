# SPDX-License-Identifier: Apache-2.0
# tests/kit/kit_qemu.sh - kit_qemu_ready: an arm64 userland on this machine.
# Sourced by tests/kit/kit.sh.
#
# The arm64 scenarios (tests/integration/8*-arm64-*.sh) run the aarch64
# builds of jsym and an arm64 JDK (the debian-arm64 root) under QEMU's
# user-mode emulator, started by the kernel through binfmt_misc.  What they
# need, in order:
#   1. qemu-user-static >= 8 and the arm64 cross toolchains: mk/deps.sh
#      test aarch64 installs them (adding bookworm-backports to apt's sources
#      and the arm64 dpkg architecture when missing, and saying so);
#   2. binfmt_misc mounted, and the aarch64 handler registered from the
#      package's /usr/lib/binfmt.d/qemu-aarch64.conf with the F flag (the
#      kernel opens the interpreter at registration, so it runs inside
#      container roots that have no qemu).  The registration is the
#      machine's, not the test's: it stays after the run, like an installed
#      package would leave it;
#   3. the aarch64 trees: make ARCH=aarch64.
# On an aarch64 machine none of this is needed and kit_qemu_ready says yes.

# kit_qemu_ready : 0 when aarch64 programs run here and the aarch64 trees
# are built; else 1 with the reason in KIT_QEMU_WHY (for t_skip).
kit_qemu_ready() {
	local handler=/proc/sys/fs/binfmt_misc/qemu-aarch64
	local conf=/usr/lib/binfmt.d/qemu-aarch64.conf
	KIT_QEMU_WHY=
	if [ "$(uname -m)" != aarch64 ]; then
		if [ "$(id -u)" -ne 0 ]; then
			KIT_QEMU_WHY="installing qemu-user and registering binfmt_misc need root"
			return 1
		fi
		if ! bash "$JSYM_ROOT/mk/deps.sh" test aarch64 >&2; then
			KIT_QEMU_WHY="cannot install qemu-user-static >= 8 and the arm64 cross toolchains (mk/deps.sh test aarch64)"
			return 1
		fi
		if ! mountpoint -q /proc/sys/fs/binfmt_misc &&
			! mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null; then
			KIT_QEMU_WHY="cannot mount binfmt_misc on /proc/sys/fs/binfmt_misc (a container without it?)"
			return 1
		fi
		if [ ! -e "$handler" ]; then
			[ -r "$conf" ] || { KIT_QEMU_WHY="$conf missing (qemu-user-static)"; return 1; }
			kit_log "registering the qemu-aarch64 binfmt_misc handler ($conf)"
			if ! cat "$conf" >/proc/sys/fs/binfmt_misc/register 2>/dev/null; then
				KIT_QEMU_WHY="cannot register $conf with binfmt_misc"
				return 1
			fi
		fi
		if [ "$(head -n 1 "$handler")" != enabled ]; then
			KIT_QEMU_WHY="the qemu-aarch64 binfmt_misc handler is disabled ($handler)"
			return 1
		fi
		if ! grep -q '^flags:.*F' "$handler"; then
			KIT_QEMU_WHY="the qemu-aarch64 binfmt_misc handler lacks the F flag (containers could not run it)"
			return 1
		fi
	fi
	if ! make -s -C "$JSYM_ROOT" ARCH=aarch64 >&2; then
		KIT_QEMU_WHY="make ARCH=aarch64 failed"
		return 1
	fi
	if [ "$("$JSYM_ROOT/musl-build-aarch64/jsym" --version 2>/dev/null | head -c 4)" != jsym ]; then
		KIT_QEMU_WHY="the aarch64 jsym does not run under qemu"
		return 1
	fi
}
