/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memfd_holder.c - jsym-memfd-holder: what holds the agent's memfd while a
 * JVM loads it (memfd.c).  Run only by exec from jsym's helper, already in
 * the JVM's namespaces and with the JVM's ids, with the memfd at fd 3, its
 * report pipe at 1 and its control pipe at 0.
 *
 * It must be dumpable (the JVM's open of /proc/<pid>/fd/3 is a ptrace-read
 * check), and so the JVM's uid may read all of its memory: that is why it
 * is a program of its own, exec'd, and not a fork of jsym, whose pages hold
 * jsym's host paths, its layout and its stack canary.  Here there is
 * nothing: no argument, no environment, no state.
 *
 * Exit: 0 when jsym closed the control pipe, 1 when the pipes are wrong.
 */
#include <errno.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(void)
{
	char c;

	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0)
		return 1;
	/* the exec happened: jsym waits for this byte before it reports */
	if (write(STDOUT_FILENO, "k", 1) != 1)
		return 1;
	close(STDOUT_FILENO);
	/* until jsym closes its end: the load's reply came */
	while (read(STDIN_FILENO, &c, 1) != 0 && errno == EINTR)
		;
	return 0;
}
