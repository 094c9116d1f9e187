/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hs_io.h - one HotSpot attach connection: connect, send, read to EOF.
 *
 * Below hotspot.c, which builds requests and decides what to wait for; this
 * file only moves bytes (it knows nothing of hotspot.c).  The listener is
 * serial and answers one request per connection, so every call opens a new
 * connection.  All waits are bounded by the hs_opts timeouts.
 */
#ifndef JSYM_HS_IO_H
#define JSYM_HS_IO_H

#include <stddef.h>

#include <sys/un.h>

#include "base.h"
#include "hotspot.h"          /* struct hs_opts */

struct target;

/*
 * Fill a sockaddr_un for path, refusing (never truncating) a path that does
 * not fit sun_path's 108 bytes.  Returns the address length, -ENAMETOOLONG
 * or -EINVAL.
 */
int hs_sockaddr(const char *path, struct sockaddr_un *sa);

enum hs_io_mode {
	HS_IO_CAPTURE,          /* keep the body in cap (up to capmax bytes) */
	HS_IO_STREAM,           /* result 0: body to o->out_fd; otherwise to
	                           o->err_fd, with its start kept in cap */
};

/* The most reply body jsym reads from one JVM (a thread dump of 10000
 * threads is tens of MiB); a longer reply is an error, not a stream. */
#define HS_REPLY_MAX (256 << 20)

struct hs_io_result {
	int code;               /* the result line */
	size_t captured;        /* bytes of body kept in cap */
	size_t body_bytes;      /* bytes of body read in total */
};

/*
 * Connect to the socket named sock (relative to the current directory),
 * check that the listening peer is the target (SO_PEERCRED pid and uid),
 * send req, read the reply until EOF.  Returns 0 with *res filled, or
 * -errno with e set (see hotspot_exec for the codes).
 */
int hs_io_roundtrip(const struct target *t, const char *sock, const char *req, size_t len,
		    const struct hs_opts *o, enum hs_io_mode mode, char *cap,
		    size_t capmax, struct hs_io_result *res, struct err_text *e);

#endif
