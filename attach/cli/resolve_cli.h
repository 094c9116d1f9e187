/* SPDX-License-Identifier: Apache-2.0 */
/*
 * resolve_cli.h - entry point of `jsym resolve` (attach/cli/resolve_cli.c).
 *
 * attach/cli/main.c calls it with argv[0] = "resolve" and the remaining
 * arguments; it prints its own output and errors and returns the exit status:
 * 0 it ran (every address answered, resolved or "??"), 1 usage error,
 * 2 its own failure (symbol files missing or unreadable, out of memory).
 */
#ifndef JSYM_RESOLVE_CLI_H
#define JSYM_RESOLVE_CLI_H

int jsym_resolve_main(int argc, char **argv);

#endif
