/* SPDX-License-Identifier: Apache-2.0 */
/* clock.c - clock_ms(): CLOCK_MONOTONIC in milliseconds (whole_clock_ms). */
#include "base.h"
#include "wholeio.h"

long clock_ms(void)
{
	return whole_clock_ms();
}
