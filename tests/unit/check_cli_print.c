/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_cli_print.c - what `jsym attach` and `jsym detach` print
 * (cli_attach_print.c) when the target's text holds terminal escapes: the
 * lines on stdout and the JSON carry them escaped, never raw.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli_attach.h"

Suite *cli_print_suite(void); /* the runner finds the definition below */

/* A JVM's TMPDIR as a container may set it: an OSC title, a bell, a clear
 * screen, and CSI as the C1 control U+009B. */
#define HOSTILE "/tmp/\033]0;owned\007\033[2J\302\233x"
#define ESCAPED "/tmp/\\x1b]0;owned\\x07\\x1b[2J\\xc2\\x9bx"

/* Run print(env, o) with stdout on a memfd; the text it wrote, malloc'd. */
static char *captured(void (*print)(const struct attach_env *, const struct attach_outcome *),
		      const struct attach_env *env, const struct attach_outcome *o)
{
	int fd = memfd_create("out", 0), saved = dup(STDOUT_FILENO);
	char *text = calloc(1, 8192);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	ck_assert_ptr_nonnull(text);
	fflush(stdout);
	ck_assert_int_ge(dup2(fd, STDOUT_FILENO), 0);
	print(env, o);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	n = pread(fd, text, 8191, 0);
	ck_assert_int_gt(n, 0);
	close(fd);
	return text;
}

static void no_raw_controls(const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		ck_assert_msg(*p >= 0x20 || *p == '\n', "raw byte 0x%02x in: %s", *p, text);
		ck_assert_msg(!(p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0),
			      "raw C1 control in: %s", text);
	}
}

/* Issue 17 row 5: `jsym detach --clean` printed the kept file's path (in
 * the JVM's TMPDIR) raw. */
START_TEST(detach_kept_path_escaped)
{
	static struct attach_env env = { .stop = true, .clean = true };
	static struct attach_outcome o = { .pid = 42, .deployed = true, .removed = 1 };
	char *text;

	snprintf(o.kept, sizeof(o.kept), "%s/jsym/libjsym.so", HOSTILE);
	text = captured(attach_print_human, &env, &o);
	no_raw_controls(text);
	ck_assert_ptr_nonnull(strstr(text, "kept the mapped " ESCAPED "/jsym/libjsym.so"));
	free(text);
}
END_TEST

/* The map jsym wrote instead of an agent names a path in the container. */
START_TEST(mapped_path_escaped)
{
	static struct attach_env env;
	static struct attach_outcome o = { .pid = 42, .mapped = true, .map_java = 3 };
	char *text;

	snprintf(o.map_path, sizeof(o.map_path), "%s/perf-1.map", HOSTILE);
	text = captured(attach_print_human, &env, &o);
	no_raw_controls(text);
	ck_assert_ptr_nonnull(strstr(text, ESCAPED "/perf-1.map"));
	free(text);
}
END_TEST

/* JSON keeps the text (escaped the JSON way), C1 included. */
START_TEST(json_kept_path_escaped)
{
	static struct attach_env env = { .stop = true, .clean = true, .json = true };
	static struct attach_outcome o = { .pid = 42, .deployed = true, .removed = 1 };
	char *text;

	snprintf(o.kept, sizeof(o.kept), "%s", HOSTILE);
	text = captured(attach_print_json, &env, &o);
	no_raw_controls(text);
	ck_assert_ptr_nonnull(strstr(text, "\"kept\":\"/tmp/\\u001b]0;owned\\u0007"
				     "\\u001b[2J\\u009bx\""));
	free(text);
}
END_TEST

Suite *cli_print_suite(void)
{
	Suite *s = suite_create("cli_print");
	TCase *tc = tcase_create("attach");

	tcase_add_test(tc, detach_kept_path_escaped);
	tcase_add_test(tc, mapped_path_escaped);
	tcase_add_test(tc, json_kept_path_escaped);
	suite_add_tcase(s, tc);
	return s;
}
