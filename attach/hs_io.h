/*
 * hs_io.h - one HotSpot attach connection: connect, send, read to EOF.
 *
 * Internal to hotspot.c (split out to keep files small).  The listener is
 * serial and answers one request per connection, so every call opens a new
 * connection.  All waits are bounded by the hs_opts timeouts.
 */
#ifndef JSYM_HS_IO_H
#define JSYM_HS_IO_H

#include <stddef.h>

#include "errtext.h"
#include "hotspot.h"

struct target;

enum hs_io_mode {
	HS_IO_CAPTURE,          /* keep the body in cap (up to capmax bytes) */
	HS_IO_STREAM,           /* result 0: body to o->out_fd; otherwise to
	                           o->err_fd, with its start kept in cap */
};

struct hs_io_result {
	int code;               /* the result line */
	size_t captured;        /* bytes of body kept in cap */
	size_t body_bytes;      /* bytes of body read in total */
};

/* Monotonic milliseconds. */
long hs_now_ms(void);

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
