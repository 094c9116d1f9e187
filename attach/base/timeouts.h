/* SPDX-License-Identifier: Apache-2.0 */
/*
 * timeouts.h - the two timeouts of an attach, defined once, with their
 * defaults.  Every field, option and document that names one means this,
 * in these words (run.h's run_request, hotspot's hs_opts, openj9's
 * openj9_target, `--timeout` and `--read-timeout` in `jsym --help`,
 * docs/jsym.1 and docs/cli.md):
 *
 * timeout_ms, --timeout MS: the longest wait for the attach socket and
 *   the connection (OpenJ9: for each step of the handshake: its locks,
 *   semaphore, connect-back and greeting).  > 0.
 *
 * read_timeout_ms, --read-timeout MS: the deadline for the whole reply,
 *   from the request sent to its last byte, however it trickles in
 *   (OpenJ9's reply is one message).  0: no limit.
 */
#ifndef JSYM_TIMEOUTS_H
#define JSYM_TIMEOUTS_H

#define ATTACH_TIMEOUT_MS 10000
#define ATTACH_READ_TIMEOUT_MS 30000

/* The defaults as text, for the help texts. */
#define ATTACH_STR_(x) #x
#define ATTACH_STR(x) ATTACH_STR_(x)

#endif
