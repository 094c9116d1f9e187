/* cli_usage.c - the text of `jsym --help` (docs/cli.md says the same). */
#include <stdio.h>

#include "cli.h"

void cli_usage(FILE *f)
{
	fputs(
"Usage: jsym COMMAND [OPTIONS] [ARGS]\n"
"\n"
"Attach to a running JVM (HotSpot or OpenJ9) by its pid as seen from here,\n"
"entering its container's namespaces when needed.\n"
"\n"
"Commands:\n"
"  exec [OPTIONS] PID COMMAND [ARGS...]\n"
"                    run one attach command in the JVM and print its output:\n"
"                    load LIB [true|false [OPTIONS]], properties,\n"
"                    agentProperties, threaddump, jcmd CMD [ARGS...],\n"
"                    printflag NAME, setflag NAME VALUE, dumpheap FILE [-live|-all],\n"
"                    inspectheap [-live|-all], datadump\n"
"  list [--json] [-v]\n"
"                    JVMs visible from here: pid, pid in its namespace, uid,\n"
"                    kind, version, libc, container\n"
"  resolve ...       resolve addresses with the jsym agent's symbols\n"
"                    (`jsym resolve --help`)\n"
"\n"
"Options of exec:\n"
"  -t, --timeout MS        wait at most MS for the attach socket and the\n"
"                          connection (default 10000)\n"
"  -r, --read-timeout MS   longest silence while reading the reply\n"
"                          (default 30000; 0: no limit)\n"
"  -p, --protocol N        HotSpot attach protocol: auto (default), 1, 2\n"
"  -v, --verbose           one line per step on stderr\n"
"  -j, --json              print the outcome as one JSON object on stdout\n"
"\n"
"  -h, --help              this text      -V, --version   jsym's version\n"
"\n"
"Exit status: 0 success; 1 usage error; 2 jsym could not attach (the message\n"
"names the cause and the fix); 3 the JVM refused or the command failed (its\n"
"message is printed); 4 the agent's Agent_OnAttach returned non-zero (the\n"
"code is printed).\n", f);
}
