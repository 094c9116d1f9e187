/* SPDX-License-Identifier: Apache-2.0 */
/* procstatus.c - the NStgid: line of /proc/<pid>/status (procstatus.h). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "procstatus.h"

int status_nstgid(const char *val, size_t len, pid_t *last, int *levels)
{
	const char *p = val, *end = val + len;
	pid_t v = 0;
	int n = 0;

	for (;;) {
		uint64_t x = 0;
		const char *start;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end || *p == '\n')
			break;
		start = p;
		while (p < end && *p >= '0' && *p <= '9') {
			x = x * 10 + (uint64_t)(*p++ - '0');
			if (x > INT32_MAX)
				return -EPROTO;
		}
		if (p == start || x == 0)
			return -EPROTO;
		v = (pid_t)x;
		n++;
	}
	if (n == 0)
		return -EPROTO;
	*last = v;
	*levels = n;
	return 0;
}

int status_find_nstgid(const char *text, size_t len, pid_t *last, int *levels)
{
	static const char key[] = "NStgid:";
	const size_t klen = sizeof(key) - 1;
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;

		if ((size_t)(eol - p) >= klen && memcmp(p, key, klen) == 0)
			return status_nstgid(p + klen, (size_t)(eol - p - klen), last, levels);
		p = nl ? nl + 1 : end;
	}
	return -ENOENT;
}
