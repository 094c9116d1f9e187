/* SPDX-License-Identifier: Apache-2.0 */
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
	else if (eat_prefix(&v, "-XX:AltTempDir="))
		copy_span(v, o->alt_tmpdir, sizeof(o->alt_tmpdir));
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

/* True when w is one of the n words of list. */
static bool span_in(struct span w, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (span_equals(w, list[i]))
			return true;
	return false;
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

	return span_in(w, opts, sizeof(opts) / sizeof(opts[0]));
}

/*
 * A JVM run by a user-mode emulator (qemu-user: another architecture's JDK,
 * through binfmt_misc or by hand) has the emulator's argv in its cmdline,
 * the java command line after it:
 *
 *   binfmt_misc, P flag   INTERP  /path/of/java  java-argv0  options...
 *   binfmt_misc           INTERP  /path/of/java  options...
 *   by hand               qemu-ARCH [qemu options]  java  options...
 *
 * INTERP is what binfmt_misc registered: Debian names it *-binfmt-P for the
 * P flag (the program's own argv[0] is kept), qemu-ARCH(-static) otherwise.
 * Given argv[0], skip the emulator's words so that the next one read is
 * the first java option.
 */
static void skip_emulator(struct span argv0, struct span *all)
{
	static const char *const qemu_valued[] = {
		"-L", "-0", "-E", "-U", "-B", "-R", "-s", "-d", "-D", "-p", "-g",
		"-r", "-t", "-cpu", "-seed", "-trace", "-plugin",
	};
	const char *base = argv0.end;
	struct span w, name;
	size_t n;

	while (base > argv0.p && base[-1] != '/')
		base--;
	name = (struct span){ base, argv0.end };
	n = (size_t)(name.end - name.p);
	if (n > 9 && !memcmp(name.end - 9, "-binfmt-P", 9)) {
		next_elem(all, &w);     /* the program's path */
		next_elem(all, &w);     /* its own argv[0] */
		return;
	}
	if (!eat_prefix(&name, "qemu-"))
		return;
	while (next_elem(all, &w)) {
		if (w.p == w.end || *w.p != '-')
			return;         /* the program: its options follow */
		if (span_in(w, qemu_valued, sizeof(qemu_valued) / sizeof(qemu_valued[0])))
			next_elem(all, &w);
	}
}

/*
 * Apply one launcher word.  Returns false at the main class, -jar, -m or --
 * (the rest belongs to the application); *skip_next is set when the word's
 * value is the next word.
 */
static bool launcher_word(struct span w, struct proc_jvm_opts *o, bool *skip_next)
{
	*skip_next = false;
	if (w.p == w.end || *w.p != '-')
		return false;           /* main class */
	if (span_equals(w, "-jar") || span_equals(w, "-m") ||
	    span_equals(w, "--module") || span_equals(w, "--") ||
	    eat_prefix(&(struct span){ w.p, w.end }, "--module="))
		return false;
	if (takes_value(w))
		*skip_next = true;
	else
		apply_opt(w, o);
	return true;
}

int proc_parse_cmdline(const char *buf, size_t len, struct proc_jvm_opts *o)
{
	struct span all, w;
	bool first = true, expand = true, skip;

	if (!buf || !o)
		return -EINVAL;
	all.p = buf;
	all.end = buf + len;
	while (next_elem(&all, &w)) {
		if (first) {            /* argv[0], and an emulator's words */
			first = false;
			skip_emulator(w, &all);
			continue;
		}
		if (span_equals(w, "--disable-@files")) {
			expand = false;
			continue;
		}
		if (expand && w.end - w.p > 1 && w.p[0] == '@' && w.p[1] != '@') {
			if (o->n_argfiles < PROC_MAX_ARGFILES) {
				struct span path = { w.p + 1, w.end };

				copy_span(path, o->argfiles[o->n_argfiles],
					  sizeof(o->argfiles[0]));
				if (o->argfiles[o->n_argfiles][0])
					o->n_argfiles++;
			}
			continue;
		}
		if (!launcher_word(w, o, &skip))
			break;          /* main class: the rest is the app's */
		if (skip)
			next_elem(&all, &w);
	}
	return 0;
}

/*
 * Next word of an @argfile into word[cap] (truncated words are still
 * consumed).  Returns false at the end.
 */
static bool argfile_word(struct span *s, char *word, size_t cap, size_t *len)
{
	char quote = 0;
	bool in_word = false;

	*len = 0;
	while (s->p < s->end) {
		char c = *s->p++;

		if (quote) {
			if (c == quote) {
				quote = 0;
				continue;
			}
			if (c == '\\' && s->p < s->end) {
				c = *s->p++;
				c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' :
				    c == 'f' ? '\f' : c;
			}
		} else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
			if (in_word)
				break;
			continue;
		} else if (c == '#' && !in_word) {
			while (s->p < s->end && *s->p != '\n' && *s->p != '\r')
				s->p++;
			continue;
		} else if (c == '"' || c == '\'') {
			quote = c;
			in_word = true;
			continue;
		}
		in_word = true;
		if (*len + 1 < cap)
			word[(*len)++] = c;
	}
	word[*len] = '\0';
	return in_word;
}

int proc_parse_argfile(const char *buf, size_t len, struct proc_jvm_opts *o)
{
	struct span all;
	char word[1100];
	size_t n;
	bool skip = false;

	if (!buf || !o)
		return -EINVAL;
	all.p = buf;
	all.end = buf + len;
	while (argfile_word(&all, word, sizeof(word), &n)) {
		struct span w = { word, word + n };

		if (skip) {
			skip = false;
			continue;
		}
		if (!launcher_word(w, o, &skip))
			break;
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
