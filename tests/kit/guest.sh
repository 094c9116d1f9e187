#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/kit/guest.sh - a cgroup v2 Linux guest under QEMU, for the scenarios
# this host's cgroup v1 cannot run (docs/testing.md, "The cgroup v2 guest").
#
#   guest.sh build          build the guest once and cache it machine-wide
#                           (under $GUEST_CACHE, /var/cache/jsym/guest);
#                           print its directory
#   guest.sh run [OPTIONS] SCRIPT
#                           boot the cached guest (building it first if
#                           needed), run the shell script SCRIPT in it as
#                           root, power off; print what SCRIPT printed and
#                           exit with its status
#     --share DIR           the directory the guest sees read-only at /jsym
#                           and starts SCRIPT in ($JSYM_ROOT, else the clone
#                           this script is in)
#     --out DIR             a directory the guest sees writable at /out
#                           (for files SCRIPT hands back; default: none)
#     --timeout SECONDS     the whole boot-run-poweroff bound (300)
#     --serial FILE         keep the raw serial console there (default: a
#                           temporary file, shown in part when the guest fails)
#
# Why a guest, and why TCG: this host's controllers are bound to cgroup v1,
# and its /dev/kvm is PVM, on which a stock kernel crawls (../shared notes,
# docs/testing.md).  QEMU's TCG emulation boots Debian's own kernel to a shell
# in about 5 s.  The guest is:
#   vmlinuz     Debian 12's linux-image (apt-get download, dpkg-deb -x)
#   initrd.gz   busybox and the few modules the root needs (virtio, ext4,
#               9p), loaded in dependency order; it mounts the root, puts
#               the run's PID 1 script there (jsym-guest-init, written by
#               each run: changing it needs no new image) and switch_root's
#   root.img    a raw ext4 image of a debootstrap'ed Debian 12 with
#               systemd, openjdk-17-jre-headless, podman, crun, containerd,
#               and the kernel's modules; booted with snapshot=on, so every
#               run starts from the same image and nothing is written back
# jsym-guest-init mounts cgroup2 (nothing else: no v1 hierarchy), the shares,
# runs SCRIPT with its output on the console, prints JSYM-GUEST-EXIT=<status>
# and powers off.  The run's status is read from that marker; no marker (a
# crash, the timeout) is a failure of the guest, said as such.
set -euo pipefail

GUEST_CACHE=${GUEST_CACHE:-/var/cache/jsym/guest}
# Bump when what the build makes changes: the cache is keyed by it and the
# kernel's version, so an old image is never taken for a new recipe.
GUEST_RECIPE=2
here=$(cd "$(dirname "$0")" && pwd)

say() { echo "guest: $*" >&2; }
die() {
	say "$*"
	exit 2
}

# The kernel Debian's linux-image-amd64 points at now (linux-image-6.1.0-N-amd64).
kernel_pkg() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n 1
}

# The Debian mirror the host uses; KIT_DEBIAN_MIRROR overrides it (as for
# the container roots, tests/kit/rootfs.sh).
mirror() {
	local m=${KIT_DEBIAN_MIRROR:-}
	[ -n "$m" ] || m=$(grep -hoE 'https?://[^ ]*/debian/?( |$)' /etc/apt/sources.list \
		/etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
		head -n 1 | tr -d ' ' || true)
	echo "${m:-http://deb.debian.org/debian}"
}

# The modules the initramfs loads, each after what it depends on, from the
# kernel tree's modules.dep (made by depmod -b); built-in ones are skipped.
# ext4 asks for crc32c through the crypto API, not a symbol: named here.
want_modules=(virtio_pci virtio_blk crc32c_generic ext4 9p 9pnet_virtio)
module_order() {
	local tree=$1 kver=$2 seen=" " m
	local dep=$tree/lib/modules/$kver/modules.dep
	visit() {
		local name=$1 path deps d
		path=$(awk -F: -v n="$name" '{
			b = $1; sub(/.*\//, "", b); sub(/\.ko(\.[a-z]+)?$/, "", b)
			gsub(/-/, "_", b)
			if (b == n) { print $1; exit }
		}' "$dep")
		if [ -z "$path" ]; then
			grep -q "/$name.ko" "$tree/lib/modules/$kver/modules.builtin" 2>/dev/null ||
				grep -q "/${name//_/-}.ko" "$tree/lib/modules/$kver/modules.builtin" 2>/dev/null ||
				die "module $name is neither in $dep nor built in"
			return 0
		fi
		case "$seen" in *" $path "*) return 0 ;; esac
		deps=$(grep -m1 "^$path:" "$dep" | cut -d: -f2)
		for d in $deps; do
			d=${d##*/}
			d=${d%%.ko*}
			visit "${d//-/_}"
		done
		seen="$seen$path "
		echo "$path"
	}
	for m in "${want_modules[@]}"; do visit "$m"; done
}

# The busybox initramfs: modules, mount the root, switch_root.
make_initrd() {
	local k=$1 kver=$2 out=$3 ir m
	ir=$(mktemp -d)
	mkdir -p "$ir"/{bin,dev,proc,sys,newroot,lib/modules}
	install -m 755 /bin/busybox "$ir/bin/busybox"
	module_order "$k" "$kver" >"$ir/modules.order"
	while read -r m; do
		cp "$k/lib/modules/$kver/$m" "$ir/lib/modules/"
	done <"$ir/modules.order"
	sed -i 's,.*/,,' "$ir/modules.order"
	say "initramfs modules: $(tr '\n' ' ' <"$ir/modules.order")"
	cat >"$ir/init" <<-'EOF'
		#!/bin/busybox sh
		/bin/busybox --install -s /bin
		mount -t proc proc /proc
		mount -t sysfs sysfs /sys
		mount -t devtmpfs devtmpfs /dev
		for m in $(cat /modules.order); do
			insmod "/lib/modules/$m" || echo "guest initramfs: insmod $m failed"
		done
		i=0
		while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		if ! mount -t ext4 /dev/vda /newroot; then
			echo "guest initramfs: cannot mount the root /dev/vda"
			echo o >/proc/sysrq-trigger
		fi
		# PID 1's script comes with each run (tests/kit/guest.sh run), so
		# changing it needs no new image; the root is a snapshot
		mkdir -p /run-share
		if mount -t 9p -o trans=virtio,version=9p2000.L,ro run /run-share; then
			cp /run-share/guest-init /newroot/sbin/jsym-guest-init
			chmod 755 /newroot/sbin/jsym-guest-init
			umount /run-share
		fi
		init=/sbin/jsym-guest-init
		for a in $(cat /proc/cmdline); do
			case $a in jsym.init=*) init=${a#jsym.init=} ;; esac
		done
		umount /proc /sys
		mount --move /dev /newroot/dev
		exec switch_root /newroot "$init"
	EOF
	chmod 755 "$ir/init"
	(cd "$ir" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) >"$out"
	rm -rf "$ir"
}

# What PID 1 is in the guest: cgroup2 alone at /sys/fs/cgroup, the shares,
# the script, the marker, power off.
write_guest_init() {
	cat >"$1" <<-'EOF'
		#!/bin/sh
		# SPDX-License-Identifier: Apache-2.0
		# PID 1 of the jsym test guest (tests/kit/guest.sh writes it)
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
		export PATH HOME=/root LANG=C.UTF-8
		mount -t proc proc /proc
		mount -t sysfs sysfs /sys
		mount -t cgroup2 -o nsdelegate cgroup2 /sys/fs/cgroup
		mkdir -p /dev/pts /dev/shm
		mount -t devpts devpts /dev/pts
		mount -t tmpfs -o mode=1777 tmpfs /dev/shm
		mount -t tmpfs -o mode=755 tmpfs /run
		mount -t tmpfs -o mode=1777 tmpfs /tmp
		echo 1 >/proc/sys/kernel/sysrq
		dmesg -n 1
		hostname jsym-guest
		mount -o remount,rw /
		mkdir -p /jsym /out /run/jsym-guest
		mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 run /run/jsym-guest
		mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 host0 /jsym
		case " $(cat /proc/cmdline) " in
		*" jsym.out "*) mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /out ;;
		esac
		ip link set lo up
		echo "JSYM-GUEST-BEGIN"
		(cd /jsym && sh /run/jsym-guest/script.sh) </dev/null
		echo "JSYM-GUEST-EXIT=$?"
		cd /
		umount /out 2>/dev/null
		sync
		echo o >/proc/sysrq-trigger
		sleep 10
	EOF
	chmod 755 "$1"
}

build() {
	local pkg kver dir tmp k r size old
	command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (mk/deps.sh test)"
	command -v debootstrap >/dev/null || die "debootstrap missing (mk/deps.sh demo)"
	[ -x /bin/busybox ] || die "/bin/busybox missing (mk/deps.sh test: busybox-static)"
	pkg=$(kernel_pkg)
	[ -n "$pkg" ] || die "apt-cache knows no linux-image-amd64 (apt-get update?)"
	kver=${pkg#linux-image-}
	dir=$GUEST_CACHE/$kver-r$GUEST_RECIPE
	if [ -f "$dir/ok" ]; then
		echo "$dir"
		return
	fi
	[ "$(id -u)" -eq 0 ] || die "building the guest needs root (debootstrap, chroot)"
	mkdir -p "$GUEST_CACHE"
	exec 8>"$GUEST_CACHE/.build.lock"
	flock 8
	if [ -f "$dir/ok" ]; then
		echo "$dir"
		return
	fi
	tmp=$(mktemp -d "$GUEST_CACHE/.build.XXXXXX")
	# shellcheck disable=SC2064 # expand $tmp now
	trap "rm -rf '$tmp'" EXIT
	say "building $dir (first build takes minutes)"
	say "kernel: apt-get download $pkg"
	(cd "$tmp" && apt-get download "$pkg" >/dev/null 2>&1) ||
		(cd "$tmp" && apt-get update -qq && apt-get download "$pkg" >/dev/null) ||
		die "cannot download $pkg"
	k=$tmp/kernel
	dpkg-deb -x "$tmp"/"$pkg"_*.deb "$k"
	depmod -b "$k" "$kver"
	make_initrd "$k" "$kver" "$tmp/initrd.gz"
	cp "$k/boot/vmlinuz-$kver" "$tmp/vmlinuz"

	r=$tmp/root
	say "root: debootstrap bookworm from $(mirror), then the JRE, podman, crun, containerd"
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare --mount --propagation private bash -euo pipefail -c '
		r=$1 mirror=$2
		debootstrap --variant=minbase --include=systemd-sysv,kmod,iproute2,procps \
			bookworm "$r" "$mirror" >&2
		printf "#!/bin/sh\nexit 101\n" >"$r/usr/sbin/policy-rc.d"
		chmod 755 "$r/usr/sbin/policy-rc.d"
		cp /etc/resolv.conf "$r/etc/resolv.conf"
		mount -t proc proc "$r/proc"
		in_root() {
			chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
				DEBIAN_FRONTEND=noninteractive HOME=/root "$@"
		}
		in_root apt-get -q update >&2
		in_root apt-get -q install -y --no-install-recommends \
			openjdk-17-jre-headless podman crun catatonit containerd >&2
		in_root apt-get clean
		in_root /usr/lib/jvm/java-17-openjdk-amd64/bin/java -Xshare:auto -version >&2
		umount "$r/proc"
		rm -rf "$r"/var/lib/apt/lists/* "$r/usr/sbin/policy-rc.d"
		: >"$r/etc/resolv.conf"
	' guest-root "$r" "$(mirror)"
	mkdir -p "$r/lib/modules"
	cp -a "$k/lib/modules/$kver" "$r/lib/modules/"
	echo jsym-guest >"$r/etc/hostname"
	# the size of the tree plus room for what a run writes (snapshot=on:
	# discarded at power-off)
	size=$(( $(du -sm "$r" | cut -f1) + 1024 ))
	say "root image: mkfs.ext4 -d ($size MiB)"
	mkfs.ext4 -q -F -L jsym-guest -d "$r" "$tmp/root.img" "${size}M"
	rm -rf "$r" "$k" "$tmp"/*.deb
	chmod 755 "$tmp"
	echo "$pkg $(date -u +%FT%TZ)" >"$tmp/ok"
	rm -rf "$dir"
	mv "$tmp" "$dir"
	trap - EXIT
	# an older kernel's or recipe's image (2 GB each) is not used again
	for old in "$GUEST_CACHE"/*-r[0-9]*; do
		[ "$old" = "$dir" ] || rm -rf "$old"
	done
	say "built $dir"
	echo "$dir"
}

run() {
	local share=${JSYM_ROOT:-$(cd "$here/../.." && pwd)} out="" timeout=300 serial="" script
	local dir rundir keep=0 status append
	while [ $# -gt 0 ]; do
		case $1 in
		--share) share=$2; shift 2 ;;
		--out) out=$2; shift 2 ;;
		--timeout) timeout=$2; shift 2 ;;
		--serial) serial=$2; keep=1; shift 2 ;;
		--) shift; break ;;
		-*) die "unknown option $1" ;;
		*) break ;;
		esac
	done
	[ $# -eq 1 ] || die "usage: guest.sh run [--share DIR] [--out DIR] [--timeout S] [--serial FILE] SCRIPT"
	script=$1
	[ -f "$script" ] || die "no script $script"
	dir=$(build)
	rundir=$(mktemp -d /tmp/jsym-guest-run.XXXXXX)
	# shellcheck disable=SC2064 # expand $rundir now
	trap "rm -rf '$rundir'" EXIT
	cp "$script" "$rundir/script.sh"
	write_guest_init "$rundir/guest-init"
	[ -n "$serial" ] || serial=$rundir/serial
	: >"$serial"
	append="console=ttyS0 panic=-1 quiet loglevel=1 systemd.unified_cgroup_hierarchy=1"
	local args=(-accel tcg -cpu max -m "${GUEST_MEM:-1536}" -smp "${GUEST_CPUS:-1}"
		-nodefaults -display none -no-reboot -serial "file:$serial"
		-kernel "$dir/vmlinuz" -initrd "$dir/initrd.gz"
		-drive "file=$dir/root.img,format=raw,if=virtio,snapshot=on"
		-virtfs "local,path=$share,mount_tag=host0,security_model=none,readonly=on,id=fs0"
		-virtfs "local,path=$rundir,mount_tag=run,security_model=none,readonly=on,id=fs1")
	if [ -n "$out" ]; then
		mkdir -p "$out"
		args+=(-virtfs "local,path=$out,mount_tag=out,security_model=none,id=fs2")
		append="$append jsym.out"
	fi
	local t0=$SECONDS
	timeout --kill-after=10 "$timeout" qemu-system-x86_64 "${args[@]}" -append "$append" \
		>"$rundir/qemu.log" 2>&1 && status=0 || status=$?
	say "guest ran $((SECONDS - t0)) s (qemu status $status)"
	tr -d '\r' <"$serial" | sed -n '/^JSYM-GUEST-BEGIN$/,/^JSYM-GUEST-EXIT=/p' |
		sed '1d;/^JSYM-GUEST-EXIT=/d'
	status=$(tr -d '\r' <"$serial" | sed -n 's/^JSYM-GUEST-EXIT=\([0-9]*\)$/\1/p' | tail -n 1)
	if [ -z "$status" ]; then
		say "the guest gave no exit status (crashed, or over the $timeout s bound); its console ends:"
		tr -d '\r' <"$serial" | tail -n 30 >&2
		sed 's/^/guest: qemu: /' "$rundir/qemu.log" >&2
		status=2
	fi
	[ "$keep" = 1 ] || rm -f "$serial"
	rm -rf "$rundir"
	return "$status"
}

case ${1:-} in
build) build ;;
run) shift; run "$@" ;;
*)
	echo "usage: tests/kit/guest.sh build | run [OPTIONS] SCRIPT" >&2
	exit 2
	;;
esac
