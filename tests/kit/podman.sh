# SPDX-License-Identifier: Apache-2.0
# tests/kit/podman.sh - real OCI containers for scenarios: runc driven by
# podman, from the kit's cached roots (bash library).
#
#   source "$JSYM_ROOT/tests/kit/podman.sh"     (after tests/lib/lib.sh)
#   pod_usable || t_skip "$POD_WHY"
#
# What users run: runc with its seccomp filter, a cgroup per container
# (/libpod_parent/libpod-<id>), masked /proc paths, the runtime's default
# capabilities.  Facts this machine taught (docs/testing.md):
#   - crun, podman's default runtime, refuses a hybrid cgroup v1 host
#     ("cgroups in hybrid mode not supported"): --runtime runc is named;
#   - without --ulimit nofile and nproc the runtime fails with
#     "setrlimit RLIMIT_NOFILE: Operation not permitted";
#   - no registry is reachable: a container's root is a cached tree given
#     as --rootfs DIR:O (an overlay: the cache is never written), or an
#     image made here by `podman import` / `podman build`.
# Every container is named jsym-<run>-NAME and labelled with this script's
# $KIT_DIR; the kit's exit trap removes them (pod_cleanup), and the images
# a scenario made with pod_import / pod_build.

if [ -n "${POD_SH_LOADED:-}" ]; then
	return 0
fi
POD_SH_LOADED=1

POD=(podman --runtime runc)
# What every container gets: the two limits runc must be able to set here.
POD_RUN_OPTS=(--ulimit nofile=1024:1024 --ulimit nproc=4096:4096)
POD_RUN_ID=$(tr A-Z a-z <<<"${KIT_DIR##*.}")   # image names are lower case
POD_LABEL=jsym.kit=$KIT_DIR
POD_IMAGES=()
POD_WHY=

# pod_name NAME : the container's real name (jsym-<run>-NAME).
pod_name() { echo "jsym-$POD_RUN_ID-$1"; }

# pod_usable : 0 when podman can start a runc container here; else 1 with
# the reason in POD_WHY (the scenario skips with it).  Tried once per run.
pod_usable() {
	local root out
	if [ -n "${POD_USABLE:-}" ]; then
		[ "$POD_USABLE" = yes ]
		return
	fi
	POD_USABLE=no
	if [ "$(id -u)" -ne 0 ]; then
		POD_WHY="podman containers need root here (rootless podman is not set up)"
	elif ! command -v podman >/dev/null || ! command -v runc >/dev/null; then
		POD_WHY="podman and runc are not installed (mk/deps.sh test installs them)"
	elif ! root=$(kit_rootfs debian-minbase 2>&1); then
		POD_WHY="no root filesystem for a container: $root"
	elif ! out=$(timeout 60 "${POD[@]}" run --rm --network none "${POD_RUN_OPTS[@]}" \
		--rootfs "$root:O" /bin/true 2>&1); then
		POD_WHY="podman --runtime runc cannot run a container here: $(head -c 300 <<<"$out")"
	else
		POD_USABLE=yes
		kit_on_exit pod_cleanup
	fi
	[ "$POD_USABLE" = yes ]
}

# _pod_root_args ROOT : the podman arguments naming a container's root: a cached
# tree (a directory or a kit_rootfs kind) as an overlay, image:NAME, or
# dir:DIR (DIR itself, written to: pod_userns_root's).
_pod_root_args() {
	local dir
	case $1 in
	image:*) echo "${1#image:}" ;;
	dir:*) printf '%s\n' --rootfs "${1#dir:}" ;;
	*)
		dir=$(_kit_rootfs_arg "$1") || return 1
		printf '%s\n' --rootfs "$dir:O"
		;;
	esac
}

# pod_start NAME ROOT [podman run options...] -- CMD...
#   Start CMD detached in a runc container (no network unless the options
#   say otherwise; add --user 1000:1000 for the JVM's uid); print the host
#   pid of its PID 1 once it runs.  The container's log is `podman logs`.
# _pod_split WHO ROOT [options...] -- CMD... : the podman options in
# _POD_OPTS, the root's arguments in _POD_ROOT, CMD in _POD_CMD.
_pod_split() {
	local who=$1 root=$2
	shift 2
	_POD_OPTS=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		_POD_OPTS+=("$1")
		shift
	done
	[ "${1:-}" = -- ] && [ $# -ge 2 ] || kit_fail "$who: no command after --"
	shift
	_POD_CMD=("$@")
	mapfile -t _POD_ROOT < <(_pod_root_args "$root")
	[ ${#_POD_ROOT[@]} -gt 0 ] || kit_fail "$who: no root '$root'"
}

pod_start() {
	local name=${1:-} cname pid i
	[ $# -ge 2 ] || kit_fail "usage: pod_start NAME ROOT [options] -- CMD..."
	_pod_split "pod_start $name" "${@:2}"
	cname=$(pod_name "$name")
	"${POD[@]}" run -d --name "$cname" --label "$POD_LABEL" --network none \
		"${POD_RUN_OPTS[@]}" "${_POD_OPTS[@]}" "${_POD_ROOT[@]}" "${_POD_CMD[@]}" >/dev/null ||
		kit_fail "pod_start $name: podman run failed"
	for ((i = 0; i < 200; i++)); do
		pid=$("${POD[@]}" inspect -f '{{.State.Pid}}' "$cname" 2>/dev/null)
		if [ -n "$pid" ] && [ "$pid" != 0 ]; then
			echo "$pid"
			return 0
		fi
		sleep 0.05
	done
	kit_fail "pod_start $name: not running: $("${POD[@]}" logs "$cname" 2>&1 | tail -n 5)"
}

# pod_sidecar TARGET ROOT [podman run options...] -- CMD...
#   Run CMD in the foreground in a new container sharing container TARGET's
#   PID namespace (--pid container:, as `kubectl debug --target` does),
#   with podman's default capabilities unless the options add some
#   (--cap-add SYS_PTRACE: kubectl debug's `general` profile).  Returns
#   CMD's status; the container is removed.
pod_sidecar() {
	local target=${1:-}
	[ $# -ge 2 ] || kit_fail "usage: pod_sidecar TARGET ROOT [options] -- CMD..."
	_pod_split "pod_sidecar $target" "${@:2}"
	"${POD[@]}" run --rm --label "$POD_LABEL" --network none --pid "container:$(pod_name "$target")" \
		"${POD_RUN_OPTS[@]}" "${_POD_OPTS[@]}" "${_POD_ROOT[@]}" "${_POD_CMD[@]}"
}

# pod_jvm NAME ROOT [podman options...] : the sample workload (tests/java,
# kit_java_build) as PID 1 of a runc container, uid 1000, its root's own
# JDK 17 ($KIT_CT_JAVA), the classes bound at /opt/app; print its host pid
# once the JVM runs (kit_wait_jvm).  1 with the reason when it did not.
pod_jvm() {
	local name=$1 root=$2 classes pid
	shift 2
	classes=$(kit_java_build) || return 1
	pid=$(pod_start "$name" "$root" --user 1000:1000 -v "$classes:/opt/app:ro" "$@" -- \
		"$KIT_CT_JAVA" -Xmx64m -cp /opt/app Workload 0) || return 1
	if ! kit_wait_jvm "$pid" 60; then
		echo "runc JVM $name did not start: $("${POD[@]}" logs "$(pod_name "$name")" 2>&1 | tail -n 3)" >&2
		return 1
	fi
	echo "$pid"
}

# pod_map_named PID : within 5 s, the container's /tmp/perf-<NSPID>.map
# names Java methods (the agent writes it; NSPID: PID's pid in its own PID
# namespace, 1 for a container's PID 1).
pod_map_named() {
	local i nspid
	nspid=$(awk '/^NSpid:/ {print $NF}' "/proc/$1/status" 2>/dev/null)
	for ((i = 0; i < 50; i++)); do
		grep -qE ' [a-z].* [A-Za-z]+\.[a-zA-Z]+\(' "/proc/$1/root/tmp/perf-${nspid:-1}.map" 2>/dev/null &&
			return 0
		sleep 0.1
	done
	return 1
}

# pod_stop NAME : remove container NAME (SIGKILL first).
pod_stop() {
	"${POD[@]}" rm -f -t 0 "$(pod_name "$1")" >/dev/null 2>&1 || true
}

# pod_userns_root NAME ROOT HOSTID : a root for a container whose user
# namespace maps its 0 to host HOSTID (--uidmap 0:HOSTID:N), in
# POD_USERNS_ROOT (not printed: call it outside $(...), the unmount is
# registered here).  --rootfs DIR:O cannot serve: its overlay's directories
# belong to the host's root, which the container's root is not, so runc
# cannot create /etc/hosts or /run/.containerenv there.  So an overlay of
# the cached ROOT whose upper layer (a tmpfs) already holds /, /etc, /run and
# /opt (for bind mounts) owned by HOSTID, and a 1777 /tmp.  Name it to
# pod_start as dir:$POD_USERNS_ROOT.
pod_userns_root() {
	local d=$KIT_DIR/userns-$1 dir
	dir=$(_kit_rootfs_arg "$2") || return 1
	mkdir -p "$d/layer" "$d/root"
	# runc's bind of the root happens as the container's root: it must
	# be able to walk down to it (search only, no listing)
	chmod 0711 "$KIT_DIR"
	mount -t tmpfs -o mode=0755 jsym-userns "$d/layer" || return 1
	kit_on_exit "umount '$d/root' 2>/dev/null; umount '$d/layer'"
	mkdir -p "$d/layer/up/etc" "$d/layer/up/run" "$d/layer/up/opt" "$d/layer/up/tmp" \
		"$d/layer/work"
	chown "$3:$3" "$d/layer/up" "$d/layer/up/etc" "$d/layer/up/run" "$d/layer/up/opt"
	chmod 1777 "$d/layer/up/tmp"
	mount -t overlay overlay -o "lowerdir=$dir,upperdir=$d/layer/up,workdir=$d/layer/work" \
		"$d/root" || return 1
	POD_USERNS_ROOT=$d/root
}

# pod_import IMAGE ROOT : make image IMAGE (e.g. localhost/jsym-test-debian:12)
# from a cached root tree; removed at exit.
pod_import() {
	local image=$1 dir
	dir=$(_kit_rootfs_arg "$2") || return 1
	POD_IMAGES+=("$image")
	tar -C "$dir" --exclude=./.jsym-rootfs -c . | "${POD[@]}" import - "$image" >/dev/null
}

# pod_busybox_image IMAGE : make image IMAGE from the host's static busybox
# (busybox-static): /bin/busybox and its applets as links, the shape of the
# official busybox image; removed at exit.
pod_busybox_image() {
	local d=$KIT_DIR/busybox-root
	[ -x /bin/busybox ] || { echo "no /bin/busybox (busybox-static)" >&2; return 1; }
	mkdir -p "$d/bin" "$d/tmp" "$d/etc" "$d/root"
	chmod 1777 "$d/tmp"
	cp /bin/busybox "$d/bin/busybox"
	"$d/bin/busybox" --install -s "$d/bin" 2>/dev/null || true
	# --install writes absolute links to where it runs from: make them
	# name /bin/busybox, as in the image
	find "$d/bin" -type l -exec ln -sf /bin/busybox {} \;
	POD_IMAGES+=("$1")
	tar -C "$d" -c . | "${POD[@]}" import - "$1" >/dev/null
}

# pod_build IMAGE [podman build arguments...] : podman build --network host
# -t IMAGE ...; the image is removed at exit, and so are the images the
# build left untagged (a multi-stage build's first stage, ~900 MB here):
# those that were not there before it.
pod_build() {
	local image=$1 before id rc
	shift
	POD_IMAGES+=("$image")
	before=$("${POD[@]}" images -aq --no-trunc --filter dangling=true | sort)
	"${POD[@]}" build --network host --layers=false -t "$image" "$@"
	rc=$?
	for id in $("${POD[@]}" images -aq --no-trunc --filter dangling=true | sort |
		comm -13 <(echo "$before") -); do
		POD_IMAGES+=("$id")
	done
	return $rc
}

# pod_jsym_image : the image of deploy/Dockerfile for this source tree, as
# users build it (from local base images: the kit's debian-build root as
# DEBIAN, the host's static busybox as BUSYBOX), named in POD_JSYM_IMAGE
# (call it directly, not in $(...): it records images to remove).  Built
# once per tree and kept machine-wide in podman's storage as
# localhost/jsym-cache/jsym:<hash of the tree> (one tag: older ones are
# removed), so the scenarios that use it as their sidecar, and the next
# runs of an unchanged tree, build it once.  POD_IMAGE_BUILT says what it
# cost ("reused" or "built in N s").  1 with the reason when it cannot.
pod_jsym_image() {
	local hash image base start old lock
	hash=$( { git -C "$JSYM_ROOT" ls-files -s && git -C "$JSYM_ROOT" diff HEAD --binary &&
		(cd "$JSYM_ROOT" && git ls-files -o --exclude-standard -z | xargs -0r sha256sum); } \
		2>/dev/null | sha256sum | cut -c1-16)
	image=localhost/jsym-cache/jsym:$hash
	mkdir -p "$JSYM_CACHE"
	exec {lock}>"$JSYM_CACHE/.jsym-image.lock"
	# one build at a time on the machine (another run may be building)
	if ! flock -w 900 "$lock"; then
		echo "another jsym run held the image lock for 15 min" >&2
		exec {lock}>&-
		return 1
	fi
	if "${POD[@]}" image exists "$image"; then
		POD_IMAGE_BUILT=reused
	else
		base=localhost/jsym-$POD_RUN_ID
		pod_import "$base/debian:12" debian-build &&
			pod_busybox_image "$base/busybox:1.36" || { exec {lock}>&-; return 1; }
		# older trees' images go, unless a container still uses one
		for old in $("${POD[@]}" images --format '{{.Repository}}:{{.Tag}}' \
			--filter reference=localhost/jsym-cache/jsym); do
			"${POD[@]}" rmi "$old" >/dev/null 2>&1
		done
		start=$SECONDS
		if ! pod_build "$image" --build-arg "DEBIAN=$base/debian:12" \
			--build-arg "BUSYBOX=$base/busybox:1.36" -f "$JSYM_ROOT/deploy/Dockerfile" \
			"$JSYM_ROOT" >"$KIT_DIR/image-build.log" 2>&1 {lock}>&-; then
			echo "podman build of deploy/Dockerfile failed: $(tail -n 5 "$KIT_DIR/image-build.log")" >&2
			exec {lock}>&-
			return 1
		fi
		# the image is the cache's, not this run's: kept at exit
		for old in "${!POD_IMAGES[@]}"; do
			[ "${POD_IMAGES[$old]}" = "$image" ] && unset "POD_IMAGES[$old]"
		done
		POD_IMAGE_BUILT="built in $((SECONDS - start)) s"
	fi
	exec {lock}>&-
	POD_JSYM_IMAGE=$image
}

# pod_cleanup : remove this run's containers and images (the kit's exit
# trap runs it once pod_usable said yes).
pod_cleanup() {
	local ids
	ids=$("${POD[@]}" ps -aq --filter "label=$POD_LABEL" 2>/dev/null)
	[ -n "$ids" ] && "${POD[@]}" rm -f -t 0 $ids >/dev/null 2>&1
	if [ ${#POD_IMAGES[@]} -gt 0 ]; then
		"${POD[@]}" rmi -f "${POD_IMAGES[@]}" >/dev/null 2>&1
	fi
	POD_IMAGES=()
	return 0
}
