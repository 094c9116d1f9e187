/* SPDX-License-Identifier: Apache-2.0 */
/*
 * proc_ct.c - what names a target's container: the id its runtime gave it,
 * read from its cgroup path (see target.h, proc_container_id).
 *
 * Every runtime puts a container's processes in a cgroup whose last
 * component carries the 64-hex container id, in one of a few spellings
 * (cgroupfs driver / systemd driver):
 *   Docker      /docker/<id>                  /system.slice/docker-<id>.scope
 *   containerd  /kubepods/besteffort/pod<uid>/<id>, /<namespace>/<id>
 *               .../kubepods-besteffort-pod<uid>.slice/cri-containerd-<id>.scope
 *   CRI-O       /kubepods/.../crio-<id>       .../crio-<id>.scope
 *   podman      /libpod_parent/libpod-<id>    /machine.slice/libpod-<id>.scope
 * and some put helpers beside it that are not the container (podman's and
 * CRI-O's conmon: libpod-conmon-<id>.scope, crio-conmon-<id>.scope).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "proc.h"

#define CT_ID_HEX 64

static bool all_hex(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
			return false;
	return true;
}

/* The id in one path component [p, p+n), or NULL. */
static const char *component_id(const char *p, size_t n)
{
	static const char *const prefixes[] = {
		"docker-", "cri-containerd-", "crio-", "libpod-", "containerd-",
	};
	static const char scope[] = ".scope";

	if (n > sizeof(scope) - 1 &&
	    memcmp(p + n - (sizeof(scope) - 1), scope, sizeof(scope) - 1) == 0)
		n -= sizeof(scope) - 1;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t l = strlen(prefixes[i]);

		if (n > l && memcmp(p, prefixes[i], l) == 0) {
			p += l;
			n -= l;
			break;
		}
	}
	return n == CT_ID_HEX && all_hex(p, n) ? p : NULL;
}

int proc_container_id(const char *cgroup, char *out, size_t cap)
{
	const char *end, *start, *id;

	if (!cgroup || !out || cap < PROC_CT_ID_LEN + 1)
		return -EINVAL;
	out[0] = '\0';
	end = cgroup + strlen(cgroup);
	/* from the last component up: a process of a container may sit in a
	 * sub-cgroup of its own (systemd in a container, a cgroup v2 leaf) */
	while (end > cgroup) {
		start = end;
		while (start > cgroup && start[-1] != '/')
			start--;
		id = component_id(start, (size_t)(end - start));
		if (id) {
			memcpy(out, id, PROC_CT_ID_LEN);
			out[PROC_CT_ID_LEN] = '\0';
			return 0;
		}
		end = start > cgroup ? start - 1 : cgroup;
	}
	return -ENOENT;
}

int proc_cgroup_path(const char *text, size_t n, char *out, size_t cap)
{
	const char *line;
	size_t len;

	if (!text || !out || cap == 0)
		return -EINVAL;
	out[0] = '\0';
	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\0'))
		n--;
	if (n == 0)
		return -ENOENT;
	line = text + n;
	while (line > text && line[-1] != '\n')
		line--;
	len = (size_t)(text + n - line);
	if (len >= 3 && memcmp(line, "0::", 3) == 0) {
		line += 3;
		len -= 3;
	}
	if (len >= cap)
		len = cap - 1;
	memcpy(out, line, len);
	out[len] = '\0';
	/* a NUL inside the text ends the path there: what callers print */
	return 0;
}

bool proc_other_container(int pid_ns, int mnt_ns, const char *cgroup,
			  const char *self_cgroup)
{
	char id[PROC_CT_ID_LEN + 1], self[PROC_CT_ID_LEN + 1];

	if (pid_ns == 1 || mnt_ns == 1)
		return true;
	if (pid_ns == 0 && mnt_ns == 0)
		return false;
	if (!cgroup || proc_container_id(cgroup, id, sizeof(id)) != 0)
		return false;
	if (self_cgroup && proc_container_id(self_cgroup, self, sizeof(self)) == 0 &&
	    strcmp(self, id) == 0)
		return false;
	return true;
}
