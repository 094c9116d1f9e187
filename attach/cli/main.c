/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main.c - `jsym`: attach to JVMs by host pid, list them, resolve addresses.
 *
 * Dispatches to the subcommands through the command table (cli_commands.c);
 * each one parses its own options, prints, and returns the exit status
 * (cli.h).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	/* a JVM that closes early gives EPIPE, not a killed jsym */
	signal(SIGPIPE, SIG_IGN);
	if (!cmd) {
		cli_usage(stderr);
		return JSYM_EXIT_USAGE;
	}
	if (!strcmp(cmd, "help") && argc > 2) {
		if (cli_help(stdout, argv[2]) == 0)
			return JSYM_EXIT_OK;
		cli_err("unknown command '%s' (try jsym --help)", argv[2]);
		return JSYM_EXIT_USAGE;
	}
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		cli_usage(stdout);
		return JSYM_EXIT_OK;
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		printf("jsym %s\n", JSYM_VERSION);
		return JSYM_EXIT_OK;
	}
	if (cli_command(cmd) && cli_command(cmd)->watched)
		return cli_run_watched(cli_command(cmd), argc - 1, argv + 1);
	if (cli_command(cmd))
		return cli_command(cmd)->main(argc - 1, argv + 1);
	cli_err("unknown command '%s' (try jsym --help)", cmd);
	return JSYM_EXIT_USAGE;
}
