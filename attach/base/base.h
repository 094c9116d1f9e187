/* SPDX-License-Identifier: Apache-2.0 */
/*
 * base.h - the entry of attach/base, the one header of the folder that the
 * layers above see (attach/base/include/): the bottom layer's whole
 * vocabulary.  Error text (errtext.h, from common/, which the agent may
 * include too), the types the layers share (attach_types.h), the monotonic
 * clock (clock.h), whole reads
 * and writes and lock waits (fdio.h), the one confined open of what a
 * target names (confine.h, from common/, which the lookup library links too),
 * strict numbers and JSON strings (text.h), terminal escaping (termtext.h),
 * the two timeouts of an attach and their defaults (timeouts.h).
 */
#ifndef JSYM_BASE_H
#define JSYM_BASE_H

#include "attach_types.h"
#include "clock.h"
#include "errtext.h"
#include "fdio.h"
#include "confine.h"
#include "termtext.h"
#include "text.h"
#include "timeouts.h"

#endif
