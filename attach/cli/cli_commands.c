/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_commands.c - the command table (cli.h's cli_commands[]): each
 * command's name, entry, help (`jsym COMMAND --help`: options and
 * examples) and its lines in `jsym --help`.  main() dispatches through it,
 * `jsym --help` lists it, and tests/integration/60-docs-man.sh takes the
 * commands from `jsym --help` to compare them with the man page.  A new
 * command is one row here, its cli_NAME.c, and its sections in docs/jsym.1
 * and docs/cli.md.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define EXIT_TEXT \
"Exit status: 0 success; 1 usage error; 2 jsym could not attach (the message\n" \
"names the cause and the fix); 3 the JVM refused or the command failed (its\n" \
"message is printed); 4 the agent's Agent_OnAttach returned non-zero (the\n" \
"code is printed); 5 several JVMs, some failed.\n"

#define EXEC_TIMEOUTS \
"  -t, --timeout MS        the longest wait for the attach socket and the\n" \
"                          connection (default " ATTACH_STR(ATTACH_TIMEOUT_MS) ")\n" \
"  -r, --read-timeout MS   the deadline for the whole reply, from the request\n" \
"                          sent (default " ATTACH_STR(ATTACH_READ_TIMEOUT_MS) "; 0: no limit)\n" \
"  -v, --verbose           one line per step on stderr\n"

static const char attach_help[] =
"Usage: jsym attach [OPTIONS] PID... | --all\n"
"       jsym attach --stop [--clean] PID...\n"
"\n"
"Load the jsym agent into running JVMs: both builds are copied into the\n"
"JVM's container (owned by its uid) unless it sees jsym's own files (or, when\n"
"its temp dir cannot take them, handed over from a memfd without writing\n"
"anything), the libc build is confirmed by a probe under the container's own\n"
"loader, and a JVM that already runs the agent only refreshes it.  --stop\n"
"stops the agent's output; --clean also removes the copies the JVM does not\n"
"map.\n"
"\n"
"  -o, --options OPTS      the agent's options (docs/agent.md), e.g.\n"
"                          dir=/tmp,flush_ms=100\n"
"  -a, --agent-dir DIR     where the builds are: DIR/{glibc,musl}/ (default:\n"
"                          next to jsym, build or install tree)\n"
"      --delivery HOW      auto (default: copy, a memfd when the temp dir is\n"
"                          read-only, noexec or too small), copy, memfd\n"
"      --all               every JVM visible from here\n"
"  -j, --jobs N            JVMs attached at once with --all (1 to 64, default 4)\n"
"      --json              the outcome as JSON\n"
"      --fallback=map      a JVM that takes no agent gets jsym map instead\n"
"                          (--json: \"source\" says agent or vmstructs)\n"
"      --force             load the agent into a JDK jsym refuses for a known\n"
"                          crash (JDK 8 before 8u382: JDK-8305165), or into a\n"
"                          JVM less than 16 MiB below its memory limit\n"
"      --stop              stop the agent's output\n"
"      --clean             with --stop: remove the copies the JVM does not map\n"
EXEC_TIMEOUTS
"  -h, --help              this text\n"
"\n"
"Examples:\n"
"  jsym attach 4242                      the agent into one JVM\n"
"  jsym attach -o unfold,flush_ms=100 4242\n"
"  jsym attach --all -j 8 --json         every JVM here, 8 at a time\n"
"  jsym attach --stop --clean 4242       the same as jsym detach 4242\n"
"\n"
EXIT_TEXT;

static const char detach_help[] =
"Usage: jsym detach [-a DIR] [-t MS] [-r MS] [-v] [--json] PID...\n"
"\n"
"The same as jsym attach --stop --clean: stop the agent's output and remove\n"
"the copies jsym made that the JVM does not map.\n"
"\n"
"Example:\n"
"  jsym detach 4242\n"
"\n"
EXIT_TEXT;

static const char exec_help[] =
"Usage: jsym exec [OPTIONS] PID COMMAND [ARGS...]\n"
"\n"
"Run one attach command in the JVM and print its output as it arrives:\n"
"load LIB [true|false [OPTIONS]], properties, agentProperties, threaddump,\n"
"jcmd CMD [ARGS...], printflag NAME, setflag NAME VALUE,\n"
"dumpheap FILE [-live|-all], inspectheap [-live|-all], datadump.\n"
"\n"
EXEC_TIMEOUTS
"      --protocol N        HotSpot attach protocol: auto (default), 1, 2\n"
"      --json              print the outcome as one JSON object on stdout\n"
"                          (no short form: -j is --jobs)\n"
"  -h, --help              this text\n"
"\n"
"Examples:\n"
"  jsym exec 4242 properties\n"
"  jsym exec -v 4242 jcmd GC.heap_info\n"
"  jsym exec --json 4242 jcmd VM.version | python3 -m json.tool\n"
"\n"
EXIT_TEXT;

static const char list_help[] =
"Usage: jsym list [--json] [-v]\n"
"\n"
"The JVMs visible from here: pid, pid in its namespace, uid, kind, version,\n"
"libc, agent, container.\n"
"\n"
"      --json              an array of objects with the same facts and more\n"
"  -v, --verbose           name each process that could not be inspected\n"
"  -h, --help              this text\n"
"\n"
"Examples:\n"
"  jsym list\n"
"  jsym list --json | python3 -m json.tool\n";

static const char map_help[] =
"Usage: jsym map [--json] [--stdout] [-v] PID\n"
"       jsym map --follow [--interval MS] [--json] [-v] PID\n"
"       jsym map --tables [-v] PID\n"
"\n"
"Write the JVM's perf map without attaching, signalling or loading anything:\n"
"libjvm.so's serviceability tables and code cache read from outside\n"
"(HotSpot; docs/map.md), for JVMs that take no agent.  --follow keeps the\n"
"map equal to the live code and journals loads and unloads next to it\n"
"(/tmp/jsym-<nspid>.journal, for jsym resolve --at), until SIGINT/SIGTERM or\n"
"the JVM's exit.\n"
"\n"
"      --stdout            print the map instead of writing it\n"
"      --tables            print the JVM's vmStructs tables (fields, types,\n"
"                          constants) as text instead of a map\n"
"  -f, --follow            keep the map current and journal its changes\n"
"  -i, --interval MS       time between two scans with --follow (1000; >= 10)\n"
"      --json              a summary as one JSON object\n"
"  -v, --verbose           one line per step on stderr\n"
"  -h, --help              this text\n"
"\n"
"Examples:\n"
"  jsym map 4242\n"
"  jsym map --follow --interval 500 4242\n"
"\n"
EXIT_TEXT;

static const char resolve_help[] =
"Usage: jsym resolve --pid PID [--dir DIR] [options] [ADDR...]\n"
"       jsym resolve --journal FILE | --map FILE [options] [ADDR...]\n"
"\n"
"Name the Java methods at JIT code addresses of a running JVM, from the\n"
"journal or perf map the jsym agent writes.  ADDR is hex, with or without\n"
"0x; without ADDR, addresses are read from stdin (whitespace-separated) and\n"
"each line is answered at once, so jsym works as a pipe filter.\n"
"\n"
"  -p, --pid PID           JVM as seen from here; files are read through\n"
"                          /proc/PID/root/DIR/ with the JVM's own pid\n"
"  -d, --dir DIR           directory inside the JVM's filesystem (default /tmp,\n"
"                          or JDK 28's AltTempDir when /tmp is unusable)\n"
"      --journal FILE      read this journal (offline)\n"
"  -m, --map FILE          read this perf map (offline)\n"
"  -f, --follow            re-read the file before each lookup (live JVM)\n"
"      --at SECONDS        the code as it was at this CLOCK_MONOTONIC time (as\n"
"                          `perf script` prints sample times with perf record\n"
"                          -k 1); needed once the agent stopped: it closes\n"
"                          every range\n"
"      --json              one JSON object per address\n"
"  -v, --verbose           say which file was used and what it contained\n"
"  -h, --help              this text\n"
"\n"
"Output: ADDR  NAME+OFFSET  [class C, method M, sig S, START+SIZE]\n"
"            CLASS.METHOD (FILE:LINE) [inlined]   the inline stack, innermost\n"
"            ...                                  first, when the agent ran\n"
"            CLASS.METHOD (FILE:LINE)             with unfold (lines: FILE:LINE)\n"
"        ADDR  ??            when no live code range holds ADDR\n"
"Names are the target's text: escaped as \\xNN where a terminal would act on\n"
"them.\n"
"\n"
"Examples:\n"
"  jsym resolve --pid 4242 7f3a2c01a2b0\n"
"  perf script -F ip | jsym resolve --pid 4242 --follow\n"
"  jsym resolve --journal jsym-1.journal --at 12345.678901 7f3a2c01a2b0\n"
"\n"
"Exit: 0 ran, 1 usage, 2 failure (files missing or unreadable).\n";

static const char stacks_help[] =
"Usage: jsym stacks --pid PID [--dir DIR] [options] <PERF_SCRIPT_OUTPUT\n"
"       jsym stacks --journal FILE | --map FILE [options] <PERF_SCRIPT_OUTPUT\n"
"\n"
"Fold `perf script --no-inline` samples (stdin) into stacks for a flame\n"
"graph (stdout): one line per distinct stack, root first,\n"
"`COMM;frame;...;leaf COUNT`, as FlameGraph, inferno and speedscope read.\n"
"Each JIT frame (a jitted-*.so of `perf inject --jit`, the perf map,\n"
"[unknown]) is looked up in the JVM's journal: a compiled method becomes\n"
"its inline stack, the compiled method first and each method inlined into\n"
"it after, marked with the suffix _[i].\n"
"Interpreter frames and stubs get the journal's names, native and kernel\n"
"frames keep perf's.\n"
"\n"
"  -p, --pid PID           JVM as seen from here; files are read through\n"
"                          /proc/PID/root/DIR/ with the JVM's own pid\n"
"  -d, --dir DIR           directory inside the JVM's filesystem (default /tmp,\n"
"                          or JDK 28's AltTempDir when /tmp is unusable)\n"
"      --journal FILE      read this journal (offline)\n"
"  -m, --map FILE          read this perf map (offline; no inline stacks)\n"
"      --lines             Java frames as CLASS.METHOD:FILE:LINE (agent option\n"
"                          lines)\n"
"      --at SECONDS        the code as it was at this CLOCK_MONOTONIC time (a\n"
"                          sample time of perf record -k mono); needed once\n"
"                          the agent stopped: it closes every range\n"
"  -v, --verbose           say which file was used and what was folded\n"
"  -h, --help              this text\n"
"\n"
"Names are the target's text: ';', '\\' and control bytes in them are written\n"
"\\xHH, so a name cannot make a frame or a line of its own.\n"
"\n"
"Examples:\n"
"  jsym attach -o jitdump,lines 4242\n"
"  perf record -k mono --call-graph dwarf,16384 -p 4242 -- sleep 10\n"
"  perf inject --jit -i perf.data -o perf.jit.data\n"
"  perf script --no-inline -i perf.jit.data | jsym stacks --pid 4242 >out.folded\n"
"\n"
"Exit: 0 ran, 1 usage, 2 failure (files missing or unreadable).\n";

static int detach_main(int argc, char **argv)
{
	return cli_attach_main(argc, argv, true);
}

static int attach_main(int argc, char **argv)
{
	return cli_attach_main(argc, argv, false);
}

/*
 * In the order of `jsym --help`.  The last column: run in a watched child.
 * attach, detach and list need no watch: each target is looked at in a
 * child of its own with a limit (the pool's workers, target_visit_bounded).
 */
const struct cli_command cli_commands[] = {
	{ "attach", attach_main, attach_help,
	  "  attach [OPTIONS] PID... | --all\n"
	  "                    load the jsym agent into running JVMs\n"
	  "  attach --stop [--clean] PID...\n"
	  "                    stop the agent's output (and remove its copies)\n",
	  false },
	{ "detach", detach_main, detach_help,
	  "  detach PID...     the same as attach --stop --clean\n",
	  false },
	{ "exec", cli_exec_main, exec_help,
	  "  exec [OPTIONS] PID COMMAND [ARGS...]\n"
	  "                    run one attach command in the JVM and print its output\n",
	  true },
	{ "map", cli_map_main, map_help,
	  "  map [OPTIONS] PID write the JVM's perf map without attaching (HotSpot)\n",
	  true },
	{ "list", cli_list_main, list_help,
	  "  list [--json] [-v]\n"
	  "                    JVMs visible from here\n",
	  false },
	{ "resolve", cli_resolve_main, resolve_help,
	  "  resolve [OPTIONS] [ADDR...]\n"
	  "                    resolve addresses with the jsym agent's symbols\n",
	  true },
	{ "stacks", cli_stacks_main, stacks_help,
	  "  stacks [OPTIONS]  fold perf script's samples, inline stacks expanded\n",
	  true },
	{ NULL, NULL, NULL, NULL, false },
};

const struct cli_command *cli_command(const char *name)
{
	for (const struct cli_command *c = cli_commands; c->name; c++)
		if (!strcmp(name, c->name))
			return c;
	return NULL;
}

int cli_help(FILE *f, const char *cmd)
{
	const struct cli_command *c = cli_command(cmd);

	if (!c)
		return -ENOENT;
	fputs(c->help, f);
	return 0;
}

void cli_usage(FILE *f)
{
	fputs(
"Usage: jsym COMMAND [OPTIONS] [ARGS]\n"
"\n"
"Attach to a running JVM (HotSpot or OpenJ9) by its pid as seen from here,\n"
"entering its container's namespaces when needed.\n"
"\n"
"Commands:\n", f);
	for (const struct cli_command *c = cli_commands; c->name; c++)
		fputs(c->usage, f);
	fputs(
"\n"
"jsym COMMAND --help (or jsym help COMMAND) prints that command's options\n"
"and examples.\n"
"\n"
"  -h, --help              this text      -V, --version   jsym's version\n"
"\n"
EXIT_TEXT, f);
}
