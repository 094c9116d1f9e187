#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 20-agent-container.sh - the agents inside containers (tests/kit).
#
#  1 Debian container, JDK 17 as PID 1, uid 1000, private /tmp: the host's
#    jcmd loads the glibc agent (bound at /opt/jsym-agent); the container's
#    /tmp gets perf-1.map (the JVM's own pid), jsym-1.journal (header pid 1)
#    and jsym-1.log, owned by uid 1000, mode 0644; a re-attach adds nothing.
#  2 Alpine container: the musl build dlopens under Alpine's musl loader and
#    jsym_agent_probe() returns 0x4a53594d.
set -u
source "${JSYM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"
t_need_root "namespaces for the containers"
source "$JSYM_ROOT/tests/integration/agent_lib.bash"
ag_init
jdk=/usr/lib/jvm/java-17-openjdk-amd64
[ -x "$jdk/bin/jcmd" ] || t_skip "needs JDK 17 on the host (jcmd)"
java=$(kit_java_build)

echo "=== 1: glibc agent in a Debian container's JVM, loaded by the host's jcmd"
rootfs=$(kit_rootfs debian)
ct=$(kit_start agentdeb "$rootfs" --uid 1000 --gid 1000 --cwd /tmp \
	--bind "$java:/opt/jsym-java:ro" --bind "$JSYM_BUILD:/opt/jsym-agent:ro" \
	--log "$AG_TMP/deb.out" -- \
	/usr/lib/jvm/java-17-openjdk-amd64/bin/java -Xmx64m -XX:+UseSerialGC \
	-cp /opt/jsym-java AgentBusy 120) || t_abort "kit_start agentdeb"
kit_wait_jvm "$ct" 60 || t_abort "container JVM did not start"
for i in $(seq 1 100); do
	grep -q 'agent-busy: started' "$AG_TMP/deb.out" && break
	sleep 0.2
done
r=/proc/$ct/root/tmp
ag_load "$jdk" "$ct" "dir=/tmp" /opt/jsym-agent/libjsym-agent.so
t_check "agent loaded in the container (return code 0)" [ "$AG_LOAD_RC" = 0 ]
sleep 0.5
ls -ln "$r" | grep -E 'perf-|jsym-' || true
for f in perf-1.map jsym-1.journal jsym-1.log; do
	t_check "container /tmp/$f: regular, uid 1000, mode 0644" \
		[ -f "$r/$f" ] && [ "$(stat -c '%u %a' "$r/$f")" = "1000 644" ]
done
t_check "container map valid, Java methods named" ag_py map "$r/perf-1.map"
t_check "container map has AgentBusy methods" grep -q ' long AgentBusy.heavyCompute(int)' "$r/perf-1.map"
t_check "journal header pid is 1 (the JVM's own getpid)" \
	bash -c "python3 '$JSYM_ROOT/tests/integration/agent_check.py' journal '$r/jsym-1.journal' | grep -q 'pid 1,'"
t_check "nothing written to the host /tmp for pid $ct or 1" \
	bash -c "[ ! -e /tmp/perf-$ct.map ] && [ ! -e /tmp/jsym-$ct.log ] && [ ! -e /tmp/jsym-1.journal ]"
ag_load "$jdk" "$ct" "dir=/tmp" /opt/jsym-agent/libjsym-agent.so
sleep 0.3
t_check "re-attach in the container: no duplicate lines" ag_py map "$r/perf-1.map"

echo "=== 2: musl build under Alpine's loader"
alp=$(kit_rootfs alpine)
kit_start agentprobe "$alp" --bind "$JSYM_MUSL_BUILD:/opt/jsym-musl:ro" --log "$AG_TMP/probe.out" -- \
	/opt/jsym-musl/tests/probe_agent /opt/jsym-musl/libjsym-agent.so >/dev/null ||
	t_abort "kit_start agentprobe"
st=$(kit_wait_exit agentprobe 30) || st=timeout
cat "$AG_TMP/probe.out"
t_check "alpine: probe_agent exit 0 (was $st)" [ "$st" = 0 ]
t_check "alpine: jsym_agent_probe() == 0x4a53594d" grep -q 'probe 0x4a53594d' "$AG_TMP/probe.out"
t_finish
