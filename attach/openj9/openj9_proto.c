/* SPDX-License-Identifier: Apache-2.0 */
/*
 * openj9_proto.c - OpenJ9 attach wire formats without I/O: command
 * translation, reply mapping, replyInfo body, connect check, framing.
 * docs/protocols.md B2, B7, B8.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "openj9.h"
#include "openj9_int.h"

#define PFX_ERR "ATTACH_ERR "
#define PFX_INIT "AgentInitializationException"

/* Append s to out at *pos; -ENAMETOOLONG when it does not fit. */
static int put(char *out, size_t outlen, size_t *pos, const char *s, size_t n)
{
	if (*pos + n >= outlen)
		return -ENAMETOOLONG;
	memcpy(out + *pos, s, n);
	*pos += n;
	out[*pos] = '\0';
	return 0;
}

static int put_s(char *out, size_t outlen, size_t *pos, const char *s)
{
	return put(out, outlen, pos, s, strlen(s));
}

/* Append the words of argv[from..argc) separated by ',' (blanks split). */
static int put_words(char *out, size_t outlen, size_t *pos, int argc,
		     const char *const argv[], int from)
{
	int i, rc = 0, words = 0;

	for (i = from; i < argc && rc == 0; i++) {
		const char *s = argv[i];

		for (;;) {
			size_t n;

			s += strspn(s, " \t\n");
			n = strcspn(s, " \t\n");
			if (!n)
				break;
			if (words++)
				rc = put_s(out, outlen, pos, ",");
			if (!rc)
				rc = put(out, outlen, pos, s, n);
			if (rc)
				break;
			s += n;
		}
	}
	return rc;
}

static int translate_load(int argc, const char *const argv[], char *out, size_t outlen,
			  size_t *pos, struct err_text *e)
{
	const char *lib, *opts;
	bool path;
	int rc;

	if (argc < 2 || !argv[1][0])
		return err_set(e, -EINVAL, "load: missing library (usage: load LIB [true|false] [OPTIONS])");
	lib = argv[1];
	path = lib[0] == '/' || (argc > 2 && strcmp(argv[2], "true") == 0);
	opts = argc > 3 ? argv[3] : "";
	/* OpenJ9 takes the name up to the first ',' (B8): a comma would
	 * silently split the path into name and options. */
	if (strchr(lib, ',')) {
		return err_set(e, -EINVAL, "load: OpenJ9 cannot load '%s': a ',' in the library path "
			"ends the name on the JVM side (rename or copy the library to a path "
			"without commas)", lib);
	}
	rc = put_s(out, outlen, pos, path ? "ATTACH_LOADAGENTPATH(" : "ATTACH_LOADAGENT(");
	if (!rc)
		rc = put_s(out, outlen, pos, lib);
	if (!rc && opts[0]) {
		rc = put_s(out, outlen, pos, ",");
		if (!rc)
			rc = put_s(out, outlen, pos, opts);
	}
	if (!rc)
		rc = put_s(out, outlen, pos, ")");
	return rc;
}

int openj9_translate(int argc, const char *const argv[], char *out, size_t outlen,
		     bool *is_load, bool *is_diag, struct err_text *e)
{
	const char *cmd;
	size_t pos = 0;
	int rc;

	*is_load = *is_diag = false;
	if (outlen)
		out[0] = '\0';
	if (argc < 1 || !argv[0])
		return err_set(e, -EINVAL, "no command given");
	cmd = argv[0];
	if (strcmp(cmd, "load") == 0) {
		*is_load = true;
		rc = translate_load(argc, argv, out, outlen, &pos, e);
	} else if (strcmp(cmd, "properties") == 0) {
		rc = put_s(out, outlen, &pos, "ATTACH_GETSYSTEMPROPERTIES");
	} else if (strcmp(cmd, "agentProperties") == 0) {
		rc = put_s(out, outlen, &pos, "ATTACH_GETAGENTPROPERTIES");
	} else if (strcmp(cmd, "threaddump") == 0) {
		*is_diag = true;
		rc = put_s(out, outlen, &pos, "ATTACH_DIAGNOSTICS:Thread.print");
	} else if (strcmp(cmd, "inspectheap") == 0) {
		*is_diag = true;
		rc = put_s(out, outlen, &pos, "ATTACH_DIAGNOSTICS:GC.class_histogram");
	} else if (strcmp(cmd, "datadump") == 0) {
		*is_diag = true;
		rc = put_s(out, outlen, &pos, "ATTACH_DIAGNOSTICS:Dump.java");
	} else if (strcmp(cmd, "dumpheap") == 0) {
		*is_diag = true;
		rc = put_s(out, outlen, &pos, "ATTACH_DIAGNOSTICS:Dump.heap");
		if (!rc && argc > 1 && argv[1][0]) {
			rc = put_s(out, outlen, &pos, ",");
			if (!rc)
				rc = put_s(out, outlen, &pos, argv[1]);
		}
	} else if (strcmp(cmd, "jcmd") == 0) {
		*is_diag = true;
		rc = put_s(out, outlen, &pos, "ATTACH_DIAGNOSTICS:");
		if (!rc)
			rc = put_words(out, outlen, &pos, argc, argv, 1);
		if (!rc && pos == strlen("ATTACH_DIAGNOSTICS:"))
			return err_set(e, -EINVAL, "jcmd: missing command (try: jcmd help)");
	} else if (strcmp(cmd, "printflag") == 0 || strcmp(cmd, "setflag") == 0) {
		return err_set(e, -EOPNOTSUPP, "%s is not supported by OpenJ9 (it has no -XX flag "
			"interface over attach; use 'jcmd help' to list what it offers)", cmd);
	} else {
		return err_set(e, -EOPNOTSUPP, "command '%s' is not supported by OpenJ9 (supported: load, "
			"properties, agentProperties, threaddump, jcmd, dumpheap, inspectheap, "
			"datadump)", cmd);
	}
	if (rc == -ENAMETOOLONG)
		err_set(e, rc, "%s: command too long for the attach request (limit %zu bytes)",
			cmd, outlen ? outlen - 1 : 0);
	return rc;
}

/* Copy a JVM text into message: control characters (but \n, \t) as '?'. */
static void copy_message(char *dst, size_t dstlen, const char *src, size_t n)
{
	size_t i;

	if (n >= dstlen)
		n = dstlen - 1;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f ? '?' : (char)c;
	}
	dst[n] = '\0';
}

static bool starts(const char *msg, size_t len, const char *pfx)
{
	size_t n = strlen(pfx);

	return len >= n && memcmp(msg, pfx, n) == 0;
}

/* "AgentInitializationException<N>" with nothing after N -> 1 and *code. */
static int parse_init_exception(const char *s, size_t len, int *code)
{
	size_t n = strlen(PFX_INIT), i;
	long v = 0;
	bool neg = false;

	if (len <= n || memcmp(s, PFX_INIT, n) != 0)
		return 0;
	i = n;
	if (s[i] == '-') {
		neg = true;
		i++;
	}
	if (i >= len)
		return 0;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || v > 100000000L)
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	*code = (int)(neg ? -v : v);
	return 1;
}

/* *text = s[0..n) + "\n" (malloc'd) for the caller to print. */
static int set_text(char **text, size_t *text_len, const char *s, size_t n, bool nl)
{
	char *t = malloc(n + 2);

	if (!t)
		return -ENOMEM;
	memcpy(t, s, n);
	if (nl && (n == 0 || s[n - 1] != '\n'))
		t[n++] = '\n';
	t[n] = '\0';
	*text = t;
	*text_len = n;
	return 0;
}

static int map_diag(const char *msg, size_t len, struct attach_reply *rep,
		    char **text, size_t *text_len)
{
	struct openj9_props p;
	const char *e, *type, *emsg, *res;
	char *m = NULL;
	int rc = openj9_props_parse(&p, msg, len);

	if (rc)
		return rc;
	e = openj9_props_get(&p, "openj9_diagnostics.error");
	type = openj9_props_get(&p, "openj9_diagnostics.errortype");
	emsg = openj9_props_get(&p, "openj9_diagnostics.errormsg");
	res = openj9_props_get(&p, "openj9_diagnostics.string_result");
	if (!e && !res) { /* not diagnostics properties: show what came */
		rep->vm_code = -1;
		rep->failed = true;
		copy_message(rep->message, sizeof(rep->message), msg, len);
		rc = set_text(text, text_len, msg, len, true);
	} else if (e && strcmp(e, "true") == 0) {
		rep->vm_code = -1;
		rep->failed = true;
		if (asprintf(&m, "%s%s%s", type ? type : "", type && emsg ? ": " : "",
			     emsg ? emsg : (type ? "" : "diagnostic command failed")) < 0) {
			m = NULL;
			rc = -ENOMEM;
		} else {
			copy_message(rep->message, sizeof(rep->message), m, strlen(m));
			rc = set_text(text, text_len, m, strlen(m), true);
		}
	} else if (res) {
		rc = set_text(text, text_len, res, strlen(res), false);
	}
	free(m);
	openj9_props_free(&p);
	return rc;
}

int openj9_map_reply(const char *msg, size_t len, bool is_load, bool is_diag,
		     struct attach_reply *rep, char **text, size_t *text_len)
{
	memset(rep, 0, sizeof(*rep));
	*text = NULL;
	*text_len = 0;
	if (starts(msg, len, "ATTACH_ERR")) {
		size_t skip = starts(msg, len, PFX_ERR) ? strlen(PFX_ERR) : strlen("ATTACH_ERR");
		int code;

		rep->vm_code = -1;
		copy_message(rep->message, sizeof(rep->message), msg + skip, len - skip);
		if (is_load && parse_init_exception(msg + skip, len - skip, &code)) {
			rep->agent_code_known = true;
			rep->agent_code = code;
			return 0;
		}
		rep->failed = true;
		return is_load ? 0 : set_text(text, text_len, msg + skip, len - skip, true);
	}
	if (starts(msg, len, "ATTACH_ACK")) {
		if (is_load)
			rep->agent_code_known = true;
		return 0;
	}
	if (is_diag)
		return map_diag(msg, len, rep, text, text_len);
	if (is_load) { /* neither ACK nor ERR: not what a load answers */
		rep->vm_code = -1;
		rep->failed = true;
		copy_message(rep->message, sizeof(rep->message), msg, len);
		return 0;
	}
	return set_text(text, text_len, msg, len, false); /* properties as sent */
}

int openj9_reply_info(char *out, size_t outlen, unsigned long long key, int port)
{
	int n = snprintf(out, outlen, "%016llx\n%d\n", key, port);

	return n < 0 || (size_t)n >= outlen ? -ENOSPC : n;
}

bool openj9_check_connected(const char *msg, size_t len, const char *key16)
{
	static const char pfx[] = "ATTACH_CONNECTED ";
	size_t p = sizeof(pfx) - 1, k = strlen(key16);

	/* The VM echoes line 1 of replyInfo, then a blank: "... <key> ". */
	if (len < p + k + 1 || memcmp(msg, pfx, p) != 0)
		return false;
	return memcmp(msg + p, key16, k) == 0 && msg[p + k] == ' ';
}

int openj9_frame_done(const char *chunk, size_t chunk_len, size_t total, size_t max)
{
	if (total > max)
		return -EMSGSIZE;
	return chunk_len > 0 && chunk[chunk_len - 1] == '\0';
}
