#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 93-runc-image.sh - the artefacts users are told to deploy, run: the image
# of deploy/Dockerfile and the pod of deploy/kubernetes/daemonset.yaml.
#
#  build       `podman build --network host -f deploy/Dockerfile .` from
#              local base images, as no registry is reachable: the kit's
#              debian-build root (Debian 12 + what mk/deps.sh build installs)
#              as DEBIAN, the host's static busybox as BUSYBOX; the image's
#              jsym is static and prints its usage (pod_jsym_image: built
#              once per source tree, so 90's sidecars share it)
#  sidecar     that image as the sidecar of a runc JVM container (--pid
#              container:, podman's default capabilities): `jsym attach 1`
#              loads the agent; with --cap-add SYS_PTRACE `jsym list` names
#              the JVM
#  daemonset   the DaemonSet's pod template played by `podman kube play`
#              (tests/kit/kube_pod.py: the image, a 4 s interval; hostPID,
#              which podman 4.3 ignores, as shareProcessNamespace, and the
#              other fields podman cannot carry out listed in the log):
#              the jsym container has exactly the 4 capabilities of the
#              manifest, a read-only root, no-new-privileges, uid 0, a
#              64 MiB memory limit, a seccomp filter, /sys/fs/cgroup
#              read-only; two JVM containers in the pod have the
#              agent and a map within one interval (+ the round's time), a
#              JVM started later gets it in the next round
# Skipped, with the reason, where podman cannot run a runc container.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/kit/podman.sh"
t_need_root "podman, runc"
pod_usable || t_skip "$POD_WHY"
command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null ||
	t_skip "needs python3-yaml"
INTERVAL=4

t_case build
pod_jsym_image || t_abort "cannot build the image"
IMAGE=$POD_JSYM_IMAGE
t_log "podman build of deploy/Dockerfile: $POD_IMAGE_BUILT ($IMAGE)"
t_run podman --runtime runc run --rm --network none "${POD_RUN_OPTS[@]}" "$IMAGE"
t_expect_rc 0
t_expect_out '^Usage: jsym COMMAND'
t_run podman --runtime runc run --rm --network none "${POD_RUN_OPTS[@]}" "$IMAGE" \
	ls /usr/local/lib/jsym/glibc /usr/local/lib/jsym/musl
t_expect_out 'libjsym-agent\.so' 'jsym-probe'

t_case sidecar
ct=$(pod_jvm img-app debian) || t_abort "runc JVM did not start"
t_run pod_sidecar img-app "image:$IMAGE" -- jsym attach 1
t_expect_rc 0
t_expect_out '^jsym: 1: agent loaded \(HotSpot 17[^,]*, glibc build, copied to /tmp/jsym-'
t_check "the agent writes the map" pod_map_named "$ct"
t_run pod_sidecar img-app "image:$IMAGE" --cap-add SYS_PTRACE -- jsym list
t_expect_rc 0
t_expect_out '^1 +1 +1000 +HotSpot +17\.[0-9.]+ +glibc +yes '

t_case daemonset
pod=jsym-$POD_RUN_ID-ds
python3 "$JSYM_ROOT/tests/kit/kube_pod.py" "$JSYM_ROOT/deploy/kubernetes/daemonset.yaml" \
	"$pod" "$IMAGE" "$INTERVAL" "jsym-$POD_RUN_ID-" >"$KIT_DIR/pod.yaml" 2>"$KIT_DIR/ignored" ||
	t_abort "cannot make the pod of the DaemonSet: $(cat "$KIT_DIR/ignored")"
t_log "fields of the template podman 4.3 does not carry out:"
sed 's/^/    /' "$KIT_DIR/ignored" >&2
# kube play has no --runtime or --ulimit of its own: a containers.conf
printf '[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]\n[engine]\nruntime = "runc"\n' \
	>"$KIT_DIR/containers.conf"
# podman builds its pod's pause image locally on first use: ours to
# remove when it was not there before
pause_images() { podman images -q --filter reference=localhost/podman-pause; }
pause_before=$(pause_images)
kube_down() {
	CONTAINERS_CONF=$KIT_DIR/containers.conf podman kube down "$KIT_DIR/pod.yaml" >/dev/null 2>&1
	podman pod rm -f -t 0 "$pod" >/dev/null 2>&1
	podman volume rm -f "jsym-$POD_RUN_ID-tmp" >/dev/null 2>&1
	[ -n "$pause_before" ] || podman rmi $(pause_images) >/dev/null 2>&1
	return 0
}
kit_on_exit kube_down
# the JVMs first, in the pod, so the first round finds them: the pod is
# created, not started, by kube play --start=false
t_run env CONTAINERS_CONF="$KIT_DIR/containers.conf" podman kube play --start=false --network none \
	"$KIT_DIR/pod.yaml"
t_expect_rc 0
jvms=()
for n in 1 2; do
	p=$(pod_jvm "ds-jvm$n" debian --pod "$pod") || t_abort "JVM $n did not start in the pod"
	jvms+=("$p")
done
t0=$SECONDS
podman pod start "$pod" >/dev/null || t_abort "cannot start the pod $pod"
js=$pod-jsym
t_eq "$(podman inspect -f '{{range .EffectiveCaps}}{{.}} {{end}}' "$js" | tr ' ' '\n' | sort | xargs)" \
	"CAP_SETGID CAP_SETUID CAP_SYS_CHROOT CAP_SYS_PTRACE" \
	"the jsym container has exactly the manifest's capabilities"
t_eq "$(podman inspect -f '{{.HostConfig.ReadonlyRootfs}} {{.HostConfig.Memory}} {{.HostConfig.SecurityOpt}} {{.Config.User}}' "$js")" \
	"true 67108864 [no-new-privileges] 0:0" "read-only root, 64 MiB, no-new-privileges, uid 0"
jspid=$(podman inspect -f '{{.State.Pid}}' "$js")
t_eq "$(awk '/^Seccomp:/ {print $2}' "/proc/$jspid/status")" 2 "a seccomp filter (RuntimeDefault: podman's profile)"
t_eq "$(awk '$5 == "/sys/fs/cgroup" {split($6, o, ","); m = o[1]} END {print m}' "/proc/$jspid/mountinfo")" ro \
	"the node's /sys/fs/cgroup mounted read-only (the hostPath)"
# wait_agent PID SECS: within SECS PID maps a jsym agent, and then its map
# names methods
wait_agent() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		grep -q libjsym-agent "/proc/$1/maps" 2>/dev/null && break
		sleep 0.1
	done
	pod_map_named "$1"
}
for p in "${jvms[@]}"; do
	t_check "JVM $p has the agent and a map within the first round + ${INTERVAL} s" \
		wait_agent "$p" $((INTERVAL + 20))
done
t_log "both attached $((SECONDS - t0)) s after the pod started"
late=$(pod_jvm ds-late debian --pod "$pod") || t_abort "the late JVM did not start"
t1=$SECONDS
t_check "a JVM started later has it in the next round (within 2 intervals)" \
	wait_agent "$late" $((2 * INTERVAL + 10))
t_log "the late JVM attached $((SECONDS - t1)) s after it ran"
podman logs "$js" >"$KIT_DIR/ds.log" 2>&1
t_check "the loop's log has rounds with exit 0" grep -q 'jsym attach --all: exit 0' "$KIT_DIR/ds.log"
sed 's/^/    /' "$KIT_DIR/ds.log" | tail -n 12 >&2

t_finish
