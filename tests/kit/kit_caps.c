/* SPDX-License-Identifier: Apache-2.0 */
/* tests/kit/kit_caps.c - capability sets for the sidecar.  See kit_helper.h.
 *
 * Raw capset(2) instead of libcap: the helper must also build with
 * musl-gcc, which has neither libcap nor the kernel's uapi headers. */
#include "kit_helper.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CAPS_VERSION_3 0x20080522

struct caps_header {
	uint32_t version;
	int pid;
};

struct caps_data {
	uint32_t effective, permitted, inheritable;
};

/* Index = capability number, as in the kernel's uapi capability.h. */
static const char *const caps_names[] = {
	"chown", "dac_override", "dac_read_search", "fowner", "fsetid", "kill",
	"setgid", "setuid", "setpcap", "linux_immutable", "net_bind_service",
	"net_broadcast", "net_admin", "net_raw", "ipc_lock", "ipc_owner",
	"sys_module", "sys_rawio", "sys_chroot", "sys_ptrace", "sys_pacct",
	"sys_admin", "sys_boot", "sys_nice", "sys_resource", "sys_time",
	"sys_tty_config", "mknod", "lease", "audit_write", "audit_control",
	"setfcap", "mac_override", "mac_admin", "syslog", "wake_alarm",
	"block_suspend", "audit_read", "perfmon", "bpf", "checkpoint_restore",
};

#define CAPS_KNOWN ((int)(sizeof(caps_names) / sizeof(caps_names[0])))

static int caps_lookup(const char *name, size_t len)
{
	if (len > 4 && strncasecmp(name, "cap_", 4) == 0) {
		name += 4;
		len -= 4;
	}
	for (int i = 0; i < CAPS_KNOWN; i++)
		if (strlen(caps_names[i]) == len && strncasecmp(caps_names[i], name, len) == 0)
			return i;
	return -1;
}

int kit_caps_parse(const char *list, uint64_t *mask, char *err, size_t errlen)
{
	const char *p = list;

	*mask = 0;
	if (strcasecmp(list, "none") == 0)
		return 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		int cap;

		while (len > 0 && isspace((unsigned char)*p)) {
			p++;
			len--;
		}
		if (len > 0) {
			cap = caps_lookup(p, len);
			if (cap < 0) {
				snprintf(err, errlen, "unknown capability '%.*s' (use names like "
					 "sys_ptrace or cap_sys_ptrace)", (int)len, p);
				return -EINVAL;
			}
			*mask |= 1ULL << cap;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

int kit_caps_last(void)
{
	char buf[16] = "";
	int fd = open("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return CAPS_KNOWN - 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return CAPS_KNOWN - 1;
	buf[n] = '\0';
	n = strtol(buf, NULL, 10);
	return n > 0 && n < 64 ? (int)n : CAPS_KNOWN - 1;
}

int kit_caps_apply(uint64_t mask, int last_cap, char *err, size_t errlen)
{
	struct caps_header hdr = { .version = CAPS_VERSION_3, .pid = 0 };
	struct caps_data data[2];
	int e;

	/* Bounding set first: dropping needs CAP_SETPCAP, which capset below
	 * may remove. */
	for (int cap = 0; cap <= last_cap; cap++) {
		if (mask & (1ULL << cap))
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL) {
			e = errno;
			snprintf(err, errlen, "cannot drop %s from the bounding set: %s",
				 cap < CAPS_KNOWN ? caps_names[cap] : "?", strerror(e));
			return -e;
		}
	}
	for (int w = 0; w < 2; w++) {
		uint32_t bits = (uint32_t)(mask >> (32 * w));

		data[w].effective = data[w].permitted = data[w].inheritable = bits;
	}
	if (syscall(SYS_capset, &hdr, data) < 0) {
		e = errno;
		snprintf(err, errlen, "capset failed: %s", strerror(e));
		return -e;
	}
	/* Ambient needs each cap in permitted and inheritable (set just now);
	 * for uid 0 the kernel keeps these sets through execve. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0) {
		e = errno;
		snprintf(err, errlen, "cannot clear the ambient set: %s", strerror(e));
		return -e;
	}
	for (int cap = 0; cap <= last_cap; cap++) {
		if (!(mask & (1ULL << cap)))
			continue;
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) < 0) {
			e = errno;
			snprintf(err, errlen, "cannot raise %s in the ambient set: %s",
				 cap < CAPS_KNOWN ? caps_names[cap] : "?", strerror(e));
			return -e;
		}
	}
	return 0;
}
