/*
 * check_agent_options.c - the agent's option string.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "options.h"

extern Suite *agent_options_suite(void);

START_TEST(test_defaults)
{
	struct agent_opts o;
	char err[256];

	ck_assert_int_eq(options_parse(NULL, &o, err, sizeof(err)), 0);
	ck_assert_str_eq(o.dir, "/tmp");
	ck_assert_uint_eq(o.flush_ms, 100);
	ck_assert(!o.unfold && !o.verbose && !o.stop);
	ck_assert_int_eq(options_parse("", &o, err, sizeof(err)), 0);
	ck_assert_str_eq(o.dir, "/tmp");
}
END_TEST

START_TEST(test_all_options)
{
	struct agent_opts o;
	char err[256];

	ck_assert_int_eq(options_parse("dir=/var/tmp/x,unfold,verbose,flush_ms=250", &o, err,
				       sizeof(err)), 0);
	ck_assert_str_eq(o.dir, "/var/tmp/x");
	ck_assert(o.unfold && o.verbose && !o.stop);
	ck_assert_uint_eq(o.flush_ms, 250);
	ck_assert_int_eq(options_parse("stop,,", &o, err, sizeof(err)), 0);
	ck_assert(o.stop);
	ck_assert_str_eq(o.dir, "/tmp");
}
END_TEST

START_TEST(test_errors_name_the_option)
{
	struct agent_opts o;
	char err[256];

	ck_assert_int_eq(options_parse("dir=/tmp,bogus", &o, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "unknown option 'bogus'"));
	ck_assert_ptr_nonnull(strstr(err, "known: dir=PATH"));
	/* exact keys only: no prefix matching */
	ck_assert_int_eq(options_parse("unfoldall", &o, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "'unfoldall'"));
	ck_assert_int_eq(options_parse("dir=relative/path", &o, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "absolute"));
	ck_assert_int_eq(options_parse("dir", &o, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(options_parse("flush_ms=0", &o, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(options_parse("flush_ms=60001", &o, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(options_parse("flush_ms=-5", &o, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(options_parse("flush_ms=10x", &o, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "flush_ms"));
	ck_assert_int_eq(options_parse("verbose=1", &o, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "no value"));
}
END_TEST

START_TEST(test_long_dir)
{
	struct agent_opts o;
	char err[256], s[AGENT_DIR_MAX + 16];

	strcpy(s, "dir=/");
	memset(s + 5, 'a', AGENT_DIR_MAX);
	s[5 + AGENT_DIR_MAX] = '\0';
	ck_assert_int_eq(options_parse(s, &o, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "too long"));
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
	suite_add_tcase(s, tc);
	return s;
}
