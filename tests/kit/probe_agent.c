/* SPDX-License-Identifier: Apache-2.0 */
/*
 * probe_agent.c - dlopen a jsym agent build and call jsym_agent_probe.
 * Built with musl-gcc (agent/jvm/agent.mk) so it runs under the musl loader:
 *   probe_agent /path/libjsym-agent.so   -> prints "probe 0x4a53594d", exit 0
 */
#include <dlfcn.h>
#include <stdio.h>

#include "agent_abi.h"

int main(int argc, char **argv)
{
	void *h;
	int (*probe)(void);
	int v;

	if (argc != 2) {
		fprintf(stderr, "usage: probe_agent /path/to/libjsym-agent.so\n");
		return 1;
	}
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "probe_agent: cannot dlopen %s: %s\n", argv[1], dlerror());
		return 2;
	}
	*(void **)&probe = dlsym(h, JSYM_AGENT_PROBE_SYMBOL);
	if (!probe) {
		fprintf(stderr, "probe_agent: %s has no jsym_agent_probe: %s\n", argv[1],
			dlerror());
		return 3;
	}
	v = probe();
	printf("probe 0x%08x\n", (unsigned)v);
	return v == JSYM_AGENT_PROBE_VALUE ? 0 : 4;
}
