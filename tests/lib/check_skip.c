/* SPDX-License-Identifier: Apache-2.0 */
/* check_skip.c - register a unit test where it can run, else say why not
 * (check_skip.h). */
#include "check_skip.h"

#include <sched.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

void check_skip(const char *suite, const TTest *test, const char *why)
{
	fprintf(stderr, "skip: %s: %s: %s\n", suite, test->name, why);
}

bool check_add_if(TCase *tc, bool can, const char *suite, const TTest *test,
		  const char *why)
{
	if (can)
		tcase_add_test(tc, test);
	else
		check_skip(suite, test, why);
	return can;
}

bool check_can_unshare(int flags)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(unshare(flags) == 0 ? 0 : 1);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}
