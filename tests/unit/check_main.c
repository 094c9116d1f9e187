/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_main.c - the one Check runner for every unit suite.
 *
 * Suites are listed in glibc-build/gen/suites.h, generated from the
 * `Suite *name_suite(void)` definitions in tests/unit/check_*.c.  Fork mode
 * stays on (Check's default, unless CK_FORK=no is set for debugging), so a
 * crashing test fails itself and the run goes on.
 */
#include <check.h>
#include <stdlib.h>

#define X(fn) Suite *fn(void);
#include "suites.h"
#undef X

int main(void)
{
	SRunner *sr = srunner_create(NULL);
	int failed;

#define X(fn) srunner_add_suite(sr, fn());
#include "suites.h"
#undef X
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
