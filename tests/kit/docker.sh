# SPDX-License-Identifier: Apache-2.0
# tests/kit/docker.sh - Docker Engine and containerd as a node runs them,
# for scenarios: Debian's dockerd and containerd, started by the scenario
# (no systemd) on private roots under $KIT_DIR and stopped at its exit
# (bash library).
#
#   source "$JSYM_ROOT/tests/kit/docker.sh"     (after tests/lib/lib.sh)
#   dk_usable || t_skip "$DK_WHY"
#
# One containerd serves both: dockerd is pointed at it (--containerd), so
# Docker's containers are in its namespace "moby", and the kubelet's are
# in "k8s.io" (ctr -n k8s.io, as the CRI plugin names them).  The daemons'
# roots, sockets and runtime state are all in $KIT_DIR/dk: the images a
# scenario imports go with it.  Facts this machine taught:
#   - /usr/local/bin/docker may be another client (docker 28 here) first in
#     PATH: Debian's /usr/bin/docker is named;
#   - no registry is reachable: images are `docker import`s of the kit's
#     cached roots (tests/kit/rootfs.sh), `docker save | ctr import` for
#     containerd, `podman save | docker load` for the image of
#     deploy/Dockerfile (pod_jsym_image);
#   - no bridge, no iptables: --bridge=none, every container --network none
#     (ctr: a fresh network namespace, loopback only).
# A containerd task is placed where the kubelet puts a pod's container
# (dk_task): cgroupfs driver /kubepods/<qos>/pod<uid>/<id>, or the systemd
# driver's shape .../kubepods-<qos>-pod<uid>.slice/cri-containerd-<id>.scope
# (runc without systemd takes it as a plain cgroupfs path: same name, no
# systemd unit).  The cgroups made for it are removed at exit.

if [ -n "${DK_SH_LOADED:-}" ]; then
	return 0
fi
DK_SH_LOADED=1

DK_DIR=$KIT_DIR/dk
# the client keeps its config in $DK_DIR/client, not in ~/.docker (not
# exported as DOCKER_CONFIG: podman would look there for its auth file)
DOCKER=(/usr/bin/docker --config "$DK_DIR/client" -H "unix://$DK_DIR/docker.sock")
CTR=(/usr/bin/ctr --address "$DK_DIR/containerd.sock" -n k8s.io)
DK_WHY=
DK_CGROUPS=()    # _dk_cgroup's, written to $DK_DIR/cgroups

# dk_usable : 0 once containerd and dockerd run here (started on the first
# call); else 1 with the reason in DK_WHY.
dk_usable() {
	local b
	if [ -n "${DK_USABLE:-}" ]; then
		[ "$DK_USABLE" = yes ]
		return
	fi
	DK_USABLE=no
	if [ "$(id -u)" -ne 0 ]; then
		DK_WHY="dockerd and containerd need root"
		return 1
	fi
	for b in /usr/bin/docker /usr/sbin/dockerd /usr/bin/containerd /usr/bin/ctr \
		/usr/bin/containerd-shim-runc-v2 /usr/sbin/runc; do
		[ -x "$b" ] || {
			DK_WHY="no $b (mk/deps.sh test installs docker.io and containerd)"
			return 1
		}
	done
	kit_on_exit dk_cleanup
	_dk_start || return 1
	DK_USABLE=yes
}

# _dk_wait WHAT PID CMD... : up to 30 s for CMD to succeed while PID runs.
_dk_wait() {
	local what=$1 pid=$2 i
	shift 2
	for ((i = 0; i < 300; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		kill -0 "$pid" 2>/dev/null || {
			DK_WHY="$what exited"
			return 1
		}
		sleep 0.1
	done
	DK_WHY="$what did not answer within 30 s"
	return 1
}

_dk_start() {
	mkdir -p "$DK_DIR/client"
	# containerd's shims put their sockets in /run/containerd/s whatever
	# the state dir: removed at exit when this run made it
	[ -e /run/containerd ] || DK_RUN_MADE=1
	# and dockerd its plugins' sockets in /run/docker/plugins
	[ -e /run/docker ] || DK_RUN_DOCKER_MADE=1
	# dockerd's cgroup parent, /docker in every hierarchy, when this run
	# makes it
	compgen -G '/sys/fs/cgroup/*/docker' >/dev/null || echo /docker >>"$DK_DIR/cgroups"
	# the scenario's dirs must be searchable by the containers' users
	# (the classes are bound from below $KIT_DIR)
	chmod 0711 "$KIT_DIR"
	cat >"$DK_DIR/containerd.toml" <<EOF
version = 2
root = "$DK_DIR/containerd/root"
state = "$DK_DIR/containerd/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$DK_DIR/containerd.sock"
[ttrpc]
  address = "$DK_DIR/containerd.sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
EOF
	/usr/bin/containerd --config "$DK_DIR/containerd.toml" >"$DK_DIR/containerd.log" 2>&1 &
	DK_CONTAINERD=$!
	_dk_wait containerd "$DK_CONTAINERD" "${CTR[@]}" version || {
		DK_WHY="$DK_WHY: $(tail -n 3 "$DK_DIR/containerd.log")"
		return 1
	}
	# dockerd 20.10 writes a trust key to /etc/docker/key.json unless told
	# where (a config-file key only)
	printf '{"deprecated-key-path": "%s"}\n' "$DK_DIR/key.json" >"$DK_DIR/daemon.json"
	/usr/sbin/dockerd --config-file "$DK_DIR/daemon.json" -H "unix://$DK_DIR/docker.sock" \
		--containerd "$DK_DIR/containerd.sock" --data-root "$DK_DIR/docker" \
		--exec-root "$DK_DIR/dexec" --pidfile "$DK_DIR/docker.pid" \
		--iptables=false --ip-forward=false --ip-masq=false --bridge=none \
		--storage-driver overlay2 >"$DK_DIR/dockerd.log" 2>&1 &
	DK_DOCKERD=$!
	_dk_wait dockerd "$DK_DOCKERD" "${DOCKER[@]}" info || {
		DK_WHY="$DK_WHY: $(tail -n 3 "$DK_DIR/dockerd.log")"
		return 1
	}
}

# dk_import IMAGE ROOT : docker image IMAGE from a cached root tree (a
# kit_rootfs kind or a directory), also imported into containerd's k8s.io.
dk_import() {
	local dir
	dir=$(_kit_rootfs_arg "$2") || return 1
	tar -C "$dir" --exclude=./.jsym-rootfs -c . | "${DOCKER[@]}" import - "$1" >/dev/null &&
		dk_to_containerd "$1"
}

# dk_to_containerd IMAGE : docker's image IMAGE into containerd's k8s.io.
dk_to_containerd() {
	"${DOCKER[@]}" save "$1" | "${CTR[@]}" image import - >/dev/null
}

# dk_jsym_image : the image of deploy/Dockerfile (pod_jsym_image, built
# with podman and cached) loaded into Docker and containerd as
# DK_JSYM_IMAGE.  Call it directly, not in $(...).
dk_jsym_image() {
	pod_jsym_image || return 1
	DK_JSYM_IMAGE=docker.io/${POD_JSYM_IMAGE#localhost/}
	podman save "$POD_JSYM_IMAGE" 2>/dev/null | "${DOCKER[@]}" load >/dev/null || return 1
	"${DOCKER[@]}" tag "$POD_JSYM_IMAGE" "$DK_JSYM_IMAGE" &&
		dk_to_containerd "$DK_JSYM_IMAGE"
}

# dk_jvm_cmd : the workload's command line inside a container whose root is
# the kit's debian (its JDK 17), the classes at /opt/app.
dk_jvm_cmd() {
	echo "$KIT_CT_JAVA" -Xmx64m -cp /opt/app Workload 0
}

# dk_run NAME IMAGE [docker run options...] : the workload as PID 1 of a
# Docker container named NAME, uid 1000; print its host pid once the JVM
# runs.  The container's full id is in DK_ID.
dk_run() {
	local name=$1 image=$2 classes pid
	shift 2
	classes=$(kit_java_build) || return 1
	"${DOCKER[@]}" run -d --name "$name" --network none --user 1000:1000 \
		-v "$classes:/opt/app:ro" "$@" "$image" $(dk_jvm_cmd) >/dev/null || return 1
	pid=$("${DOCKER[@]}" inspect -f '{{.State.Pid}}' "$name")
	if [ -z "$pid" ] || [ "$pid" = 0 ] || ! kit_wait_jvm "$pid" 60; then
		echo "docker JVM $name did not start: $("${DOCKER[@]}" logs "$name" 2>&1 | tail -n 3)" >&2
		return 1
	fi
	echo "$pid"
}

# _dk_cgroup ID LAYOUT : the cgroup path of task ID in DK_CGROUP (dk_task),
# and it and its parents recorded in $DK_DIR/cgroups for removal at exit
# (a file: dk_task runs in $(...)).
_dk_cgroup() {
	local id=$1 uid cg
	uid=${DK_POD_UID:-$(cat /proc/sys/kernel/random/uuid)}
	case $2 in
	cgroupfs)
		cg=/kubepods/besteffort/pod$uid/$id
		DK_CGROUPS+=("/kubepods/besteffort/pod$uid" /kubepods/besteffort /kubepods)
		;;
	systemd)
		cg=/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${uid//-/_}.slice/cri-containerd-$id.scope
		DK_CGROUPS+=("${cg%/*}" /kubepods.slice/kubepods-besteffort.slice /kubepods.slice)
		;;
	none) cg=/k8s.io/$id DK_CGROUPS+=(/k8s.io) ;;
	*) kit_fail "dk_task: layout cgroupfs, systemd or none, not '$2'" ;;
	esac
	DK_CGROUPS+=("$cg")
	printf '%s\n' "${DK_CGROUPS[@]}" >>"$DK_DIR/cgroups"
	DK_CGROUPS=()
	DK_CGROUP=$cg
}

# dk_task ID IMAGE LAYOUT [ctr run options...] [-- CMD...] : a containerd task
# ID (k8s.io namespace) in the cgroup the kubelet would give a besteffort
# pod's container: LAYOUT cgroupfs (/kubepods/besteffort/pod<uid>/<ID>) or
# systemd (/kubepods.slice/kubepods-besteffort.slice/
# kubepods-besteffort-pod<uid>.slice/cri-containerd-<ID>.scope), or none
# (containerd's default, /k8s.io/<ID>).  Without CMD, the workload as uid
# 1000 (setpriv, as ctr has no --user).  Prints the task's host pid once it
# runs (for the workload: once the JVM runs).  ID is 64 hex digits, as the
# CRI's ids are.  The pod's uid is
# $DK_POD_UID when set (two containers of one pod), else a fresh one.
dk_task() {
	local id=$1 image=$2 layout=$3 cg classes pid i opts=() cmd=()
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	[ "${1:-}" = -- ] && shift
	cmd=("$@")
	_dk_cgroup "$id" "$layout"
	cg=$DK_CGROUP
	if [ ${#cmd[@]} -eq 0 ]; then
		classes=$(kit_java_build) || return 1
		opts+=(--mount "type=bind,src=$classes,dst=/opt/app,options=rbind:ro")
		cmd=(setpriv --reuid 1000 --regid 1000 --clear-groups $(dk_jvm_cmd))
	fi
	"${CTR[@]}" run -d --cgroup "$cg" --log-uri "file://$DK_DIR/task-${id:0:12}.log" \
		"${opts[@]}" "$image" "$id" "${cmd[@]}" >/dev/null || return 1
	for ((i = 0; i < 100; i++)); do
		pid=$("${CTR[@]}" task ls 2>/dev/null | awk -v id="$id" '$1 == id && $3 == "RUNNING" {print $2}')
		[ -n "$pid" ] && break
		sleep 0.1
	done
	[ -n "$pid" ] || {
		echo "containerd task ${id:0:12} did not run: $(tail -n 3 "$DK_DIR/task-${id:0:12}.log" 2>/dev/null)" >&2
		return 1
	}
	if [ "${cmd[0]}" = setpriv ] && ! kit_wait_jvm "$pid" 60; then
		echo "containerd JVM ${id:0:12} did not start: $(tail -n 3 "$DK_DIR/task-${id:0:12}.log" 2>/dev/null)" >&2
		return 1
	fi
	echo "$pid"
}

# dk_sidecar ID IMAGE LAYOUT TARGETPID [ctr run options...] -- CMD... : CMD
# in the foreground in a containerd task ID sharing the PID namespace of
# host pid TARGETPID (--with-ns pid:, a pod's shareProcessNamespace), with
# containerd's default capabilities unless the options add some; CMD's
# output and status; the container is removed.
dk_sidecar() {
	local id=$1 image=$2 layout=$3 target=$4 opts=()
	shift 4
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	[ "${1:-}" = -- ] && shift
	_dk_cgroup "$id" "$layout"
	"${CTR[@]}" run --rm --cgroup "$DK_CGROUP" --with-ns "pid:/proc/$target/ns/pid" \
		"${opts[@]}" "$image" "$id" "$@"
}

# dk_task_rm ID : kill and delete the task and its container.
dk_task_rm() {
	"${CTR[@]}" task kill -s KILL "$1" >/dev/null 2>&1
	for _ in $(seq 50); do
		"${CTR[@]}" task delete "$1" >/dev/null 2>&1 && break
		sleep 0.1
	done
	"${CTR[@]}" container delete "$1" >/dev/null 2>&1
	return 0
}

# dk_hexid : a fresh 64-hex id (the form the CRI gives a container).
dk_hexid() {
	head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'
}

# dk_cleanup : every container and task, both daemons, their mounts, the
# cgroups made for the tasks (the kit's exit trap runs it).
dk_cleanup() {
	local ids id p cg h m
	if [ -S "$DK_DIR/docker.sock" ]; then
		ids=$("${DOCKER[@]}" ps -aq 2>/dev/null)
		[ -n "$ids" ] && "${DOCKER[@]}" rm -f $ids >/dev/null 2>&1
	fi
	if [ -S "$DK_DIR/containerd.sock" ]; then
		for id in $("${CTR[@]}" container ls -q 2>/dev/null); do
			dk_task_rm "$id"
		done
	fi
	for p in ${DK_DOCKERD:-} ${DK_CONTAINERD:-}; do
		kill -TERM "$p" 2>/dev/null
		for _ in $(seq 100); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	# shims outlive containerd: a shim serving this run's state is ended
	for p in $(pgrep -f "containerd-shim-runc-v2 .*-address $DK_DIR/" 2>/dev/null); do
		kill -KILL "$p" 2>/dev/null
	done
	# what the daemons mounted under their roots, deepest first
	findmnt -rn -o TARGET | grep -F "$DK_DIR/" | sort -r | while read -r m; do
		umount -l "$m" 2>/dev/null
	done
	# leaves first: a child's path is longer than its parent's
	for cg in $(sort -u "$DK_DIR/cgroups" 2>/dev/null | awk '{print length, $0}' | sort -rn |
		cut -d' ' -f2-); do
		for h in /sys/fs/cgroup/*/; do
			[ -d "$h${cg#/}" ] && rmdir "$h${cg#/}" 2>/dev/null
		done
	done
	rm -f "$DK_DIR/cgroups"
	if [ -n "${DK_RUN_MADE:-}" ]; then
		# the shims' sockets, ctr's fifos, runc's state: empty by now
		find /run/containerd -depth -type d -empty -delete 2>/dev/null
	fi
	if [ -n "${DK_RUN_DOCKER_MADE:-}" ]; then
		find /run/docker -depth -type d -empty -delete 2>/dev/null
	fi
	return 0
}

# dk_bpftrace_named PID OUT : sample PID's user stacks with bpftrace for
# 3 s (`ustack(perf)`, bcc's resolver: it reads the map the agent wrote in
# the process's own /tmp, /proc/PID/root/tmp/perf-<nspid>.map) into OUT.
# DK_BT_JIT: the distinct frames outside every ELF file (named from the map
# or "[unknown]"); DK_BT_NAMED: those named as Java methods (Class.method();
# DK_BT_WHY: a line saying what was seen, or why bpftrace could not run.
dk_bpftrace_named() {
	local pid=$1 out=$2
	DK_BT_JIT=0 DK_BT_NAMED=0
	if ! [ -x /usr/bin/bpftrace ]; then
		DK_BT_WHY="no /usr/bin/bpftrace (mk/deps.sh test installs it)"
		return 1
	fi
	timeout -s INT 3 /usr/bin/bpftrace \
		-e "profile:hz:199 /pid == $pid/ { @[ustack(perf, 16)] = count(); }" >"$out" 2>&1
	# a frame line: TAB ADDR SYMBOL+OFF (MODULE); the JIT's are in no ELF
	# file: bcc names the map as their module, or leaves them [unknown]
	DK_BT_JIT=$(grep -E '^\s+[0-9a-f]+ ' "$out" | grep -E '\((/tmp/perf-[0-9]+\.map|\[unknown\])\)$' |
		sort -u | wc -l)
	DK_BT_NAMED=$(grep -E '^\s+[0-9a-f]+ ' "$out" | grep -E '\(/tmp/perf-[0-9]+\.map\)$' |
		grep -E ' [A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z0-9_$<>]+)+\(' | sort -u | wc -l)
	DK_BT_WHY="$DK_BT_NAMED of $DK_BT_JIT distinct JIT frames named ($(grep -cE '^\s+[0-9a-f]+ ' "$out") frame lines; $(grep -vE '^\s|^$|^@|^\]' "$out" | head -n 2 | tr '\n' ' '))"
}
