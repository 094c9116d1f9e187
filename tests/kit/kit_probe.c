/* SPDX-License-Identifier: Apache-2.0 */
/* tests/kit/kit_probe.c - kit-probe: report how this process was loaded.
 *
 *   kit-probe [CMD [ARGS...]]
 *
 * Prints one line `probe: pid=N loader=PATH libc=PATH` (PATH "-" when no
 * such mapping) and then, if given, execs CMD.  Built dynamically with
 * musl-gcc (musl-build/kit/kit-probe) and glibc's gcc
 * (glibc-build/kit/kit-probe), so a test can show which loader and libc a
 * container really provides, and that a dynamic program runs as its PID 1.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* First mapped file whose name contains needle, into out. */
static void find_mapping(const char *needle, char *out, size_t outlen)
{
	char line[4096];
	FILE *maps = fopen("/proc/self/maps", "r");

	snprintf(out, outlen, "-");
	if (!maps)
		return;
	while (fgets(line, sizeof(line), maps)) {
		char *path = strchr(line, '/');

		if (!path || !strstr(path, needle))
			continue;
		path[strcspn(path, "\n")] = '\0';
		snprintf(out, outlen, "%s", path);
		break;
	}
	fclose(maps);
}

int main(int argc, char **argv)
{
	char loader[1024], libc[1024];

	find_mapping("/ld-", loader, sizeof(loader));
	find_mapping("/libc", libc, sizeof(libc));
	printf("probe: pid=%d loader=%s libc=%s\n", (int)getpid(), loader, libc);
	fflush(stdout);
	if (argc > 1) {
		execv(argv[1], argv + 1);
		perror("probe: exec");
		return 127;
	}
	return 0;
}
