/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_agent.c - a JVMTI-shaped agent for the OpenJ9 emulator tests.
 *
 * Agent_OnAttach(vm, "out=FILE,rc=N,...") appends the whole options string
 * plus '\n' to FILE and returns N (default 0).  It never touches vm (the
 * emulator passes NULL), so it can be loaded by openj9_emu, never by a JVM
 * that expects a real agent to do something.
 *
 * It also answers jsym's libc probe (jsym_agent_probe, agent_abi.h), so a
 * scenario can hand it to `jsym attach --agent-dir` as a stand-in for
 * libjsym-agent.so: the real agent calls GetEnv through its JavaVM, which
 * the emulator does not have.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_abi.h"

int Agent_OnAttach(void *vm, char *options, void *reserved);

int Agent_OnAttach(void *vm, char *options, void *reserved)
{
	char *copy, *tok, *save = NULL;
	const char *out = NULL;
	int rc = 0;

	(void)vm;
	(void)reserved;
	if (!options)
		return 0;
	copy = strdup(options);
	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (strncmp(tok, "out=", 4) == 0)
			out = tok + 4;
		else if (strncmp(tok, "rc=", 3) == 0)
			rc = atoi(tok + 3);
	}
	if (out) {
		int fd = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

		if (fd >= 0) {
			size_t n = strlen(options);

			if (write(fd, options, n) != (ssize_t)n || write(fd, "\n", 1) != 1)
				rc = rc ? rc : 99;
			close(fd);
		}
	}
	free(copy);
	return rc;
}

int jsym_agent_probe(void);

int jsym_agent_probe(void)
{
	return JSYM_AGENT_PROBE_VALUE;
}
