/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jsym_probe.c - `jsym-probe`: the libc test jsym runs inside a container,
 * under the container's own dynamic loader.
 *
 * jsym execs the loader the JVM itself has mapped (glibc's ld-linux or
 * musl's libc) with this program as its argument and LD_PRELOAD naming one
 * agent build, in the JVM's mount namespace and with the JVM's uid/gid.
 * So the agent is loaded, its symbol versions checked and its relocations
 * done by exactly the loader, libc and files the JVM would use; a dlopen in
 * jsym's own process would test the host's libc instead (Pixie's mistake,
 * docs/protocols.md E2).  Then its probe function is called.  Output on
 * stdout, nothing else:
 *
 *   jsym-probe 1
 *   libc glibc 2.36          (or: libc musl)
 *   agent ok 4a53594d        (or: agent fail TEXT)
 *
 * The loader's own complaint about a library it could not preload goes to
 * stderr, which jsym keeps as the reason.
 *
 * The probe reaches the agent through a weak reference, not dlopen: glibc
 * before 2.34 keeps dlopen in libdl.so.2 and 2.34+ in libc.so.6, and no
 * versioned reference fits both.  For the same reason the glibc build has
 * its own _start (crt1.o would need __libc_start_main@GLIBC_2.34) and uses
 * only write, snprintf and _exit; libc is initialised by the loader before
 * _start runs.  Built for each libc: glibc-build/jsym-probe, musl-build/
 * (and the -aarch64 trees).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent_abi.h"

int jsym_agent_probe(void) __attribute__((weak));
const char *gnu_get_libc_version(void) __attribute__((weak));

int probe_main(int argc, char **argv);

static void say(const char *a, const char *b, const char *c)
{
	char line[256];
	int n = snprintf(line, sizeof(line), "%s%s%s\n", a, b, c);

	if (n > 0)
		(void)!write(STDOUT_FILENO, line, (size_t)n < sizeof(line) ?
			     (size_t)n : sizeof(line) - 1);
}

int probe_main(int argc, char **argv)
{
	char hex[16];
	int v;

	(void)argc;
	(void)argv;

	say("jsym-probe 1", "", "");
	/* musl (also behind a libc.so.6 shim) has no gnu_get_libc_version */
	if (gnu_get_libc_version)
		say("libc glibc ", gnu_get_libc_version(), "");
	else
		say("libc musl", "", "");
	if (!jsym_agent_probe) {
		say("agent fail not loaded (see the loader's message)", "", "");
		return 1;
	}
	v = jsym_agent_probe();
	snprintf(hex, sizeof(hex), "%x", (unsigned)v);
	if (v != JSYM_AGENT_PROBE_VALUE) {
		say("agent fail " JSYM_AGENT_PROBE_SYMBOL " returned 0x", hex, "");
		return 1;
	}
	say("agent ok ", hex, "");
	return 0;
}

/*
 * _start: the kernel leaves argc at the stack pointer and argv right above
 * it, the stack 16-byte aligned on both ABIs; the frame pointer and (on
 * aarch64) the link register are cleared so a debugger's backtrace ends
 * here.  The loader's finaliser pointer (rdx / x0) is ignored: the probe
 * leaves through _exit, which runs no destructors.
 */
#if defined(JSYM_PROBE_OWN_START) && defined(__x86_64__)
__asm__(".text\n"
	".global _start\n"
	".type _start,@function\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	mov (%rsp), %rdi\n"
	"	lea 8(%rsp), %rsi\n"
	"	and $-16, %rsp\n"
	"	call probe_main\n"
	"	mov %eax, %edi\n"
	"	call _exit@PLT\n"
	"	hlt\n");
#elif defined(JSYM_PROBE_OWN_START) && defined(__aarch64__)
__asm__(".text\n"
	".global _start\n"
	".type _start,%function\n"
	"_start:\n"
	"	mov x29, #0\n"
	"	mov x30, #0\n"
	"	ldr x0, [sp]\n"
	"	add x1, sp, #8\n"
	"	bl probe_main\n"
	"	bl _exit\n"
	"	brk #0\n");
#elif defined(JSYM_PROBE_OWN_START)
#error "no _start for this architecture (mk/arch.mk)"
#else
int main(int argc, char **argv)
{
	return probe_main(argc, argv);
}
#endif
