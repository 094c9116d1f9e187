/*
 * vm_write.h - the perf map `jsym map` writes, in the JVM's container.
 *
 * The same file the agent keeps (docs/perf-map.md): /tmp/perf-<nspid>.map
 * as the JVM sees /tmp, "START SIZE name\n" in lowercase hex without 0x,
 * sorted by address, mode 0644, owned by the JVM's uid.  Written the way
 * attach/deploy/place.c writes into a container: /tmp opened from the
 * target's root dirfd (inroot_open, RESOLVE_IN_ROOT) and refused unless it
 * is a real directory, sticky if world-writable; the map written to a new
 * file of an exclusive name (O_CREAT|O_EXCL|O_NOFOLLOW), given to the
 * JVM's uid with fchown, then renamed over the map, so readers see the old
 * map or the new one.  An existing map that is not a regular file, or that
 * belongs to neither the JVM's uid nor root, is refused, never replaced.
 */
#ifndef JSYM_VM_WRITE_H
#define JSYM_VM_WRITE_H

#include <stddef.h>

#include "errtext.h"
#include "target.h"
#include "vm_scan.h"

/*
 * Render s as perf-map text into a malloc'd buffer (*out, the caller
 * frees).  Newlines in names become spaces.  Length or -ENOMEM.
 */
long vm_map_render(const struct vm_snapshot *s, char **out);

/*
 * Replace the JVM's map with text[len].  where[cap] gets the path as the
 * JVM names it.  0 or -errno with e set.
 */
int vm_map_write(const struct target *t, const char *text, size_t len, char *where,
		 size_t cap, struct err_text *e);

#endif
