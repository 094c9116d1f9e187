/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hs_tmpdir.h - the directory a HotSpot JVM keeps its attach socket in and
 * looks for the trigger in after its cwd: /tmp, or on JDK 28 the
 * -XX:AltTempDir it accepted (docs/protocols.md A2).  Inside hotspot/.
 */
#ifndef JSYM_HS_TMPDIR_H
#define JSYM_HS_TMPDIR_H

#include "base.h"

struct target;

/*
 * Open the JVM's temp dir inside its root (O_PATH dirfd).  JDK 28 takes an
 * absolute -XX:AltTempDir even when it cannot use it (it warns and keeps
 * it; a relative one it replaces by /tmp): a missing directory, or one the
 * JVM's user cannot write without a socket already in it, is an error
 * naming the fix (call after creds_become: the check is made with the
 * JVM's ids).  *name gets the path as the JVM names it (points into t or at
 * a literal).  Returns the fd or -errno with e set.
 */
int hs_tmpdir_open(const struct target *t, const char **name,
		   const struct attach_log *log, struct err_text *e);

#endif
