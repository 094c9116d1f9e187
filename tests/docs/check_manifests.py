#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/docs/check_manifests.py DAEMONSET_YAML

Check the fields of deploy/kubernetes/daemonset.yaml that jsym depends on;
print one line per problem, exit 1 if any.  docs/kubernetes.md says why each
matters.
"""
import sys

import yaml

NEEDED = {"SYS_PTRACE", "SETUID", "SETGID", "SYS_CHROOT"}
# the one hostPath: the node's cgroups, read-only (the memory check and the
# charging of the copies, docs/kubernetes.md)
HOSTPATHS = {"/sys/fs/cgroup": "/sys/fs/cgroup"}


def check(ds):
    bad = []
    spec = ds["spec"]["template"]["spec"]
    if spec.get("hostPID") is not True:
        bad.append("hostPID is not true: jsym would see only its own pod")
    c = spec["containers"][0]
    sc = c.get("securityContext", {})
    if sc.get("privileged"):
        bad.append("privileged: true (the capabilities below are enough)")
    caps = sc.get("capabilities", {})
    if caps.get("drop") != ["ALL"]:
        bad.append("capabilities.drop is not [ALL]")
    add = set(caps.get("add", []))
    for m in sorted(NEEDED - add):
        bad.append("capability %s missing" % m)
    for m in sorted(add - NEEDED):
        bad.append("capability %s is more than jsym needs" % m)
    if "SYS_ADMIN" in add:
        bad.append("SYS_ADMIN: not needed (jsym works through /proc/<pid>/root)")
    script = " ".join(c.get("command", []) + c.get("args", []))
    for want in ("jsym attach --all", "sleep", "while"):
        if want not in script:
            bad.append("the command has no '%s'" % want)
    lim = c.get("resources", {}).get("limits", {})
    if "cpu" not in lim or "memory" not in lim:
        bad.append("no cpu and memory limits")
    mounts = {m["mountPath"]: m["name"] for m in c.get("volumeMounts", [])}
    vols = {v["name"]: v for v in spec.get("volumes", [])}
    if sc.get("readOnlyRootFilesystem") and "/tmp" not in mounts:
        bad.append("read-only root without a writable /tmp")
    if (sc.get("seccompProfile") or {}).get("type") != "RuntimeDefault":
        bad.append("seccompProfile is not RuntimeDefault")
    by_name = {m["name"]: m for m in c.get("volumeMounts", [])}
    for name, v in vols.items():
        if "hostPath" not in v:
            continue
        path = v["hostPath"].get("path")
        m = by_name.get(name, {})
        if HOSTPATHS.get(path) != m.get("mountPath"):
            bad.append("volume %s is a hostPath of %s: jsym needs only /sys/fs/cgroup"
                       % (name, path))
        elif m.get("readOnly") is not True:
            bad.append("the hostPath %s is not mounted readOnly" % path)
    if "/sys/fs/cgroup" not in mounts:
        bad.append("no read-only /sys/fs/cgroup: the memory check cannot read "
                   "the JVMs' limits")
    if "/tmp" in mounts and "emptyDir" not in vols.get(mounts["/tmp"], {}):
        bad.append("/tmp is not an emptyDir")
    return bad


def main():
    docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
    ds = [d for d in docs if d.get("kind") == "DaemonSet"]
    if len(ds) != 1:
        print("expected one DaemonSet, found %d" % len(ds))
        return 1
    bad = check(ds[0])
    ns = [d for d in docs if d.get("kind") == "Namespace"]
    if ns and ns[0]["metadata"]["name"] != ds[0]["metadata"].get("namespace"):
        bad.append("the DaemonSet is not in the manifest's namespace")
    print("\n".join(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
