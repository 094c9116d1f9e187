/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_agent_options.c - the agent's option string.
 */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "sink_output.h"

extern Suite *agent_options_suite(void); /* listed in the runner by tests/tests.mk */

START_TEST(test_defaults)
{
	struct agent_opts o;
	struct err_text err = { "" };

	ck_assert_int_eq(options_parse(NULL, &o, &err), 0);
	ck_assert_str_eq(o.dir, "/tmp");
	ck_assert_uint_eq(o.flush_ms, 100);
	ck_assert(!o.unfold && !o.verbose && !o.stop);
	ck_assert_int_eq(options_parse("", &o, &err), 0);
	ck_assert_str_eq(o.dir, "/tmp");
}
END_TEST

START_TEST(test_all_options)
{
	struct agent_opts o;
	struct err_text err = { "" };

	ck_assert_int_eq(options_parse("dir=/var/tmp/x,unfold,verbose,flush_ms=250", &o, &err), 0);
	ck_assert_str_eq(o.dir, "/var/tmp/x");
	ck_assert(o.unfold && o.verbose && !o.stop);
	ck_assert_uint_eq(o.flush_ms, 250);
	ck_assert_int_eq(options_parse("stop,,", &o, &err), 0);
	ck_assert(o.stop);
	ck_assert_str_eq(o.dir, "/tmp");
}
END_TEST

START_TEST(test_errors_name_the_option)
{
	struct agent_opts o;
	struct err_text err = { "" };

	ck_assert_int_eq(options_parse("dir=/tmp,bogus", &o, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "unknown option 'bogus'"));
	ck_assert_ptr_nonnull(strstr(err.msg, "known: dir=PATH"));
	/* exact keys only: no prefix matching */
	ck_assert_int_eq(options_parse("unfoldall", &o, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "'unfoldall'"));
	ck_assert_int_eq(options_parse("dir=relative/path", &o, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "absolute"));
	ck_assert_int_eq(options_parse("dir", &o, &err), -EINVAL);
	ck_assert_int_eq(options_parse("flush_ms=0", &o, &err), -EINVAL);
	ck_assert_int_eq(options_parse("flush_ms=60001", &o, &err), -EINVAL);
	ck_assert_int_eq(options_parse("flush_ms=-5", &o, &err), -EINVAL);
	ck_assert_int_eq(options_parse("flush_ms=10x", &o, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "flush_ms"));
	ck_assert_int_eq(options_parse("verbose=1", &o, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "no value"));
}
END_TEST

START_TEST(test_long_dir)
{
	struct agent_opts o;
	struct err_text err = { "" };
	char s[AGENT_DIR_MAX + 16];

	strcpy(s, "dir=/");
	memset(s + 5, 'a', AGENT_DIR_MAX);
	s[5 + AGENT_DIR_MAX] = '\0';
	ck_assert_int_eq(options_parse(s, &o, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "too long"));
}
END_TEST

START_TEST(test_journal_max_and_jitdump)
{
	struct agent_opts o;
	struct err_text err = { "" };

	ck_assert_int_eq(options_parse(NULL, &o, &err), 0);
	ck_assert_uint_eq(o.journal_max, 16u << 20);
	ck_assert(!o.jitdump);
	ck_assert_int_eq(options_parse("journal_max=64k,jitdump", &o, &err), 0);
	ck_assert_uint_eq(o.journal_max, 64u << 10);
	ck_assert(o.jitdump);
	ck_assert_int_eq(options_parse("journal_max=3M", &o, &err), 0);
	ck_assert_uint_eq(o.journal_max, 3u << 20);
	ck_assert_int_eq(options_parse("journal_max=1g", &o, &err), 0);
	ck_assert_uint_eq(o.journal_max, 1ull << 30);
	ck_assert_int_eq(options_parse("journal_max=100000", &o, &err), 0);
	ck_assert_uint_eq(o.journal_max, 100000);
	ck_assert_int_eq(options_parse("journal_max=0", &o, &err), 0);
	ck_assert_uint_eq(o.journal_max, 0);
	/* below the floor, above the ceiling, overflow, junk, no value */
	static const char *const bad[] = {
		"journal_max=63k", "journal_max=1000", "journal_max=2g", "journal_max=1025m",
		"journal_max=99999999999999999999", "journal_max=16mb", "journal_max=k",
		"journal_max=-1", "journal_max=", "journal_max", "journal_max=1.5m",
		"jitdump=1",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(options_parse(bad[i], &o, &err) == -EINVAL, "%s", bad[i]);
		ck_assert_ptr_nonnull(strstr(err.msg, "known: "));
	}
	ck_assert_int_eq(options_parse("journal_max=1k", &o, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "64k..1g"));
	/* jitdump_max: the same sizes, its own default */
	ck_assert_int_eq(options_parse(NULL, &o, &err), 0);
	ck_assert_uint_eq(o.jitdump_max, 64u << 20);
	ck_assert_int_eq(options_parse("jitdump,jitdump_max=128k", &o, &err), 0);
	ck_assert_uint_eq(o.jitdump_max, 128u << 10);
	ck_assert_uint_eq(o.journal_max, 16u << 20);
	ck_assert_int_eq(options_parse("jitdump_max=0", &o, &err), 0);
	ck_assert_uint_eq(o.jitdump_max, 0);
	ck_assert_int_eq(options_parse("jitdump_max=1k", &o, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "jitdump_max needs"));
	ck_assert_ptr_nonnull(strstr(err.msg, "jitdump_max=SIZE"));
}
END_TEST

/* Each output's keys are parsed through its row of options_outputs[]: the
 * row's key sets the field the row names, and only that one; the "known:"
 * list is the one docs/agent.md shows, the rows' keys in the rows' order. */
START_TEST(test_output_rows_parse_their_keys)
{
	struct agent_opts def, o;
	struct err_text err = { "" };
	char tok[64];

	options_defaults(&def);
	for (size_t i = 0; i < options_n_outputs; i++) {
		const struct options_output *r = options_outputs[i];

		if (r->on_key) {
			ck_assert(!*(bool *)((char *)&def + r->on_at));
			ck_assert_int_eq(options_parse(r->on_key, &o, &err), 0);
			ck_assert(*(bool *)((char *)&o + r->on_at));
			*(bool *)((char *)&o + r->on_at) = false;
			ck_assert_msg(memcmp(&o, &def, sizeof(o)) == 0, "%s set more", r->on_key);
		}
		if (r->max_key) {
			ck_assert_uint_eq(*(unsigned long long *)((char *)&def + r->max_at),
					  r->max_default);
			snprintf(tok, sizeof(tok), "%s=128k", r->max_key);
			ck_assert_int_eq(options_parse(tok, &o, &err), 0);
			ck_assert_uint_eq(*(unsigned long long *)((char *)&o + r->max_at), 128u << 10);
			*(unsigned long long *)((char *)&o + r->max_at) = r->max_default;
			ck_assert_msg(memcmp(&o, &def, sizeof(o)) == 0, "%s set more", tok);
			snprintf(tok, sizeof(tok), "%s=1k", r->max_key);
			ck_assert_int_eq(options_parse(tok, &o, &err), -EINVAL);
			ck_assert_ptr_eq(strstr(err.msg, r->max_key), err.msg);
		}
	}
	ck_assert_int_eq(options_parse("bogus", &o, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "unknown option 'bogus' (known: dir=PATH, unfold, lines, "
			 "verbose, stop, nounwind, flush_ms=N, journal_max=SIZE, jitdump, jitdump_max=SIZE)");
	ck_assert_int_eq(options_parse("jitdump_max=64", &o, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "jitdump_max needs 0 or a size 64k..1g (bytes, k/m/g suffix): "
			 "'jitdump_max=64' (known: dir=PATH, unfold, lines, verbose, stop, nounwind, "
			 "flush_ms=N, journal_max=SIZE, jitdump, jitdump_max=SIZE)");
}
END_TEST

/* The option rows are the sink's: each output that has options points at
 * its row, every row has its output, in the sink's order. */
START_TEST(test_output_rows_are_the_sinks)
{
	size_t n = 0;

	for (size_t i = 0; i < sink_n_outputs; i++) {
		if (!sink_outputs[i]->opts)
			continue;
		ck_assert_msg(n < options_n_outputs, "%s: no row in options_outputs[]",
			      sink_outputs[i]->name);
		ck_assert_msg(sink_outputs[i]->opts == options_outputs[n], "%s: not row %zu",
			      sink_outputs[i]->name, n);
		n++;
	}
	ck_assert_uint_eq(n, options_n_outputs);
}
END_TEST

Suite *agent_options_suite(void)
{
	Suite *s = suite_create("agent_options");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_all_options);
	tcase_add_test(tc, test_errors_name_the_option);
	tcase_add_test(tc, test_long_dir);
	tcase_add_test(tc, test_journal_max_and_jitdump);
	tcase_add_test(tc, test_output_rows_parse_their_keys);
	tcase_add_test(tc, test_output_rows_are_the_sinks);
	suite_add_tcase(s, tc);
	return s;
}
