/* SPDX-License-Identifier: Apache-2.0 */
/* jdk_version.c - JDK versions from release/libjvm, agent verdicts (jdk_version.h). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "jdk_version.h"
#include "proc_span.h"
#include "target.h"

/* The version characters of a JRE string: digits, '.', '_' and letters. */
static bool version_char(char c)
{
	return (c >= '0' && c <= '9') || c == '.' || c == '_' ||
	       (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * Is the " JRE (" at p (within the string that starts at str) the one of
 * the VM info string?  That one has ") for " before it, in the same
 * NUL-terminated string, and a digit after it.
 */
static bool vm_info_at(const char *str, const char *p, const char *end)
{
	static const char mark[] = " JRE (";
	const char *v = p + sizeof(mark) - 1;
	size_t n = (size_t)(p - str);

	if (v >= end || *v < '0' || *v > '9')
		return false;
	for (size_t i = 0; i + 6 <= n; i++)
		if (!memcmp(str + i, ") for ", 6))
			return true;
	return false;
}

int jdk_parse_vm_info(const char *buf, size_t len, char *ver, size_t cap)
{
	static const char mark[] = " JRE (";
	const char *p = buf, *end = buf + len;

	if (!buf || !ver || cap == 0)
		return -EINVAL;
	while ((p = memmem(p, (size_t)(end - p), mark, sizeof(mark) - 1)) != NULL) {
		const char *str = p, *v = p + sizeof(mark) - 1, *e = v;
		struct jdk_version jv;

		/* the start of this NUL-terminated string, at most 256 back */
		while (str > buf && str[-1] != '\0' && p - str < 256)
			str--;
		if (!vm_info_at(str, p, end)) {
			p++;
			continue;
		}
		while (e < end && version_char(*e))
			e++;
		if (e >= end || (*e != '-' && *e != '+' && *e != ')'))
			return -ENOENT;
		if ((size_t)(e - v) >= cap)
			return -ENAMETOOLONG;
		memcpy(ver, v, (size_t)(e - v));
		ver[e - v] = '\0';
		if (jdk_parse_version(ver, &jv) != 0)
			return -ENOENT;
		return jv.major;
	}
	return -ENOENT;
}

int jdk_parse_version(const char *s, struct jdk_version *v)
{
	struct span sp = { s, s + (s ? strlen(s) : 0) };
	uint64_t a, b = 0, c = 0;

	v->major = 0;
	v->update = -1;
	if (!s || eat_udec(&sp, 1000, &a) < 0 || a == 0)
		return -EPROTO;
	if (a == 1) {
		/* 1.8.0_382: the major after "1.", the update after '_' */
		if (!eat_prefix(&sp, ".") || eat_udec(&sp, 1000, &b) < 0 || b == 0)
			return -EPROTO;
		v->major = (int)b;
		if (eat_prefix(&sp, ".") && eat_udec(&sp, 1000, &c) == 0 &&
		    eat_prefix(&sp, "_") && eat_udec(&sp, 100000, &c) == 0)
			v->update = (int)c;
		return 0;
	}
	v->major = (int)a;
	v->update = 0;
	if (eat_prefix(&sp, ".")) {
		if (eat_udec(&sp, 1000, &b) < 0)
			return 0;
		if (eat_prefix(&sp, ".") && eat_udec(&sp, 100000, &c) == 0)
			v->update = (int)c;
	}
	return 0;
}

/*
 * Known problems of the agent's way into a JVM, by version.  A JDK Debian
 * or a vendor fixes later changes a row here, not code.
 */
static const struct {
	int major;
	int fixed_in;           /* update that has the fix */
	const char *what;
} known[] = {
	/* JDK-8305165 (8u only): the ServiceThread does not keep queued
	 * nmethods alive, so post_compiled_method_load can read a zombied
	 * one and crash the JVM once an agent enables CompiledMethodLoad;
	 * fixed in 8u382 (July 2023) */
	{ 8, 382, "JDK-8305165: JDK 8 before 8u382 can crash in "
		  "JvmtiExport::post_compiled_method_load once an agent enables "
		  "CompiledMethodLoad, which the jsym agent does" },
};

enum jdk_verdict jdk_agent_verdict(int major, const char *version,
				   struct err_text *why)
{
	struct jdk_version v = { 0, -1 };

	if (version && version[0])
		jdk_parse_version(version, &v);
	if (!v.major)
		v.major = major;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (known[i].major != v.major)
			continue;
		if (v.update < 0) {
			return err_set(why, JDK_AGENT_WARN, "the update of this JDK "
				       "%d is unknown, so jsym cannot tell whether it "
				       "has the fix of %s (fixed in %du%d)", v.major,
				       known[i].what, v.major, known[i].fixed_in);
		}
		if (v.update < known[i].fixed_in) {
			return err_set(why, JDK_AGENT_REFUSE, "%s (this JVM is "
				       "%du%d, the fix is in %du%d)", known[i].what,
				       v.major, v.update, v.major, known[i].fixed_in);
		}
	}
	if (why)
		why->msg[0] = '\0';
	return JDK_AGENT_OK;
}
