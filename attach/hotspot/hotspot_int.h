/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hotspot_int.h - the HotSpot client's own steps, for the folder and the
 * unit tests; the layers above use hotspot.h, the entry.
 */
#ifndef JSYM_HOTSPOT_INT_H
#define JSYM_HOTSPOT_INT_H

#include <stdbool.h>

#include "base.h"
#include "hotspot.h"

/*
 * May jsym send SIGQUIT to this target?  Only a confirmed HotSpot (libjvm.so
 * mapped, no libj9vm) that catches SIGQUIT (SigCgt bit 3), without -Xrs
 * (no handler: the signal would kill it) and without
 * -XX:+DisableAttachMechanism (it would only print a thread dump).
 * Returns true, or false with the reason (and remedy) in e (may be NULL).
 */
bool hotspot_may_signal(const struct target *t, struct err_text *e);

#endif
