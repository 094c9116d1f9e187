/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hs_emu.c - a HotSpot JVM (JDK 17 on Linux) for tests, without a JVM.
 *
 *   hs_emu [--libjvm PATH] [--truth FILE] [--log FILE] [--events N]
 *          [--rate N] [--initial N] [--stubs N] [--reuse PCT] [--unload PCT]
 *          [--late-unload PCT] [--stub-events PCT] [--truth-ms MS]
 *          [--seed N] [--inline-info] [--strict]
 *
 * Start-up: dlopen the given libjvm.so (so /proc/<pid>/maps names a HotSpot
 * JVM whose <home>/release an attacher can read), install the SIGQUIT,
 * SIGTERM and SIGINT handlers, compile the initial methods and stubs.  The
 * main thread then plays HotSpot's "Signal Dispatcher": SIGQUIT goes to the
 * attach listener logic (hs_emu_listen.c), SIGTERM/SIGINT stop the JIT,
 * write the final truth, call Agent_OnUnload of the loaded agents, remove
 * the socket and exit 0 (works as PID 1 of a container).
 *
 * Signal handlers only write the signal number into a pipe; everything else
 * runs on the main thread, so no lock is ever taken in a handler.
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hs_emu.h"

struct hs_emu emu = {
	.o = {
		.events = 1000, .rate = 500, .initial = 200, .stubs = 20,
		.reuse_pct = 60, .unload_pct = 40, .late_pct = 5, .stub_pct = 3,
		.truth_ms = 100, .seed = 1,
	},
};

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int sig_pipe[2] = { -1, -1 };

void emu_log(const char *fmt, ...)
{
	struct timespec ts;
	va_list ap;
	FILE *f;

	if (!emu.o.log)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	pthread_mutex_lock(&log_lock);
	f = fopen(emu.o.log, "a");
	if (f) {
		fprintf(f, "%lld.%03ld hs_emu: ", (long long)ts.tv_sec, ts.tv_nsec / 1000000);
		va_start(ap, fmt);
		vfprintf(f, fmt, ap);
		va_end(ap);
		fputc('\n', f);
		fclose(f);
	}
	pthread_mutex_unlock(&log_lock);
}

void emu_abort(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emu_log("FATAL %s", msg);
	fprintf(stderr, "hs_emu: FATAL %s\n", msg);
	abort();
}

void emu_thread_dump(char *buf, size_t cap)
{
	char names[2048];
	time_t now = time(NULL);
	struct tm tm;
	int n;

	gmtime_r(&now, &tm);
	vm_thread_names(names, sizeof(names));
	n = snprintf(buf, cap, "%04d-%02d-%02d %02d:%02d:%02d\n"
		     "Full thread dump OpenJDK 64-Bit Server VM (emulated by hs_emu, "
		     HS_EMU_JAVA_VERSION " mixed mode):\n\n%s\nJNI global refs: 0\n\n",
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		     tm.tm_sec, names);
	if (n < 0 && cap)
		buf[0] = '\0';
}

void emu_print_thread_dump(void)
{
	char dump[4096];

	emu_thread_dump(dump, sizeof(dump));
	fputs(dump, stdout);
	fflush(stdout);
	emu_log("SIGQUIT: thread dump printed");
}

static void on_signal(int sig)
{
	unsigned char b = (unsigned char)sig;
	int saved = errno;

	if (write(sig_pipe[1], &b, 1) < 0) {
		/* a full pipe already holds a wake-up */
	}
	errno = saved;
}

static void install_handlers(void)
{
	struct sigaction sa;
	int sigs[] = { SIGQUIT, SIGTERM, SIGINT };

	if (pipe(sig_pipe) < 0) {
		perror("hs_emu: pipe");
		exit(1);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL) < 0) {
			perror("hs_emu: sigaction");
			exit(1);
		}
	/* A client that hangs up early gives EPIPE, not a dead JVM. */
	signal(SIGPIPE, SIG_IGN);
}

/*
 * dlopen the libjvm.so we are given: its path in /proc/<pid>/maps is how an
 * attacher recognises HotSpot, and <home>/release (home = the path minus
 * lib/server/libjvm.so) gives it the version.
 */
static void load_libjvm(void)
{
	static char def[PATH_MAX];
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if (!emu.o.libjvm) {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0) {
			perror("hs_emu: readlink /proc/self/exe");
			exit(1);
		}
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		*slash = '\0';
		snprintf(def, sizeof(def), "%.*s/hsjdk/lib/server/libjvm.so", PATH_MAX - 40, exe);
		emu.o.libjvm = def;
	}
	if (!dlopen(emu.o.libjvm, RTLD_NOW | RTLD_GLOBAL)) {
		fprintf(stderr, "hs_emu: cannot load %s: %s\n", emu.o.libjvm, dlerror());
		exit(1);
	}
	snprintf(emu.home, sizeof(emu.home), "%s", emu.o.libjvm);
	for (int i = 0; i < 3; i++) {
		slash = strrchr(emu.home, '/');
		if (slash && slash != emu.home)
			*slash = '\0';
	}
}

static void usage(FILE *f, int status)
{
	fprintf(f,
		"usage: hs_emu [options]   (a HotSpot JVM for tests; docs/emulators.md)\n"
		"  --libjvm PATH      a file named libjvm.so in <home>/lib/server (default:\n"
		"                     hsjdk/lib/server/libjvm.so next to the executable)\n"
		"  --truth FILE       write the live code ranges there (perf-map lines)\n"
		"  --log FILE         event log for tests\n"
		"  --events N         code events after the first attach, then idle (%u)\n"
		"  --rate N           events per second, 0 = as fast as possible (%u)\n"
		"  --initial N        methods compiled before any agent is there (%u)\n"
		"  --stubs N          stubs generated at start (%u)\n"
		"  --reuse PCT        loads that take a freed code slot (%u)\n"
		"  --unload PCT       unloads among the events (%u)\n"
		"  --late-unload PCT  replacements whose unload is posted after the load (%u)\n"
		"  --stub-events PCT  new stubs among the events (%u)\n"
		"  --truth-ms MS      least time between truth rewrites (%u)\n"
		"  --seed N           random seed (%u)\n"
		"  --inline-info      pass compile_info with inline records to CompiledMethodLoad\n"
		"  --strict           abort on a missing JVMTI function (default: log it and\n"
		"                     return JVMTI_ERROR_NOT_AVAILABLE)\n",
		emu.o.events, emu.o.rate, emu.o.initial, emu.o.stubs, emu.o.reuse_pct,
		emu.o.unload_pct, emu.o.late_pct, emu.o.stub_pct, emu.o.truth_ms, emu.o.seed);
	exit(status);
}

static unsigned num(const char *opt, const char *s, unsigned max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || !*s || s[0] == '-' || v > max) {
		fprintf(stderr, "hs_emu: %s needs a number 0..%u, not '%s'\n", opt, max, s);
		exit(2);
	}
	return (unsigned)v;
}

static void parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "libjvm", required_argument, NULL, 'j' },
		{ "truth", required_argument, NULL, 't' },
		{ "log", required_argument, NULL, 'l' },
		{ "events", required_argument, NULL, 'e' },
		{ "rate", required_argument, NULL, 'r' },
		{ "initial", required_argument, NULL, 'i' },
		{ "stubs", required_argument, NULL, 's' },
		{ "reuse", required_argument, NULL, 'R' },
		{ "unload", required_argument, NULL, 'u' },
		{ "late-unload", required_argument, NULL, 'L' },
		{ "stub-events", required_argument, NULL, 'S' },
		{ "truth-ms", required_argument, NULL, 'T' },
		{ "seed", required_argument, NULL, 'z' },
		{ "inline-info", no_argument, NULL, 'I' },
		{ "strict", no_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': emu.o.libjvm = optarg; break;
		case 't': emu.o.truth = optarg; break;
		case 'l': emu.o.log = optarg; break;
		case 'e': emu.o.events = num("--events", optarg, 100000000); break;
		case 'r': emu.o.rate = num("--rate", optarg, 1000000); break;
		case 'i': emu.o.initial = num("--initial", optarg, 100000); break;
		case 's': emu.o.stubs = num("--stubs", optarg, 1000); break;
		case 'R': emu.o.reuse_pct = num("--reuse", optarg, 100); break;
		case 'u': emu.o.unload_pct = num("--unload", optarg, 100); break;
		case 'L': emu.o.late_pct = num("--late-unload", optarg, 100); break;
		case 'S': emu.o.stub_pct = num("--stub-events", optarg, 100); break;
		case 'T': emu.o.truth_ms = num("--truth-ms", optarg, 60000); break;
		case 'z': emu.o.seed = num("--seed", optarg, 0xffffffffu); break;
		case 'I': emu.o.inline_info = true; break;
		case 'X': emu.o.jvmti_strict = true; break;
		case 'h': usage(stdout, 0); break;
		default: usage(stderr, 2);
		}
	}
	if (optind != argc) {
		fprintf(stderr, "hs_emu: unexpected argument '%s'\n", argv[optind]);
		exit(2);
	}
}

static _Noreturn void shut_down(int sig)
{
	emu_log("signal %d: shutting down", sig);
	gen_stop();
	listener_unload_agents();
	listener_shutdown();
	emu_log("exit: %ld JVMTI allocations not deallocated", jvmti_outstanding());
	exit(0);
}

int main(int argc, char **argv)
{
	unsigned char sig;

	parse_args(argc, argv);
	emu.pid = getpid();
	emu.euid = geteuid();
	emu.egid = getegid();
	install_handlers();
	load_libjvm();
	catalog_init();
	vm_attach_thread("Signal Dispatcher");
	if (gen_init() < 0 || gen_start() < 0) {
		fprintf(stderr, "hs_emu: cannot start the JIT emulation: %s\n", strerror(errno));
		return 1;
	}
	emu_log("started: pid %d euid %d egid %d java.home %s libjvm %s", (int)emu.pid,
		(int)emu.euid, (int)emu.egid, emu.home, emu.o.libjvm);
	for (;;) {
		ssize_t n = read(sig_pipe[0], &sig, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			emu_abort("signal pipe: %s", n < 0 ? strerror(errno) : "EOF");
		if (sig == SIGQUIT)
			listener_on_sigquit();
		else
			shut_down(sig);
	}
}
