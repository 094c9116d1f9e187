/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vm_tables_text.h - the serviceability tables (agent/format's vm_tables.h)
 * as text for `jsym map --tables`.  Apart from the reader: it escapes the
 * JVM's strings for a terminal (attach/base), which the agent never needs.
 */
#ifndef JSYM_VM_TABLES_TEXT_H
#define JSYM_VM_TABLES_TEXT_H

#include "vm_tables.h"

/* Every field, type and constant of t, one a line ("field T::N TYPE +OFF",
 * "type T : SUPER size N", "int N = V", "long N = V"), the names escaped for
 * a terminal (they are the JVM's memory); *text is malloc'd.  Its length,
 * or -ENOMEM. */
long vm_tables_text(const struct vm_tables *t, char **text);

#endif
