/* SPDX-License-Identifier: Apache-2.0 */
/*
 * glibc_compat.h - force-included (gcc -include) into every object of the
 * glibc build of the agent and of the lookup library (libjsym-lookup.so.1,
 * attach/lookup/lookup.mk), never into the musl build.
 *
 * A JVM image may ship a glibc as old as 2.17 (CentOS 7), while this
 * machine has 2.36, whose headers bind pthread_*, fstat, fcntl, ... to
 * GLIBC_2.34 / 2.33 / 2.28 versions.  A library needing those fails to load
 * there ("version `GLIBC_2.34' not found").  The .symver directives below
 * bind each function the agent uses to the oldest version of its
 * architecture (x86_64: 2.2.5; aarch64: 2.17, where that port began), which
 * every glibc since exports from libc.so.6 itself (2.34+ keeps them as
 * compatibility symbols).
 *
 * Only functions that libc.so.6 exported before 2.34 may be used: a
 * versioned reference names its file (libc.so.6), and the dynamic linker
 * fails ("version GLIBC_2.2.5 not defined in file libc.so.6") when that
 * file comes first in the search order without the symbol.  So no
 * pthread_create/pthread_join (libpthread.so.0 before 2.34: the flush
 * thread is a JVMTI agent thread), no dlopen/dlsym (libdl.so.2).  The
 * pthread_mutex_* and pthread_cond_* calls are libc.so.6's forwarders, live
 * in any JVM (libjvm.so always loads libpthread).  tests/integration/20-agent-elf.sh fails the build
 * if any GLIBC_x.y newer than 2.17 remains.
 *
 * fstat had no exported symbol before 2.33 (it was an inline wrapper around
 * __fxstat in libc_nonshared.a), so it is redirected to __fxstat.
 */
#ifndef JSYM_GLIBC_COMPAT_H
#define JSYM_GLIBC_COMPAT_H

#define JSYM_SYMVER(fn, ver) __asm__(".symver " #fn "," #fn "@" #ver)
#if defined(__x86_64__)
JSYM_SYMVER(pthread_cond_timedwait, GLIBC_2.3.2);
JSYM_SYMVER(pthread_cond_signal, GLIBC_2.3.2);
JSYM_SYMVER(pthread_cond_broadcast, GLIBC_2.3.2);
JSYM_SYMVER(fcntl, GLIBC_2.2.5);
JSYM_SYMVER(fcntl64, GLIBC_2.2.5);
JSYM_SYMVER(__fxstat, GLIBC_2.2.5);
JSYM_SYMVER(memcpy, GLIBC_2.2.5);
#define JSYM_STAT_VER 1         /* _STAT_VER_LINUX on x86_64 */
#elif defined(__aarch64__)
/* aarch64's first glibc was 2.17: every symbol the agent uses already has
 * that version except fstat (2.33), so only __fxstat is pinned. */
JSYM_SYMVER(__fxstat, GLIBC_2.17);
#define JSYM_STAT_VER 0         /* _STAT_VER_KERNEL, the generic ports' one */
#else
#error "glibc_compat.h: no symbol versions for this architecture"
#endif

#include <sys/stat.h>
extern int __fxstat(int ver, int fd, struct stat *st);
static inline int jsym_compat_fstat(int fd, struct stat *st)
{
	return __fxstat(JSYM_STAT_VER, fd, st);
}
#define fstat(fd, st) jsym_compat_fstat(fd, st)

#endif
