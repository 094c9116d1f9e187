/* SPDX-License-Identifier: Apache-2.0 */
/*
 * procinfo.c - /proc/self facts for the journal header.
 */
#include "procinfo.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t procinfo_parse_starttime(const char *s)
{
	const char *p = strrchr(s, ')');
	int field = 2;

	if (!p)
		return 0;
	p++;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		field++;
		if (field == 22)
			return strtoull(p, NULL, 10);
		while (*p && *p != ' ')
			p++;
	}
	return 0;
}

uint64_t procinfo_starttime(void)
{
	char buf[1024];
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return procinfo_parse_starttime(buf);
}
