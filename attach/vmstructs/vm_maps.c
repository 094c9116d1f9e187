/* SPDX-License-Identifier: Apache-2.0 */
/* vm_maps.c - where a library is mapped, from /proc/<pid>/maps text. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "hexdigit.h"
#include "vm_jvm.h"

/* A hex number ending at a blank or `stop`; advances *p.  false if none. */
static bool hex_field(const char **p, const char *end, char stop, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int n = 0;

	while (s < end && n < 17) {
		int d = hex_digit((unsigned char)*s);

		/* lower case only, as this parser always took it: the kernel
		   writes maps with %lx, so 'A'..'F' is not its text */
		if (d < 0 || (*s >= 'A' && *s <= 'F'))
			break;
		x = x << 4 | (uint64_t)d;
		s++;
		n++;
	}
	if (n == 0 || n > 16 || s >= end || (*s != stop && *s != ' '))
		return false;
	*v = x;
	*p = s + 1;
	return true;
}

static bool dec_field(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int n = 0;

	while (s < end && *s >= '0' && *s <= '9' && n < 20) {
		x = x * 10 + (uint64_t)(*s - '0');
		s++;
		n++;
	}
	if (n == 0)
		return false;
	*v = x;
	*p = s;
	return true;
}

int vm_maps_lib(const char *buf, size_t len, const char *path, struct vm_lib_span *out)
{
	const char *p = buf, *end = buf + len;
	size_t plen = strlen(path);
	bool based = false;

	memset(out, 0, sizeof(*out));
	out->lo = UINT64_MAX;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *s = p;
		const char *le = nl ? nl : end;
		uint64_t start, stop, off, dummy, inode;

		p = nl ? nl + 1 : end;
		/* start-end perms offset dev inode path */
		if (!hex_field(&s, le, '-', &start) || !hex_field(&s, le, ' ', &stop))
			continue;
		if (le - s < 5)
			continue;
		s += 5;         /* "r-xp " */
		if (!hex_field(&s, le, ' ', &off) || !hex_field(&s, le, ':', &dummy) ||
		    !hex_field(&s, le, ' ', &dummy) || !dec_field(&s, le, &inode))
			continue;
		while (s < le && *s == ' ')
			s++;
		/* " (deleted)": the file was unlinked or had another renamed over
		 * it since; its span is still found, and target_open_mapped then
		 * refuses what the path now names (not that inode) */
		if ((size_t)(le - s) >= plen + 10 && !memcmp(le - 10, " (deleted)", 10))
			le -= 10;
		if ((size_t)(le - s) != plen || memcmp(s, path, plen) != 0 || stop <= start)
			continue;
		if (start < out->lo)
			out->lo = start;
		if (stop > out->hi)
			out->hi = stop;
		if (off == 0 && !based) {
			out->base = start;
			out->inode = inode;
			based = true;
		}
		out->nmaps++;
	}
	return based ? 0 : -ENOENT;
}


int vm_maps_lib_in_root(const char *buf, size_t len, const char *root, const char *path,
			struct vm_lib_span *out)
{
	char full[1024];
	size_t rlen = root ? strlen(root) : 0;

	while (rlen > 0 && root[rlen - 1] == '/')
		rlen--;
	/* maps names the file from our root: the chroot's path in front */
	if (rlen > 0 && root[0] == '/' && path[0] == '/' &&
	    snprintf(full, sizeof(full), "%.*s%s", (int)rlen, root, path) < (int)sizeof(full) &&
	    vm_maps_lib(buf, len, full, out) == 0)
		return 0;
	/* not re-rooted (mapped before the chroot, or no chroot) */
	return vm_maps_lib(buf, len, path, out);
}
