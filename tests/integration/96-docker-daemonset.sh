#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 96-docker-daemonset.sh - a node with JVMs in podman, Docker and containerd
# containers at once, and the DaemonSet's container as that node's runtime
# would run it.
#
# The scenario runs in a PID namespace of its own (as 92-runc-all), where it
# starts dockerd and containerd (tests/kit/docker.sh): their containers, and
# podman's, nest their PID namespaces in it, as a node's do in its root one,
# so `--all` and the DaemonSet's hostPID see this node's JVMs only.
#
#  list        `jsym list --json` names each JVM's container by the id its
#              runtime shows: podman inspect, docker ps, ctr task ls (a task
#              in /kubepods/besteffort/pod<uid>/<id>)
#  all         `jsym attach --all` from the host attaches the three; each
#              map names Java methods
#  detach      `jsym detach` of each: exit 0, the copies removed
#  daemonset   the image of deploy/Dockerfile run with the flags the
#              manifest's pod spec translates to (tests/kit/kube_docker.py:
#              --pid host, --cap-drop ALL + the manifest's list, --read-only,
#              no-new-privileges, Docker's default seccomp filter, uid 0,
#              64 MiB, 0.2 CPU, a 1 MiB tmpfs /tmp, /sys/fs/cgroup read-only)
#              and its command (the loop, a 4 s interval): three fresh JVMs,
#              one per runtime, get the agent and a map within the first
#              round; the container has exactly those capabilities and a
#              seccomp filter
#  daemonset-containerd  the same as a containerd task (kube_docker.py
#              --ctr: containerd's seccomp profile, its default capabilities
#              less all but the manifest's, --with-ns pid: of the node):
#              three fresh JVMs attached in the first round
#  memory      the same flags, `jsym attach -v` of a JVM with a 256 MiB limit
#              and a tmpfs /tmp: the memory check reads the JVM's limit
#              through the read-only /sys/fs/cgroup; whether the copies are
#              charged to the JVM's cgroup is logged
#  each-cap    the same flags less one capability, for each of the
#              manifest's, against two fresh JVMs (uid 1000; root with
#              Docker's default capabilities): every one is needed (an
#              attach fails without it); what jsym said is logged, for
#              docs/kubernetes.md
# Skipped, with the reason, where the daemons or podman cannot run.
# test-timeout: 1800
# (the first run builds the kit's roots and the image: minutes; warm, ~4 min)
if [ -z "${JSYM_ALL_PIDNS:-}" ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	JSYM_ALL_PIDNS=1 exec unshare --pid --fork --mount-proc bash "$0" "$@"
fi
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
source "$JSYM_ROOT/tests/kit/podman.sh"
source "$JSYM_ROOT/tests/kit/docker.sh"
t_need_root "dockerd, containerd, podman, a PID namespace"
[ "${JSYM_ALL_PIDNS:-}" = 1 ] || t_skip "cannot make a PID namespace of its own (unshare)"
J=$JSYM_BUILD/jsym
[ -x "$J" ] || t_skip "jsym not built (make)"
command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null || t_skip "needs python3-yaml"
pod_usable || t_skip "$POD_WHY"
dk_usable || t_skip "$DK_WHY"
IMG=docker.io/jsym-test/debian:12
dk_import "$IMG" debian || t_abort "cannot import the Debian root"
DS=$JSYM_ROOT/deploy/kubernetes/daemonset.yaml
DK_POD_UID=$(cat /proc/sys/kernel/random/uuid)

# three JVMs, one per runtime, named by suffix S: their pids in P_POD,
# P_DOCKER, P_CTR, the runtimes' ids (12 hex) in I_POD, I_DOCKER, I_CTR
three() {
	local s=$1 t
	P_POD=$(pod_jvm "pod$s" debian) || t_abort "podman JVM $s did not start"
	I_POD=$(podman inspect -f '{{.Id}}' "$(pod_name "pod$s")" | cut -c1-12)
	P_DOCKER=$(dk_run "docker$s" "$IMG") || t_abort "docker JVM $s did not start"
	I_DOCKER=$("${DOCKER[@]}" ps --no-trunc -f "name=^docker$s\$" --format '{{.ID}}' | cut -c1-12)
	t=$(dk_hexid)
	P_CTR=$(dk_task "$t" "$IMG" cgroupfs --seccomp) || t_abort "containerd JVM $s did not start"
	I_CTR=$("${CTR[@]}" task ls | awk -v id="$t" '$1 == id {print substr($1, 1, 12)}')
}
# agent_within PID SECS: PID maps a jsym agent within SECS, and its map
# names methods
agent_within() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		grep -q libjsym-agent "/proc/$1/maps" 2>/dev/null && break
		sleep 0.1
	done
	pod_map_named "$1"
}

t_case list
three 1
t_run "$J" list --json
t_check "list --json: podman $I_POD, docker $I_DOCKER, containerd $I_CTR" python3 -c '
import json, sys
got = {x["pid"]: x.get("container_id") for x in json.loads(sys.argv[1])}
want = dict(zip(map(int, sys.argv[2::2]), sys.argv[3::2]))
print("got", got, "want", want)
sys.exit(0 if all(got.get(p) == i for p, i in want.items()) else 1)' \
	"$T_OUT" "$P_POD" "$I_POD" "$P_DOCKER" "$I_DOCKER" "$P_CTR" "$I_CTR"

t_case all
t_run "$J" attach --all -j 3 --json
t_expect_rc 0
t_check "the three attached, nothing else" python3 -c '
import json, sys
r = json.loads(sys.argv[1])
ok = sorted(j["pid"] for j in r["jvms"] if j["ok"])
print("attached", ok)
sys.exit(0 if ok == sorted(map(int, sys.argv[2:])) and r["attached"] == 3 else 1)' \
	"$T_OUT" "$P_POD" "$P_DOCKER" "$P_CTR"
for p in "$P_POD" "$P_DOCKER" "$P_CTR"; do
	t_check "JVM $p: its map names Java methods" pod_map_named "$p"
done

t_case detach
for p in "$P_POD" "$P_DOCKER" "$P_CTR"; do
	t_run "$J" detach "$p"
	t_expect_rc 0
	t_expect_out "^jsym: $p: agent stopped; removed 3 copied files"
done

t_case daemonset
dk_jsym_image || t_abort "cannot load the image of deploy/Dockerfile"
t_log "the image: $DK_JSYM_IMAGE (podman: $POD_IMAGE_BUILT)"
mapfile -d '' -t FLAGS < <(python3 "$JSYM_ROOT/tests/kit/kube_docker.py" "$DS" 4) ||
	t_abort "cannot translate the DaemonSet"
mapfile -d '' -t CMD < <(python3 "$JSYM_ROOT/tests/kit/kube_docker.py" "$DS" 4 --command)
t_log "docker run ${FLAGS[*]} IMAGE ${CMD[*]:0:2} ..."
three 2
"${DOCKER[@]}" run -d --name ds --network none "${FLAGS[@]}" "$DK_JSYM_IMAGE" "${CMD[@]}" >/dev/null ||
	t_abort "the DaemonSet's container did not start"
t0=$SECONDS
for p in "$P_POD" "$P_DOCKER" "$P_CTR"; do
	t_check "JVM $p has the agent and a map within the first round" agent_within "$p" 40
done
t_log "all three attached $((SECONDS - t0)) s after the container started"
dspid=$("${DOCKER[@]}" inspect -f '{{.State.Pid}}' ds)
want=$(python3 -c '
import sys, yaml
d = [x for x in yaml.safe_load_all(open(sys.argv[1])) if x and x.get("kind") == "DaemonSet"][0]
print(" ".join(sorted("CAP_" + c for c in d["spec"]["template"]["spec"]["containers"][0]["securityContext"]["capabilities"]["add"])))' "$DS")
have=$(capsh --decode="$(awk '/^CapEff:/ {print $2}' "/proc/$dspid/status")" 2>/dev/null |
	sed 's/.*=//' | tr ',' '\n' | tr a-z A-Z | sort | xargs)
t_eq "$have" "$want" "the container has exactly the manifest's capabilities"
t_eq "$(awk '/^Seccomp:/ {print $2}' "/proc/$dspid/status")" 2 "a seccomp filter (Docker's default profile)"
t_eq "$(awk '/^NoNewPrivs:/ {print $2}' "/proc/$dspid/status")" 1 "no-new-privileges"
t_eq "$("${DOCKER[@]}" inspect -f '{{.HostConfig.ReadonlyRootfs}} {{.HostConfig.PidMode}}' ds)" "true host" \
	"read-only root, the host's PID namespace"
t_log "the container's cgroup mounts (options, per mount):"
awk '$5 ~ /^\/sys\/fs\/cgroup/ {print "    " $5, $6}' "/proc/$dspid/mountinfo" | head -n 4 >&2
"${DOCKER[@]}" logs ds >"$KIT_DIR/ds.log" 2>&1
t_check "the loop's log has a round with exit 0" grep -q 'jsym attach --all: exit 0' "$KIT_DIR/ds.log"
sed 's/^/    /' "$KIT_DIR/ds.log" | tail -n 8 >&2
"${DOCKER[@]}" rm -f ds >/dev/null

t_case daemonset-containerd
# the same container as a containerd task, with the flags the kubelet's CRI
# plugin would give it (kube_docker.py --ctr: containerd's seccomp profile,
# its default capabilities less all but the manifest's)
mapfile -d '' -t CFLAGS < <(python3 "$JSYM_ROOT/tests/kit/kube_docker.py" "$DS" 4 --ctr) ||
	t_abort "cannot translate the DaemonSet for ctr"
t_log "ctr run ${CFLAGS[*]} IMAGE ID ${CMD[*]:0:2} ..."
three 3
dsid=$(dk_hexid)
cpid=$(dk_task "$dsid" "$DK_JSYM_IMAGE" cgroupfs "${CFLAGS[@]}" -- "${CMD[@]}") ||
	t_abort "the DaemonSet's task did not start"
t0=$SECONDS
for p in "$P_POD" "$P_DOCKER" "$P_CTR"; do
	t_check "JVM $p has the agent and a map within the first round" agent_within "$p" 40
done
t_log "all three attached $((SECONDS - t0)) s after the task started"
have=$(capsh --decode="$(awk '/^CapEff:/ {print $2}' "/proc/$cpid/status")" 2>/dev/null |
	sed 's/.*=//' | tr ',' '\n' | tr a-z A-Z | sort | xargs)
t_eq "$have" "$want" "the task has exactly the manifest's capabilities"
t_eq "$(awk '/^Seccomp:/ {print $2}' "/proc/$cpid/status")" 2 "a seccomp filter (containerd's default profile)"
t_eq "$(awk '/^NoNewPrivs:/ {print $2}' "/proc/$cpid/status")" 1 "no-new-privileges"
t_check "the task is in the node's PID namespace" \
	test "$(readlink "/proc/$cpid/ns/pid")" = "$(readlink /proc/self/ns/pid)"
dk_task_rm "$dsid"

t_case memory
pm=$(dk_run mem "$IMG" --memory 256m --tmpfs /tmp:rw,exec,size=64m) || t_abort "the limited JVM did not start"
t_run "${DOCKER[@]}" run --rm --network none "${FLAGS[@]}" "$DK_JSYM_IMAGE" jsym attach -v "$pm"
t_expect_rc 0
t_expect_err 'memory check: [0-9]+ KiB left below the JVM.s memory limit'
t_log "charging: $(grep -E 'memory-backed' <<<"$T_ERR" | head -n 1)"

t_case each-cap
# each capability less, against two fresh JVMs: one of uid 1000, one of
# root with Docker's default capabilities (the default of most images);
# NEEDED: those whose removal broke one of them
read -ra caps <<<"$want"
NEEDED=()
for cap in "${caps[@]}"; do
	cap=${cap#CAP_}
	mapfile -d '' -t less < <(python3 "$JSYM_ROOT/tests/kit/kube_docker.py" "$DS" 4 --drop-cap "$cap")
	broke=
	for user in 1000 0; do
		n=$(tr A-Z_ a-z- <<<"no-$cap-$user")
		p=$(dk_run "$n" "$IMG" --user "$user:$user") || t_abort "JVM $n did not start"
		t_run "${DOCKER[@]}" run --rm --network none "${less[@]}" "$DK_JSYM_IMAGE" jsym attach "$p"
		t_log "without $cap, JVM of uid $user: exit $T_RC: $(grep -m1 'jsym:' <<<"$T_ERR"$'\n'"$T_OUT")"
		[ "$T_RC" = 0 ] || broke=1
		"${DOCKER[@]}" rm -f "$n" >/dev/null
	done
	[ -n "$broke" ] && NEEDED+=("CAP_$cap")
done
t_eq "${NEEDED[*]}" "$want" "every capability of the manifest is needed by one of the two JVMs"

t_finish
