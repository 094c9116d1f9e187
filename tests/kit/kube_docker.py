#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/kit/kube_docker.py - a DaemonSet's container as `docker run` flags.

    kube_docker.py MANIFEST INTERVAL [--drop-cap CAP] > flags

Reads the DaemonSet of MANIFEST (deploy/kubernetes/daemonset.yaml) and
prints, each ended by a NUL (`mapfile -d ''`), the `docker run` options that give its first container
what a node's runtime gives it (the image and the command are not among
them: the caller adds the image, and the command comes from --command):

  hostPID: true                      --pid host
  securityContext.capabilities       --cap-drop ALL, --cap-add each
  readOnlyRootFilesystem: true       --read-only
  allowPrivilegeEscalation: false    --security-opt no-new-privileges
  seccompProfile: RuntimeDefault     --security-opt seccomp=<Docker's
                                     default>: no option (Docker applies its
                                     default profile unless told otherwise;
                                     the scenario checks it is on)
  runAsUser / runAsGroup             --user UID:GID
  resources.limits memory / cpu      --memory, --cpus
  emptyDir medium Memory, sizeLimit  --tmpfs PATH:size=...
  hostPath (readOnly)                -v SRC:DST[:ro]
  env                                -e NAME=VALUE (INTERVAL_SECONDS: INTERVAL)

--drop-cap CAP leaves CAP out of the added capabilities (the scenario tries
each).  `kube_docker.py MANIFEST INTERVAL --ctr` prints the same for
`ctr run` (containerd 1.6, as the kubelet's CRI plugin would set it):
--with-ns pid:/proc/1/ns/pid for hostPID (the PID namespace of the caller's
PID 1: the node's), --cap-drop of each of containerd's default capabilities
the manifest does not add (ctr has no ALL), --seccomp for RuntimeDefault,
--read-only, --memory-limit, --cpus, --mount for the emptyDir (a tmpfs)
and the hostPath (rbind, ro), --env; no-new-privileges is ctr's default,
uid 0 its default user.  `kube_docker.py MANIFEST INTERVAL --command` prints the container's
command instead, a word for each NUL.  Any field of the container's
securityContext or the pod's not translated here is an error: a new field
in the manifest must be translated (or its absence argued) before CI passes.
"""
import sys

import yaml

SIZES = {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}
POD_KNOWN = {"hostPID", "automountServiceAccountToken", "enableServiceLinks",
             "tolerations", "priorityClassName", "terminationGracePeriodSeconds",
             "containers", "volumes", "securityContext"}
SC_KNOWN = {"privileged", "allowPrivilegeEscalation", "readOnlyRootFilesystem",
            "runAsUser", "runAsGroup", "capabilities", "seccompProfile",
            "runAsNonRoot"}


def size(v):
    v = str(v)
    for suf, mul in SIZES.items():
        if v.endswith(suf):
            return str(int(v[:-len(suf)]) * mul)
    return v


def cpus(v):
    v = str(v)
    return str(int(v[:-1]) / 1000) if v.endswith("m") else v


def container_of(ds):
    """The pod spec, its first container, and the securityContext it runs
    with: the pod's, overridden field by field by the container's."""
    spec = ds["spec"]["template"]["spec"]
    c = spec["containers"][0]
    sc = dict(spec.get("securityContext") or {})
    sc.update(c.get("securityContext") or {})
    return spec, c, sc


def limit_flags(c, memory_flag):
    """resources.limits: memory (with the runtime's flag) and cpu."""
    lim = (c.get("resources") or {}).get("limits") or {}
    out = []
    if "memory" in lim:
        out += [memory_flag, size(lim["memory"])]
    if "cpu" in lim:
        out += ["--cpus", cpus(lim["cpu"])]
    return out


def mounts(spec, c):
    """The container's volumeMounts, each with the volume it names."""
    vols = {v["name"]: v for v in spec.get("volumes", [])}
    return [(m, vols[m["name"]]) for m in c.get("volumeMounts", [])]


def env_flags(c, interval, env_flag):
    """env, INTERVAL_SECONDS given the scenario's interval."""
    out = []
    for e in c.get("env", []):
        val = str(interval) if e["name"] == "INTERVAL_SECONDS" else e["value"]
        out += [env_flag, "%s=%s" % (e["name"], val)]
    return out


def flags(ds, interval, drop):
    spec, c, sc = container_of(ds)
    for k in spec:
        if k not in POD_KNOWN:
            raise SystemExit("pod field %s: not translated to docker run" % k)
    for k in sc:
        if k not in SC_KNOWN:
            raise SystemExit("securityContext.%s: not translated to docker run" % k)
    out = []
    if spec.get("hostPID"):
        out += ["--pid", "host"]
    if sc.get("privileged"):
        out.append("--privileged")
    caps = sc.get("capabilities") or {}
    for cap in caps.get("drop", []):
        out += ["--cap-drop", cap]
    for cap in caps.get("add", []):
        if cap != drop:
            out += ["--cap-add", cap]
    if sc.get("readOnlyRootFilesystem"):
        out.append("--read-only")
    if sc.get("allowPrivilegeEscalation") is False:
        out += ["--security-opt", "no-new-privileges"]
    prof = (sc.get("seccompProfile") or {}).get("type")
    if prof == "Unconfined":
        out += ["--security-opt", "seccomp=unconfined"]
    elif prof not in (None, "RuntimeDefault"):
        raise SystemExit("seccompProfile %s: not translated" % prof)
    if "runAsUser" in sc:
        out += ["--user", "%s:%s" % (sc["runAsUser"], sc.get("runAsGroup", 0))]
    out += limit_flags(c, "--memory")
    for m, v in mounts(spec, c):
        if "emptyDir" in v:
            ed = v["emptyDir"] or {}
            opt = m["mountPath"]
            if ed.get("medium") == "Memory" and "sizeLimit" in ed:
                opt += ":size=" + size(ed["sizeLimit"])
            out += ["--tmpfs", opt]
        elif "hostPath" in v:
            ro = m.get("readOnly") or False
            out += ["-v", "%s:%s%s" % (v["hostPath"]["path"], m["mountPath"],
                                       ":ro" if ro else "")]
        else:
            raise SystemExit("volume %s: not translated" % m["name"])
    return out + env_flags(c, interval, "-e")


# containerd 1.6's default capability set (oci.populateDefaultUnixSpec)
CTR_DEFAULT_CAPS = ["CHOWN", "DAC_OVERRIDE", "FSETID", "FOWNER", "MKNOD", "NET_RAW",
                    "SETGID", "SETUID", "SETFCAP", "SETPCAP", "NET_BIND_SERVICE",
                    "SYS_CHROOT", "KILL", "AUDIT_WRITE"]


def ctr_flags(ds, interval):
    spec, c, sc = container_of(ds)
    out = []
    if spec.get("hostPID"):
        out += ["--with-ns", "pid:/proc/1/ns/pid"]
    caps = sc.get("capabilities") or {}
    add = caps.get("add", [])
    if caps.get("drop") == ["ALL"]:
        for cap in CTR_DEFAULT_CAPS:
            if cap not in add:
                out += ["--cap-drop", "CAP_" + cap]
    for cap in add:
        if cap not in CTR_DEFAULT_CAPS:
            out += ["--cap-add", "CAP_" + cap]
    if (sc.get("seccompProfile") or {}).get("type") == "RuntimeDefault":
        out.append("--seccomp")
    if sc.get("readOnlyRootFilesystem"):
        out.append("--read-only")
    if sc.get("allowPrivilegeEscalation") is not False:
        out.append("--allow-new-privs")
    out += limit_flags(c, "--memory-limit")
    for m, v in mounts(spec, c):
        if "emptyDir" in v:
            ed = v["emptyDir"] or {}
            opt = "size=" + size(ed["sizeLimit"]) if "sizeLimit" in ed else "size=65536k"
            out += ["--mount", "type=tmpfs,src=tmpfs,dst=%s,options=%s" % (m["mountPath"], opt)]
        elif "hostPath" in v:
            ro = ":ro" if m.get("readOnly") else ""
            out += ["--mount", "type=bind,src=%s,dst=%s,options=rbind%s"
                    % (v["hostPath"]["path"], m["mountPath"], ro)]
    return out + env_flags(c, interval, "--env")


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    ds = [d for d in docs if d.get("kind") == "DaemonSet"]
    if len(ds) != 1:
        sys.stderr.write("%s: expected one DaemonSet\n" % argv[1])
        return 1
    if argv[3:] == ["--command"]:
        c = ds[0]["spec"]["template"]["spec"]["containers"][0]
        words = c.get("command", []) + c.get("args", [])
    elif argv[3:] == ["--ctr"]:
        flags(ds[0], argv[2], None)     # the same refusal of unknown fields
        words = ctr_flags(ds[0], argv[2])
    else:
        drop = argv[4] if argv[3:4] == ["--drop-cap"] else None
        words = flags(ds[0], argv[2], drop)
    for w in words:
        if "\n" in w and argv[3:] != ["--command"]:
            raise SystemExit("a flag with a newline: %r" % w)
    sys.stdout.write("\0".join(words) + "\0")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
