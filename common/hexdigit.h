/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hexdigit.h - the one decoder of a hexadecimal digit.  Every hex number
 * jsym reads from a target's text goes through it: /proc/<pid>/maps
 * (attach/proc, attach/vmstructs), a perf map's addresses and lengths
 * (attach/lookup, so the lookup library has it too) and the \uXXXX
 * escapes of an OpenJ9 properties file (attach/openj9).  What a number
 * is (how many digits, a 0x or not, what ends it) stays with each
 * parser; only the digit is here.
 *
 * Inline, so no .mk lists it and nothing links a copy it never calls (the
 * agent links common/ and reads no hex).  It looks at one byte, allocates
 * nothing and includes nothing else of jsym's.
 */
#ifndef JSYM_HEXDIGIT_H
#define JSYM_HEXDIGIT_H

/*
 * The value of c as a hex digit: 0..9 for '0'..'9', 10..15 for 'a'..'f'
 * and for 'A'..'F'; -1 for any other byte (a NUL, a blank, a byte past
 * 0x7f).  A caller that takes only one case checks it itself.
 */
static inline int hex_digit(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
