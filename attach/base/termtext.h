/* SPDX-License-Identifier: Apache-2.0 */
/*
 * termtext.h - text read from a target, made safe for an operator's
 * terminal.
 *
 * Anything jsym read from a target (its release file, cmdline, comm, cgroup,
 * paths in its root, a JVM's reply) may have been written by whoever
 * controls the container, including escape sequences that would recolour,
 * retitle or rewrite the operator's terminal.  Every byte that is not
 * printable is shown as \xNN: C0 controls (ESC is \x1b), DEL, the C1
 * controls U+0080..U+009F (each of their two UTF-8 bytes), the invisible
 * format characters that reorder or hide text (the bidi overrides U+202E
 * and the others of text_utf8_invisible, each of their UTF-8 bytes) and
 * bytes that are not part of valid UTF-8.  Printable ASCII and other valid
 * UTF-8 of U+00A0 and above stay as they are.
 *
 * A backslash is kept as it is, so escaping twice changes nothing: modules
 * escape the target text they embed in an error, and the CLI escapes its
 * whole line once more without doubling anything.  The price is that a
 * literal "\x1b" in the target's text looks like an escaped ESC.
 */
#ifndef JSYM_TERMTEXT_H
#define JSYM_TERMTEXT_H

#include <stddef.h>

/* Keep '\n' and '\t' (for jsym's own multi-line messages); by default they
 * are escaped too, so one field cannot start a forged line. */
#define TERM_KEEP_NL 1u

/*
 * Escape n bytes of s into dst (cap bytes, cap > 0), always NUL-terminated.
 * An escape is never cut in half: when dst is full, the output ends before
 * the first byte that does not fit.  Returns dst.
 */
char *term_escape(char *dst, size_t cap, const char *s, size_t n, unsigned flags);

/* term_escape of the NUL-terminated s, without flags. */
char *term_str(char *dst, size_t cap, const char *s);

#endif
