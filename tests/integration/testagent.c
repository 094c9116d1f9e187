/* SPDX-License-Identifier: Apache-2.0 */
/*
 * testagent.c - a tiny JVMTI agent for the attach scenarios, built by
 * tests/tests.mk into glibc-build/tests/integration/libjsymtestagent.so
 * (scenarios load a copy in their own temp dir: la_test_agent).
 *
 * Options: "<code>[,<file>]".  Agent_OnAttach appends one line
 * "attached <code>" to <file> when given (proof the JVM really ran it), then
 * returns <code>, so a scenario can check that jsym maps 0 to success and a
 * non-zero code to exit status 4 with that code printed.  Written against
 * the JNI calling convention without jvmti.h so it builds anywhere.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int Agent_OnAttach(void *vm, char *options, void *reserved);

__attribute__((visibility("default")))
int Agent_OnAttach(void *vm, char *options, void *reserved)
{
	char line[64];
	const char *file;
	int code, fd, n;

	(void)vm;
	(void)reserved;
	if (!options || !*options)
		return 0;
	code = atoi(options);
	file = strchr(options, ',');
	if (file && file[1]) {
		fd = open(file + 1, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0) {
			n = snprintf(line, sizeof(line), "attached %d\n", code);
			if (write(fd, line, (size_t)n) != n)
				code = 99;
			close(fd);
		}
	}
	return code;
}
