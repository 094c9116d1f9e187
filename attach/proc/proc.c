/* SPDX-License-Identifier: Apache-2.0 */
/* proc.c - parsers for /proc/<pid>/{status,stat,maps} (see proc.h). */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "hexdigit.h"
#include "proc.h"
#include "proc_span.h"
#include "procstatus.h"

/* Hex digits (no 0x) ≤ 16 of them; advances. */
static int eat_hex64(struct span *s, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0;

	for (; s->p < s->end; s->p++, n++) {
		int d = hex_digit((unsigned char)*s->p);

		if (d < 0)
			break;
		if (n >= 16)
			return -ERANGE;
		v = (v << 4) | (uint64_t)d;
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
		} else if (eat_prefix(&line, "PPid:")) {
			uint64_t v;

			skip_blanks(&line);
			if (eat_udec(&line, INT32_MAX, &v) == 0)
				st->ppid = (pid_t)v;
		} else if (eat_prefix(&line, "Pid:")) {
			uint64_t v;

			skip_blanks(&line);
			if (eat_udec(&line, INT32_MAX, &v) < 0 || v == 0)
				return -EPROTO;
			st->pid = (pid_t)v;
		} else if (eat_prefix(&line, "NStgid:")) {
			/* "NStgid:\t4242\t17\t1": common/'s one parser of it */
			if (status_nstgid(line.p, (size_t)(line.end - line.p), &st->nspid,
					  &st->ns_levels) < 0)
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

/* Copy path into out (cap bytes); "" when it does not fit. */
static void keep_span(char *out, size_t cap, struct span path)
{
	size_t n = (size_t)(path.end - path.p);

	if (n < cap) {
		memcpy(out, path.p, n);
		out[n] = '\0';
	} else {
		out[0] = '\0';
	}
}

/* "start-end perms offset major:minor inode": the device (hex numbers) and
 * the inode of the line's file; 0s when malformed. */
static void maps_dev_ino(struct span line, dev_t *dev, uint64_t *ino)
{
	uint64_t maj, min, i;

	*dev = 0;
	*ino = 0;
	for (int f = 0; f < 3; f++) {
		skip_blanks(&line);
		while (line.p < line.end && !is_blank(*line.p))
			line.p++;
	}
	skip_blanks(&line);
	if (eat_hex64(&line, &maj) < 0 || maj > 0xfff || !eat_prefix(&line, ":") ||
	    eat_hex64(&line, &min) < 0 || min > 0xfffff)
		return;
	skip_blanks(&line);
	if (eat_udec(&line, UINT64_MAX, &i) < 0)
		return;
	*dev = makedev((unsigned)maj, (unsigned)min);
	*ino = i;
}

/* The line's first field, "start-end" in hex, or "" when it is not that. */
static void maps_range(struct span line, char *out, size_t cap)
{
	size_t n = 0, dash = 0;

	out[0] = '\0';
	while (line.p + n < line.end && !is_blank(line.p[n])) {
		char c = line.p[n];

		if (c == '-' && !dash && n > 0)
			dash = n;
		else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return;
		n++;
	}
	if (!dash || dash + 1 == n || n >= cap)
		return;
	memcpy(out, line.p, n);
	out[n] = '\0';
}

static void keep_path(struct proc_maps_facts *mf, struct span line, struct span path)
{
	keep_span(mf->jvm_lib, sizeof(mf->jvm_lib), path);
	maps_dev_ino(line, &mf->jvm_lib_dev, &mf->jvm_lib_ino);
	maps_range(line, mf->jvm_lib_range, sizeof(mf->jvm_lib_range));
}

/* musl's libc is its loader: ld-musl-*, libc.musl-*, or Debian's
 * /usr/lib/x86_64-linux-musl/libc.so (what /lib/ld-musl-*.so.1 links to). */
static bool is_musl_libc(struct span path, const char *b, size_t n)
{
	size_t dir = (size_t)(b - path.p);

	if (has_prefix_n(b, n, "ld-musl-") || has_prefix_n(b, n, "libc.musl-"))
		return true;
	return n == 7 && memcmp(b, "libc.so", 7) == 0 &&
	       memmem(path.p, dir, "musl", 4) != NULL;
}

/* glibc before 2.34 installs its files under versioned names, the sonames
 * being links to them, and the maps show the file reached: stem "libc-" or
 * "ld-" followed by "MAJOR.MINOR.so" (libc-2.31.so, ld-2.31.so). */
static bool is_glibc_versioned(const char *b, size_t n, const char *stem)
{
	const char *p = b + strlen(stem), *end = b + n - 3;
	int dots = 0;

	if (!has_prefix_n(b, n, stem) || !has_suffix_n(b, n, ".so") || p >= end)
		return false;
	for (const char *q = p; q < end; q++) {
		if (*q == '.' && q > p && q[-1] != '.' && q + 1 < end)
			dots++;
		else if (*q < '0' || *q > '9')
			return false;
	}
	return dots == 1;
}

/* Skip "start-end perms offset dev inode" and the blanks after them; the
 * path must be absolute ("/memfd:..." counts); " (deleted)" is dropped. */
static bool maps_path(struct span line, struct span *path, bool *deleted)
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
	*deleted = has_suffix_n(line.p, (size_t)(line.end - line.p), " (deleted)");
	if (*deleted)
		line.end -= strlen(" (deleted)");
	*path = line;
	return true;
}

/*
 * HotSpot maps its perf data file <tmp>/hsperfdata_<user>/<pid>, <tmp>
 * being os::get_temp_directory(): /tmp, or JDK 28's AltTempDir.  The
 * file's base name b is all digits; *dir gets <tmp>, never empty.
 */
static bool perfdata_dir_of(struct span path, const char *b, size_t n,
			    struct span *dir)
{
	const char *parent;

	if (n == 0 || b <= path.p + 1)
		return false;
	for (size_t i = 0; i < n; i++)
		if (b[i] < '0' || b[i] > '9')
			return false;
	parent = b - 1;                 /* the '/' before the base name */
	while (parent > path.p && parent[-1] != '/')
		parent--;
	if (parent - 1 <= path.p ||
	    !has_prefix_n(parent, (size_t)(b - 1 - parent), "hsperfdata_"))
		return false;
	dir->p = path.p;
	dir->end = parent - 1;          /* without the '/' */
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
		bool deleted;

		if (!maps_path(line, &path, &deleted))
			continue;
		b = base_name(path, &n);
		if (!deleted && !mf->perfdata_dir[0]) {
			struct span dir;

			if (perfdata_dir_of(path, b, n, &dir))
				keep_span(mf->perfdata_dir, sizeof(mf->perfdata_dir), dir);
		}
		if (!mf->agent[0] && ((n == 16 && memcmp(b, "libjsym-agent.so", 16) == 0) ||
				      has_prefix_n(path.p, (size_t)(path.end - path.p),
						   "/memfd:jsym-agent"))) {
			keep_span(mf->agent, sizeof(mf->agent), path);
			mf->agent_deleted = deleted;
		}
		if (has_prefix_n(b, n, "libj9vm") && has_suffix_n(b, n, ".so")) {
			if (mf->kind != PROC_OPENJ9)
				keep_path(mf, line, path);
			mf->kind = PROC_OPENJ9;
		} else if (n == 9 && memcmp(b, "libjvm.so", 9) == 0) {
			if (mf->kind == PROC_NOT_JVM) {
				mf->kind = PROC_HOTSPOT;
				keep_path(mf, line, path);
			}
		} else if (is_musl_libc(path, b, n)) {
			mf->libc = PROC_LIBC_MUSL;
			if (!mf->loader[0])
				keep_span(mf->loader, sizeof(mf->loader), path);
		} else if (has_prefix_n(b, n, "ld-linux") || is_glibc_versioned(b, n, "ld-")) {
			if (!mf->loader[0])
				keep_span(mf->loader, sizeof(mf->loader), path);
		} else if (((n == 9 && memcmp(b, "libc.so.6", 9) == 0) ||
			    is_glibc_versioned(b, n, "libc-")) &&
			   mf->libc == PROC_LIBC_UNKNOWN) {
			mf->libc = PROC_LIBC_GLIBC;
		}
	}
	return 0;
}


/* One path below `root` (len rlen, no trailing slash) made a path from it. */
static bool reroot(char *path, const char *root, size_t rlen)
{
	size_t n = strlen(path);

	if (n <= rlen + 1 || strncmp(path, root, rlen) != 0 || path[rlen] != '/')
		return false;
	memmove(path, path + rlen, n - rlen + 1);
	return true;
}

int proc_maps_in_root(struct proc_maps_facts *mf, const char *root)
{
	char *paths[3];
	size_t rlen;
	int changed = 0;

	if (!mf || !root)
		return -EINVAL;
	rlen = strlen(root);
	while (rlen > 0 && root[rlen - 1] == '/')
		rlen--;
	if (rlen == 0 || root[0] != '/')
		return 0;       /* "/" (the usual case), "" (unreadable) */
	paths[0] = mf->jvm_lib;
	paths[1] = mf->loader;
	paths[2] = mf->agent;
	for (int i = 0; i < 3; i++)
		if (reroot(paths[i], root, rlen))
			changed++;
	return changed;
}
