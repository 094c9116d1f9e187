/* proc.c - parsers for /proc/<pid> files (see proc.h for the contracts). */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "proc.h"

/* A [p, end) view; nothing here relies on NUL termination. */
struct span {
	const char *p;
	const char *end;
};

/* Next element of s ending at `delim` (or at the end); false at the end. */
static bool next_until(struct span *s, char delim, struct span *el)
{
	const char *d;

	if (s->p >= s->end)
		return false;
	d = memchr(s->p, delim, (size_t)(s->end - s->p));
	el->p = s->p;
	el->end = d ? d : s->end;
	s->p = d ? d + 1 : s->end;
	return true;
}

static bool next_line(struct span *s, struct span *line)
{
	return next_until(s, '\n', line);
}

/* NUL-separated argv/environ element; the last may lack its NUL. */
static bool next_elem(struct span *s, struct span *el)
{
	return next_until(s, '\0', el);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static void skip_blanks(struct span *s)
{
	while (s->p < s->end && is_blank(*s->p))
		s->p++;
}

/* Does the span start with the word `w`?  Advances past it if so. */
static bool eat_prefix(struct span *s, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n) != 0)
		return false;
	s->p += n;
	return true;
}

static bool span_equals(struct span s, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(s.end - s.p) == n && memcmp(s.p, w, n) == 0;
}

/* Unsigned decimal ≤ max; advances.  -ERANGE on overflow, -EPROTO if none. */
static int eat_udec(struct span *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	const char *start = s->p;

	while (s->p < s->end && *s->p >= '0' && *s->p <= '9') {
		unsigned d = (unsigned)(*s->p - '0');

		if (v > (max - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
		s->p++;
	}
	if (s->p == start)
		return -EPROTO;
	*out = v;
	return 0;
}

/* Hex digits (no 0x) ≤ 16 of them; advances. */
static int eat_hex64(struct span *s, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0;

	for (; s->p < s->end; s->p++, n++) {
		char c = *s->p;
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			break;
		if (n >= 16)
			return -ERANGE;
		v = (v << 4) | d;
	}
	if (n == 0)
		return -EPROTO;
	*out = v;
	return 0;
}

/* "Uid:\t0\t1000\t..." -> four ids; needs exactly 4 values. */
static int parse_ids(struct span s, uint32_t out[4])
{
	for (int i = 0; i < 4; i++) {
		uint64_t v;

		skip_blanks(&s);
		/* (uid_t)-1 is never a process id */
		if (eat_udec(&s, UINT32_MAX - 1, &v) < 0)
			return -EPROTO;
		out[i] = (uint32_t)v;
	}
	skip_blanks(&s);
	return s.p == s.end ? 0 : -EPROTO;
}

/* "NStgid:\t4242\t17\t1" -> last value and the count. */
static int parse_nstgid(struct span s, pid_t *last, int *levels)
{
	int n = 0;

	for (;;) {
		uint64_t v;

		skip_blanks(&s);
		if (s.p == s.end)
			break;
		if (eat_udec(&s, INT32_MAX, &v) < 0 || v == 0)
			return -EPROTO;
		*last = (pid_t)v;
		n++;
	}
	if (n == 0)
		return -EPROTO;
	*levels = n;
	return 0;
}

static void parse_groups(struct span s, struct proc_status *st)
{
	st->ngroups = 0;
	for (;;) {
		uint64_t v;

		skip_blanks(&s);
		if (s.p == s.end)
			return;
		if (eat_udec(&s, UINT32_MAX - 1, &v) < 0) {
			st->ngroups = -1;   /* unusable: do not guess */
			return;
		}
		if (st->ngroups == PROC_MAX_GROUPS) {
			st->ngroups = -1;
			return;
		}
		st->groups[st->ngroups++] = (gid_t)v;
	}
}

int proc_parse_status(const char *buf, size_t len, struct proc_status *st)
{
	struct span all = { buf, buf + len }, line;
	bool have_uid = false, have_gid = false, have_tgid = false;
	pid_t tgid = 0;

	if (!buf || !st)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->ngroups = -1;
	while (next_line(&all, &line)) {
		if (eat_prefix(&line, "Uid:")) {
			have_uid = parse_ids(line, (uint32_t *)st->uid) == 0;
			if (!have_uid)
				return -EPROTO;
		} else if (eat_prefix(&line, "Gid:")) {
			have_gid = parse_ids(line, (uint32_t *)st->gid) == 0;
			if (!have_gid)
				return -EPROTO;
		} else if (eat_prefix(&line, "Tgid:")) {
			uint64_t v;

			skip_blanks(&line);
			if (eat_udec(&line, INT32_MAX, &v) < 0 || v == 0)
				return -EPROTO;
			tgid = (pid_t)v;
			have_tgid = true;
		} else if (eat_prefix(&line, "Pid:")) {
			uint64_t v;

			skip_blanks(&line);
			if (eat_udec(&line, INT32_MAX, &v) < 0 || v == 0)
				return -EPROTO;
			st->pid = (pid_t)v;
		} else if (eat_prefix(&line, "NStgid:")) {
			if (parse_nstgid(line, &st->nspid, &st->ns_levels) < 0)
				return -EPROTO;
		} else if (eat_prefix(&line, "SigCgt:")) {
			skip_blanks(&line);
			st->has_sigcgt = eat_hex64(&line, &st->sigcgt) == 0;
		} else if (eat_prefix(&line, "Groups:")) {
			parse_groups(line, st);
		} else if (eat_prefix(&line, "Name:")) {
			size_t n;

			skip_blanks(&line);
			n = (size_t)(line.end - line.p);
			if (n >= sizeof(st->name))
				n = sizeof(st->name) - 1;
			memcpy(st->name, line.p, n);
		}
	}
	if (!have_uid || !have_gid)
		return -EPROTO;
	st->tgid = tgid;
	if (st->pid == 0)
		st->pid = tgid;
	if (st->ns_levels == 0) {
		if (!have_tgid)
			return -EPROTO;
		st->nspid = tgid;   /* kernel < 4.1: caller checks the pid ns */
	}
	return 0;
}

bool proc_catches_signal(const struct proc_status *st, int sig)
{
	if (!st || !st->has_sigcgt || sig < 1 || sig > 64)
		return false;
	return (st->sigcgt >> (sig - 1)) & 1;
}

int proc_parse_stat(const char *buf, size_t len, char *state,
		    uint64_t *starttime)
{
	const char *close = NULL;
	struct span s;

	if (!buf || !state || !starttime)
		return -EINVAL;
	for (size_t i = len; i > 0; i--) {
		if (buf[i - 1] == ')') {
			close = buf + i - 1;
			break;
		}
	}
	if (!close)
		return -EPROTO;
	s.p = close + 1;
	s.end = buf + len;
	/* field 3 is the state; field 22 is the start time */
	for (int field = 3; field <= 22; field++) {
		const char *w;

		if (s.p == s.end || *s.p != ' ')
			return -EPROTO;
		s.p++;
		w = s.p;
		while (s.p < s.end && *s.p != ' ' && *s.p != '\n')
			s.p++;
		if (s.p == w)
			return -EPROTO;
		if (field == 3) {
			if (s.p - w != 1)
				return -EPROTO;
			*state = *w;
		} else if (field == 22) {
			struct span num = { w, s.p };

			if (eat_udec(&num, UINT64_MAX, starttime) < 0 ||
			    num.p != num.end)
				return -EPROTO;
		}
	}
	return 0;
}

static const char *base_name(struct span path, size_t *n)
{
	const char *b = path.p;

	for (const char *q = path.p; q < path.end; q++)
		if (*q == '/')
			b = q + 1;
	*n = (size_t)(path.end - b);
	return b;
}

static bool has_prefix_n(const char *s, size_t n, const char *pre)
{
	size_t k = strlen(pre);

	return n >= k && memcmp(s, pre, k) == 0;
}

static bool has_suffix_n(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n >= k && memcmp(s + n - k, suf, k) == 0;
}

static void keep_path(struct proc_maps_facts *mf, struct span path)
{
	size_t n = (size_t)(path.end - path.p);

	if (n < sizeof(mf->jvm_lib)) {
		memcpy(mf->jvm_lib, path.p, n);
		mf->jvm_lib[n] = '\0';
	} else {
		mf->jvm_lib[0] = '\0';
	}
}

/* Skip "start-end perms offset dev inode" and the blanks after them. */
static bool maps_path(struct span line, struct span *path)
{
	for (int f = 0; f < 5; f++) {
		skip_blanks(&line);
		if (line.p == line.end)
			return false;
		while (line.p < line.end && !is_blank(*line.p))
			line.p++;
	}
	skip_blanks(&line);
	if (line.p == line.end || *line.p != '/')
		return false;
	if (has_suffix_n(line.p, (size_t)(line.end - line.p), " (deleted)"))
		line.end -= strlen(" (deleted)");
	*path = line;
	return true;
}

int proc_parse_maps(const char *buf, size_t len, struct proc_maps_facts *mf)
{
	struct span all, line, path;

	if (!buf || !mf)
		return -EINVAL;
	memset(mf, 0, sizeof(*mf));
	all.p = buf;
	all.end = buf + len;
	while (next_line(&all, &line)) {
		const char *b;
		size_t n;

		if (!maps_path(line, &path))
			continue;
		b = base_name(path, &n);
		if (has_prefix_n(b, n, "libj9vm") && has_suffix_n(b, n, ".so")) {
			if (mf->kind != PROC_OPENJ9)
				keep_path(mf, path);
			mf->kind = PROC_OPENJ9;
		} else if (n == 9 && memcmp(b, "libjvm.so", 9) == 0) {
			if (mf->kind == PROC_NOT_JVM) {
				mf->kind = PROC_HOTSPOT;
				keep_path(mf, path);
			}
		} else if (has_prefix_n(b, n, "ld-musl-") ||
			   has_prefix_n(b, n, "libc.musl-")) {
			mf->libc = PROC_LIBC_MUSL;
		} else if (n == 9 && memcmp(b, "libc.so.6", 9) == 0 &&
			   mf->libc == PROC_LIBC_UNKNOWN) {
			mf->libc = PROC_LIBC_GLIBC;
		}
	}
	return 0;
}

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
