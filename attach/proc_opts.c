/* proc_opts.c - JVM options from cmdline/environ, JDK release facts (proc.h). */
#include <errno.h>
#include <string.h>

#include "proc.h"
#include "proc_span.h"

/* Copy a span into a fixed buffer; "" when it does not fit or has a NUL. */
static void copy_span(struct span v, char *out, size_t cap)
{
	size_t n = (size_t)(v.end - v.p);

	if (n < cap && !memchr(v.p, '\0', n)) {
		memcpy(out, v.p, n);
		out[n] = '\0';
	} else {
		out[0] = '\0';
	}
}

/* Apply one option word. */
static void apply_opt(struct span w, struct proc_jvm_opts *o)
{
	struct span v = w;

	if (eat_prefix(&v, "-Dcom.ibm.tools.attach.directory="))
		copy_span(v, o->attach_dir, sizeof(o->attach_dir));
	else if (span_equals(w, "-XX:+DisableAttachMechanism"))
		o->disable_attach = true;
	else if (span_equals(w, "-XX:-DisableAttachMechanism"))
		o->disable_attach = false;
	else if (span_equals(w, "-Xrs"))
		o->xrs = true;
	else if (span_equals(w, "-XX:+StartAttachListener"))
		o->start_listener = true;
	else if (span_equals(w, "-XX:-StartAttachListener"))
		o->start_listener = false;
}

/* Launcher options whose value is the next word. */
static bool takes_value(struct span w)
{
	static const char *const opts[] = {
		"-cp", "-classpath", "--class-path", "-p", "--module-path",
		"--upgrade-module-path", "--add-modules", "--limit-modules",
		"--add-reads", "--add-exports", "--add-opens", "--patch-module",
		"--enable-native-access", "--source",
	};

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (span_equals(w, opts[i]))
			return true;
	return false;
}

int proc_parse_cmdline(const char *buf, size_t len, struct proc_jvm_opts *o)
{
	struct span all, w;
	bool first = true;

	if (!buf || !o)
		return -EINVAL;
	all.p = buf;
	all.end = buf + len;
	while (next_elem(&all, &w)) {
		if (first) {            /* argv[0] */
			first = false;
			continue;
		}
		if (w.p == w.end || *w.p != '-')
			break;          /* main class: the rest is the app's */
		if (span_equals(w, "-jar") || span_equals(w, "-m") ||
		    span_equals(w, "--module") || span_equals(w, "--") ||
		    eat_prefix(&(struct span){ w.p, w.end }, "--module="))
			break;
		if (takes_value(w)) {
			next_elem(&all, &w);
			continue;
		}
		apply_opt(w, o);
	}
	return 0;
}

/* Words of an options variable, separated by blanks. */
static void apply_opt_words(struct span v, struct proc_jvm_opts *o)
{
	for (;;) {
		struct span w;

		skip_blanks(&v);
		if (v.p == v.end)
			return;
		w.p = v.p;
		while (v.p < v.end && !is_blank(*v.p))
			v.p++;
		w.end = v.p;
		apply_opt(w, o);
	}
}

int proc_parse_environ(const char *buf, size_t len, struct proc_jvm_opts *o)
{
	struct span all, e;

	if (!buf || !o)
		return -EINVAL;
	all.p = buf;
	all.end = buf + len;
	o->environ_read = true;
	while (next_elem(&all, &e)) {
		if (eat_prefix(&e, "JAVA_TOOL_OPTIONS=") ||
		    eat_prefix(&e, "JDK_JAVA_OPTIONS=") ||
		    eat_prefix(&e, "_JAVA_OPTIONS=")) {
			apply_opt_words(e, o);
		} else if (eat_prefix(&e, "TMPDIR=")) {
			copy_span(e, o->tmpdir, sizeof(o->tmpdir));
		}
	}
	return 0;
}

int proc_parse_release(const char *buf, size_t len, char *ver, size_t cap)
{
	struct span all = { buf, buf + len }, line;

	if (!buf || !ver || cap == 0)
		return -EINVAL;
	while (next_line(&all, &line)) {
		struct span v;
		uint64_t major, minor;
		size_t n;

		if (!eat_prefix(&line, "JAVA_VERSION=\""))
			continue;
		v.p = line.p;
		v.end = memchr(line.p, '"', (size_t)(line.end - line.p));
		if (!v.end || v.end == v.p)
			return -EPROTO;
		n = (size_t)(v.end - v.p);
		if (n >= cap)
			return -ENAMETOOLONG;
		memcpy(ver, v.p, n);
		ver[n] = '\0';
		if (eat_udec(&v, 1000, &major) < 0)
			return -EPROTO;
		if (major == 1 && eat_prefix(&v, ".") &&
		    eat_udec(&v, 1000, &minor) == 0)
			major = minor;      /* 1.8.0_412 -> 8 */
		return major == 0 ? -EPROTO : (int)major;
	}
	return -ENOENT;
}

int proc_jdk_home(const char *jvm_lib, char *out, size_t cap)
{
	static const char *const skip[] = {
		"server", "client", "j9vm", "default", "compressedrefs",
		"amd64", "aarch64", "i386", "ppc64le", "s390x", "lib", "jre",
	};
	size_t n;

	if (!jvm_lib || !out || jvm_lib[0] != '/')
		return -EINVAL;
	n = strlen(jvm_lib);
	if (n >= cap)
		return -ENAMETOOLONG;
	memcpy(out, jvm_lib, n + 1);
	/* drop the file name, then known layout directories */
	for (;;) {
		char *slash = strrchr(out, '/');

		if (!slash || slash == out)
			return -EINVAL;
		*slash = '\0';
		slash = strrchr(out, '/');
		if (!slash || slash == out)
			break;
		bool known = false;

		for (size_t i = 0; !known && i < sizeof(skip) / sizeof(skip[0]); i++)
			known = strcmp(slash + 1, skip[i]) == 0;
		if (!known)
			break;
	}
	return out[0] == '/' && out[1] ? 0 : -EINVAL;
}
