/* SPDX-License-Identifier: Apache-2.0 */
/*
 * agent_abi.h - what libjsym-agent.so exports beyond the JVMTI entry points,
 * for the programs that load it outside a JVM (the deploy layer's libc
 * probe, tests).  agent/jvm/agent.map lists the same symbols.
 */
#ifndef JSYM_AGENT_ABI_H
#define JSYM_AGENT_ABI_H

/*
 * int jsym_agent_probe(void): runs no JVMTI code; returns
 * JSYM_AGENT_PROBE_VALUE ("JSYM" in ASCII) when the library was loaded and
 * relocated, so a dlopen that "worked" is shown to have produced a callable
 * agent.
 */
#define JSYM_AGENT_PROBE_SYMBOL "jsym_agent_probe"
#define JSYM_AGENT_PROBE_VALUE 0x4a53594d

#endif
