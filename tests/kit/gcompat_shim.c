/* SPDX-License-Identifier: Apache-2.0 */
/* tests/kit/gcompat_shim.c - a tiny libc.so.6 for the alpine-gcompat rootfs.
 *
 * Alpine's gcompat lets some glibc-linked programs run on musl: a library
 * named like glibc's (soname libc.so.6) that supplies glibc-only entry
 * points on top of musl, and /lib/ld-linux-x86-64.so.2 pointing at musl's
 * loader.  jsym's tests only need that *shape* (does a tool mistake such a
 * system for glibc?), so this shim provides a handful of the fortified and
 * version-query functions glibc binaries commonly import, written here
 * from their documented behaviour.  Built with musl-gcc -shared into
 * musl-build/kit/libc.so.6 by tests/kit/kit.mk.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gnu_get_libc_version(void);
const char *gnu_get_libc_release(void);
int __printf_chk(int flag, const char *fmt, ...);
int __fprintf_chk(FILE *f, int flag, const char *fmt, ...);
int __sprintf_chk(char *s, int flag, size_t slen, const char *fmt, ...);
int __snprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, ...);
int __vsnprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, va_list ap);
void *__memcpy_chk(void *d, const void *s, size_t n, size_t dlen);
void *__memset_chk(void *d, int c, size_t n, size_t dlen);
char *__strcpy_chk(char *d, const char *s, size_t dlen);
void __chk_fail(void) __attribute__((noreturn));

/* Reported version: what gcompat answers, a glibc old enough for most. */
const char *gnu_get_libc_version(void)
{
	return "2.17";
}

const char *gnu_get_libc_release(void)
{
	return "stable";
}

/* glibc's fortify failure: a buffer overflow was detected; end the process. */
void __chk_fail(void)
{
	static const char msg[] = "*** buffer overflow detected ***: terminated\n";

	fputs(msg, stderr);
	abort();
}

int __printf_chk(int flag, const char *fmt, ...)
{
	va_list ap;
	int n;

	(void)flag;
	va_start(ap, fmt);
	n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}

int __fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
	va_list ap;
	int n;

	(void)flag;
	va_start(ap, fmt);
	n = vfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}

int __vsnprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, va_list ap)
{
	(void)flag;
	if (n > slen)
		__chk_fail();
	return vsnprintf(s, n, fmt, ap);
}

int __snprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = __vsnprintf_chk(s, n, flag, slen, fmt, ap);
	va_end(ap);
	return r;
}

int __sprintf_chk(char *s, int flag, size_t slen, const char *fmt, ...)
{
	va_list ap;
	int r;

	(void)flag;
	va_start(ap, fmt);
	r = vsnprintf(s, slen, fmt, ap);
	va_end(ap);
	if (r >= 0 && (size_t)r >= slen)
		__chk_fail();
	return r;
}

void *__memcpy_chk(void *d, const void *s, size_t n, size_t dlen)
{
	if (n > dlen)
		__chk_fail();
	return memcpy(d, s, n);
}

void *__memset_chk(void *d, int c, size_t n, size_t dlen)
{
	if (n > dlen)
		__chk_fail();
	return memset(d, c, n);
}

char *__strcpy_chk(char *d, const char *s, size_t dlen)
{
	size_t n = strlen(s) + 1;

	if (n > dlen)
		__chk_fail();
	return memcpy(d, s, n);
}
