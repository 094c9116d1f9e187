#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/kit/kube_pod.py - the pod a DaemonSet's template makes, for podman.

    kube_pod.py MANIFEST NAME IMAGE INTERVAL VOLUME_PREFIX > pod.yaml

Reads the DaemonSet of MANIFEST (deploy/kubernetes/daemonset.yaml) and
prints the Pod its template would make on a node, for `podman kube play`
(podman 4.3 plays Pods, not DaemonSets).  Changed, and only these:

  - the name (NAME), the image of every container (IMAGE: no registry is
    reachable in CI) and the INTERVAL_SECONDS value (INTERVAL: a test
    cannot wait a minute per round);
  - hostPID, which podman 4.3 ignores, becomes shareProcessNamespace: the
    JVMs the test adds to the pod (podman run --pod) are then visible to
    jsym as the node's JVMs are to the DaemonSet;
  - each emptyDir's name gets VOLUME_PREFIX: podman makes a named volume of
    it, and names are global to the machine.

On stderr: every field of the template podman 4.3 does not carry out, one
a line ("ignored: FIELD: why"), for the scenario's log and docs.
"""
import sys

import yaml

# What podman 4.3's kube play does not carry out, found by playing the
# template and inspecting the containers (docs/kubernetes.md).
IGNORED = {
    "hostPID": "podman 4.3 kube play ignores it (the pod gets a PID namespace of its own)",
    "priorityClassName": "no scheduler, nothing to preempt",
    "tolerations": "no scheduler, no taints",
    "automountServiceAccountToken": "no API server, no token to mount",
    "enableServiceLinks": "no services",
    "emptyDir.medium": "podman makes a named volume on disk, not a tmpfs",
    "emptyDir.sizeLimit": "a named volume has no size limit",
    "resources.requests": "no scheduler (limits are carried out)",
    "updateStrategy": "a DaemonSet field: podman plays the pod only",
}


def main(argv):
    if len(argv) != 6:
        sys.stderr.write(__doc__)
        return 2
    manifest, name, image, interval, prefix = argv[1:]
    with open(manifest, encoding="utf-8") as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    ds = [d for d in docs if d.get("kind") == "DaemonSet"]
    if len(ds) != 1:
        sys.stderr.write("%s: expected one DaemonSet, found %d\n" % (manifest, len(ds)))
        return 1
    template = ds[0]["spec"]["template"]
    spec = template["spec"]
    seen = set()
    if spec.pop("hostPID", False):
        spec["shareProcessNamespace"] = True
        seen.add("hostPID")
    for key in ("priorityClassName", "tolerations", "automountServiceAccountToken",
                "enableServiceLinks"):
        if key in spec:
            seen.add(key)
    if "updateStrategy" in ds[0]["spec"]:
        seen.add("updateStrategy")
    renamed = {}
    for vol in spec.get("volumes", []):
        if "emptyDir" in vol:
            for key in ("medium", "sizeLimit"):
                if key in (vol["emptyDir"] or {}):
                    seen.add("emptyDir." + key)
            renamed[vol["name"]] = prefix + vol["name"]
            vol["name"] = renamed[vol["name"]]
    for c in spec["containers"]:
        c["image"] = image
        for env in c.get("env", []):
            if env.get("name") == "INTERVAL_SECONDS":
                env["value"] = str(interval)
        for m in c.get("volumeMounts", []):
            m["name"] = renamed.get(m["name"], m["name"])
        if "requests" in c.get("resources", {}):
            seen.add("resources.requests")
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": template["metadata"].get("labels", {})},
        "spec": spec,
    }
    for key in sorted(seen):
        sys.stderr.write("ignored: %s: %s\n" % (key, IGNORED[key]))
    yaml.safe_dump(pod, sys.stdout, sort_keys=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
