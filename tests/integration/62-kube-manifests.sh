#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 62-kube-manifests.sh - the Kubernetes recipes parse and keep what jsym
# needs: deploy/kubernetes/*.yaml load as YAML; the DaemonSet has hostPID,
# drops every capability and adds exactly the four jsym needs (no
# privileged, no SYS_ADMIN), the runtime's seccomp profile, runs `jsym
# attach --all` in a loop with sleep, has limits, a writable /tmp emptyDir
# and one hostPath, /sys/fs/cgroup read-only (tests/docs/check_manifests.py;
# a manifest with hostPID removed and SYS_CHROOT dropped must be caught, and
# one without the seccomp profile or with the cgroups writable).  The Dockerfile copies the install
# tree.  61-install-tree runs jsym with the manifest's capabilities.
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
python3 -c 'import yaml' 2>/dev/null || t_skip "python3-yaml missing (mk/deps.sh test installs it)"
ds=$JSYM_ROOT/deploy/kubernetes/daemonset.yaml
chk=$JSYM_ROOT/tests/docs/check_manifests.py

t_case yaml-parses
for f in "$JSYM_ROOT"/deploy/kubernetes/*.yaml; do
	t_check "${f#$JSYM_ROOT/} is YAML" python3 -c 'import sys, yaml; list(yaml.safe_load_all(open(sys.argv[1])))' "$f"
done

t_case daemonset-fields
t_run python3 "$chk" "$ds"
t_expect_rc 0
t_eq "$T_OUT" "" "no problem"

t_case the-check-catches-a-difference
sed -e 's/hostPID: true/hostPID: false/' -e '/- SYS_CHROOT/d' "$ds" >"$KIT_DIR/broken.yaml"
t_run python3 "$chk" "$KIT_DIR/broken.yaml"
t_expect_rc 1
t_expect_out 'hostPID' 'SYS_CHROOT missing'
sed -e '/type: RuntimeDefault/d' -e 's/readOnly: true/readOnly: false/' "$ds" >"$KIT_DIR/broken2.yaml"
t_run python3 "$chk" "$KIT_DIR/broken2.yaml"
t_expect_rc 1
t_expect_out 'seccompProfile is not RuntimeDefault' 'hostPath /sys/fs/cgroup is not mounted readOnly'

t_case dockerfile
df=$JSYM_ROOT/deploy/Dockerfile
t_check "it runs make install into a DESTDIR" grep -q 'make install PREFIX=/usr/local DESTDIR=/out' "$df"
t_check "the ARCH build argument (x86_64 by default) reaches make" \
	bash -c "grep -q '^ARG ARCH=x86_64\$' '$df' && grep -q 'DESTDIR=/out ARCH=\\\$ARCH\$' '$df'"
t_check "the build stage runs on the build platform (cross builds)" \
	grep -q '^FROM --platform=\$BUILDPLATFORM \${DEBIAN} AS build' "$df"
t_check "Debian 12 by default (a local image where no registry is reachable)" \
	grep -q '^ARG DEBIAN=debian:12$' "$df"
t_check "it copies that tree into the image's root" grep -q 'COPY --from=build /out/ /' "$df"
t_check "the image carries the licence" grep -q '^COPY LICENSE /usr/local/share/doc/jsym/LICENSE$' "$df"
t_check "the image's PATH has /usr/local/bin" grep -q '^ENV PATH=.*/usr/local/bin' "$df"
t_check "the DaemonSet runs the installed jsym" grep -q '/usr/local/bin/jsym attach --all' "$ds"
t_finish
